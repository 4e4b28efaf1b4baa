/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.install;

import io.github.nativeselector.NativeSelectorProvider;
import io.github.nativeselector.internal.BuiltInProvider;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.channels.SocketChannel;
import java.nio.channels.spi.SelectorProvider;

/**
 * Child-JVM main: whether the JDK's socket channels and this provider's (lean ones, when the child
 * runs with {@code nativeselector.channels=lean}) take IPv6 alike. For each it prints the class of
 * a socket of the default family, what binding that socket to {@code ::1} gives (an IPv4 socket
 * refuses the address), and what asking for an INET6 socket gives.
 */
public final class Inet6ChoiceProbe {

    private Inet6ChoiceProbe() {
    }

    public static void main(String[] args) throws Exception {
        report("jdk", BuiltInProvider.get());
        report("lean", NativeSelectorProvider.provider());
        System.out.flush();
    }

    private static void report(String name, SelectorProvider provider) throws Exception {
        try (SocketChannel socket = provider.openSocketChannel()) {
            System.out.println(name + ".class=" + socket.getClass().getName());
            System.out.println(name + ".bindToIpv6Loopback=" + outcome(() -> {
                socket.bind(new InetSocketAddress(InetAddress.getByName("::1"), 0));
            }));
        }
        System.out.println(name + ".inet6Socket=" + outcome(() -> {
            provider.openSocketChannel(StandardProtocolFamily.INET6).close();
        }));
    }

    private interface Step {
        void run() throws Exception;
    }

    private static String outcome(Step step) {
        try {
            step.run();
            return "done";
        } catch (Exception e) {
            return e.toString();
        }
    }
}
