/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.install;

import io.github.nativeselector.NativeSelectorProvider;
import java.nio.ByteBuffer;
import java.nio.channels.Channel;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.channels.spi.SelectorProvider;
import java.nio.charset.StandardCharsets;

/**
 * Child-JVM main, started with a connected socket as its standard input: asks a provider for the
 * inherited channel ({@code system}: the system-wide provider, as {@link System#inheritedChannel()}
 * does; {@code explicit}: {@link NativeSelectorProvider#provider()}), prints its class, whether it
 * reports that provider, and what its provider's {@code openSelector()} gives, then writes
 * {@code hello} on it.
 */
public final class InheritedChannelProbe {

    private InheritedChannelProbe() {
    }

    public static void main(String[] args) throws Exception {
        SelectorProvider asked = args[0].equals("system") ? SelectorProvider.provider() : NativeSelectorProvider.provider();
        Channel inherited = asked.inheritedChannel();
        System.out.println("inherited=" + (inherited == null ? "none" : inherited.getClass().getName()));
        SocketChannel socket = (SocketChannel) inherited;
        System.out.println("reports=" + (socket.provider() == asked ? "the provider asked" : socket.provider()));
        try (Selector selector = socket.provider().openSelector()) {
            System.out.println("selector=" + selector.getClass().getName());
        }
        socket.write(ByteBuffer.wrap("hello".getBytes(StandardCharsets.US_ASCII)));
        System.out.flush();
    }
}
