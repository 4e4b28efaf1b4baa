/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.internal.lean;

import io.github.nativeselector.internal.BuiltInProvider;
import io.github.nativeselector.internal.NativeLibrary;
import java.io.IOException;
import java.net.ProtocolFamily;
import java.net.StandardProtocolFamily;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.spi.SelectorProvider;
import java.util.Optional;

/**
 * Opens lean socket channels: TCP channels on descriptors of their own, made with the system calls
 * of {@link Sockets} instead of the JDK's {@code sun.nio.ch}, and behaving as the JDK's channels
 * do on Linux. They work on Linux with the native library loaded ({@link #unavailableBecause()}).
 */
public final class LeanChannels {

    /** Null until asked of the JDK; see {@link #inet6Available}. */
    private static volatile Boolean inet6Available;

    private LeanChannels() {
    }

    /**
     * A new socket channel of {@code family} (INET or INET6; null for the JDK's default: IPv6,
     * dual-stack, where IPv6 works and {@code java.net.preferIPv4Stack} is not true, else IPv4)
     * whose {@code provider()} is {@code provider}.
     *
     * @throws UnsupportedOperationException for another family, or INET6 where IPv6 is not available
     * @throws IOException if lean channels cannot work here, or the socket cannot be made
     */
    public static SocketChannel openSocketChannel(SelectorProvider provider, ProtocolFamily family) throws IOException {
        return new LeanSocketChannel(provider, inet6(family));
    }

    /** As {@link #openSocketChannel}, for a listening socket. */
    public static ServerSocketChannel openServerSocketChannel(SelectorProvider provider, ProtocolFamily family)
            throws IOException {
        return new LeanServerSocketChannel(provider, inet6(family));
    }

    /** Why lean channels cannot work here, if they cannot: they need Linux and the native library. */
    public static Optional<String> unavailableBecause() {
        if (!NativeLibrary.platform().startsWith("linux-")) {
            return Optional.of("lean channels need Linux");
        }
        try {
            NativeLibrary.ensureLoaded();
            return Optional.empty();
        } catch (IOException e) {
            return Optional.of(e.getMessage());
        }
    }

    /** Whether a channel of {@code family} has an IPv6 socket; checks that lean channels can work. */
    private static boolean inet6(ProtocolFamily family) throws IOException {
        if (family != null && family != StandardProtocolFamily.INET && family != StandardProtocolFamily.INET6) {
            throw new UnsupportedOperationException("Protocol family not supported");
        }
        Optional<String> unavailable = unavailableBecause();
        if (unavailable.isPresent()) {
            throw new IOException(unavailable.get());
        }
        boolean inet6 = inet6Available();
        if (family == StandardProtocolFamily.INET6 && !inet6) {
            throw new UnsupportedOperationException("IPv6 not available");
        }
        return family == null ? inet6 : family == StandardProtocolFamily.INET6;
    }

    /**
     * Whether IPv6 sockets can be used: as the running JDK decides it, whose rules differ between
     * releases ({@code java.net.preferIPv4Stack}, an interface with an IPv6 address, and on JDK 17
     * no IPv4 socket as standard input), so its own provider is asked for an INET6 socket, once.
     */
    private static boolean inet6Available() throws IOException {
        Boolean known = inet6Available;
        if (known == null) {
            try {
                BuiltInProvider.get().openSocketChannel(StandardProtocolFamily.INET6).close();
                known = true;
            } catch (UnsupportedOperationException e) {
                known = false;
            }
            inet6Available = known;
        }
        return known;
    }
}
