/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.internal.lean;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.nativeselector.NativeSelectorProvider;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import org.junit.jupiter.api.Test;

/**
 * IP_TOS on a dual-stack (IPv6) lean socket marks its IPv4 traffic too, as the JDK's channels
 * mark theirs from JDK 21: the kernel takes an IPv4 packet's TOS from IP_TOS, which the option's
 * own value, read back from IPV6_TCLASS, does not show. Set before the connect (the SYN carries
 * it), after it, on an accepted socket and through the adaptor.
 */
class TrafficClassTest {

    private static final int CLASS = 0x28;

    @Test
    void ipTosOnADualStackSocketMarksItsIpv4Traffic() throws IOException {
        NativeSelectorProvider provider = new NativeSelectorProvider();
        try (ServerSocketChannel server = LeanChannels.openServerSocketChannel(provider, StandardProtocolFamily.INET6);
                SocketChannel before = LeanChannels.openSocketChannel(provider, StandardProtocolFamily.INET6);
                SocketChannel after = LeanChannels.openSocketChannel(provider, StandardProtocolFamily.INET6)) {
            server.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0));
            before.setOption(StandardSocketOptions.IP_TOS, CLASS);
            before.connect(server.getLocalAddress());
            after.connect(server.getLocalAddress());
            after.socket().setTrafficClass(CLASS);
            try (SocketChannel accepted = server.accept(); SocketChannel second = server.accept()) {
                accepted.setOption(StandardSocketOptions.IP_TOS, CLASS);
                for (SocketChannel channel : new SocketChannel[] {before, after, accepted}) {
                    int fd = ((LeanSocketChannel) channel).fdVal();
                    assertEquals(CLASS, Sockets.getIntOption(fd, Sockets.IPPROTO_IP, Sockets.IP_TOS), channel::toString);
                    assertEquals(CLASS, channel.getOption(StandardSocketOptions.IP_TOS));
                }
                assertEquals(0, Sockets.getIntOption(((LeanSocketChannel) second).fdVal(), Sockets.IPPROTO_IP,
                        Sockets.IP_TOS), "a socket whose class was not set keeps none");
            }
        }
    }
}
