/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.lean;

import io.github.nativeselector.NativeSelectorProvider;
import io.github.nativeselector.internal.BuiltInProvider;
import io.github.nativeselector.internal.lean.LeanChannels;
import java.io.IOException;
import java.net.ProtocolFamily;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.spi.SelectorProvider;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;

/**
 * The socket channels every scenario runs on: the JDK's built-in ones, which are the reference (a
 * test that fails on them is a wrong test), and this library's lean ones. Each is watched by a
 * selector that takes it: the JDK's own selector for the JDK's channels, a native one for lean
 * channels.
 */
enum Impl {
    JDK,
    LEAN;

    static final String ALL = "io.github.nativeselector.lean.Impl#all";
    static final String WITH_FAMILIES = "io.github.nativeselector.lean.Impl#withFamilies";

    static Stream<Impl> all() {
        return Stream.of(values());
    }

    /** Every implementation with every family, for the tests whose addresses depend on the family. */
    static Stream<Arguments> withFamilies() {
        return all().flatMap(impl -> Stream.of(Family.values()).map(family -> Arguments.of(impl, family)));
    }

    /** The provider this implementation's channels report. */
    SelectorProvider provider() throws IOException {
        return this == JDK ? BuiltInProvider.get() : NativeSelectorProvider.provider();
    }

    SocketChannel openSocket() throws IOException {
        return openSocket(Family.INET);
    }

    SocketChannel openSocket(Family family) throws IOException {
        ProtocolFamily pf = family.protocolFamily();
        if (this == JDK) {
            SelectorProvider jdk = BuiltInProvider.get();
            return pf == null ? jdk.openSocketChannel() : jdk.openSocketChannel(pf);
        }
        return LeanChannels.openSocketChannel(NativeSelectorProvider.provider(), pf);
    }

    ServerSocketChannel openServer() throws IOException {
        return openServer(Family.INET);
    }

    ServerSocketChannel openServer(Family family) throws IOException {
        ProtocolFamily pf = family.protocolFamily();
        if (this == JDK) {
            SelectorProvider jdk = BuiltInProvider.get();
            return pf == null ? jdk.openServerSocketChannel() : jdk.openServerSocketChannel(pf);
        }
        return LeanChannels.openServerSocketChannel(NativeSelectorProvider.provider(), pf);
    }

    /** A listening server of this implementation on the family's loopback address, any port. */
    ServerSocketChannel listen(Family family) throws IOException {
        ServerSocketChannel server = openServer(family);
        try {
            server.bind(family.loopback(0), 1024);
            return server;
        } catch (IOException | RuntimeException e) {
            server.close();
            throw e;
        }
    }

    /** A selector this implementation's channels can be registered with. */
    Selector openSelector() throws IOException {
        return this == JDK ? BuiltInProvider.get().openSelector() : NativeSelectorProvider.provider().openSelector();
    }
}
