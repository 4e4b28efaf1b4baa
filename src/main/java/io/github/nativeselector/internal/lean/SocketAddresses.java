/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.internal.lean;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnknownHostException;
import java.nio.channels.UnresolvedAddressException;
import java.nio.channels.UnsupportedAddressTypeException;
import java.util.Arrays;
import java.util.Objects;

/**
 * {@link InetSocketAddress} on one side, what {@link Sockets} takes and gives on the other: an
 * address of 4 or 16 bytes, a port and an IPv6 scope id. Checks addresses as the JDK's
 * {@code sun.nio.ch.Net} does, so the same arguments fail with the same exceptions.
 */
final class SocketAddresses {

    /** Sockets.localAddress/remoteAddress: the family in bits 16 to 31 of what they return. */
    private static final int FAMILY_SHIFT = 16;
    private static final int SCOPE_SHIFT = 32;
    private static final int INET4 = 4;
    private static final int INET6 = 6;

    private SocketAddresses() {
    }

    /**
     * {@code address} as an {@link InetSocketAddress} a socket of this family can use: null is
     * refused with NullPointerException, another kind of address with
     * UnsupportedAddressTypeException, an unresolved one with UnresolvedAddressException, and an
     * IPv6 address on an IPv4 socket with UnsupportedAddressTypeException.
     */
    static InetSocketAddress check(SocketAddress address, boolean inet6Socket) {
        Objects.requireNonNull(address);
        if (!(address instanceof InetSocketAddress isa)) {
            throw new UnsupportedAddressTypeException();
        }
        if (isa.isUnresolved()) {
            throw new UnresolvedAddressException();
        }
        InetAddress host = isa.getAddress();
        if (!(host instanceof Inet4Address || host instanceof Inet6Address)) {
            throw new IllegalArgumentException("Invalid address type: " + host.getClass().getName());
        }
        if (!inet6Socket && !(host instanceof Inet4Address)) {
            throw new UnsupportedAddressTypeException();
        }
        return isa;
    }

    /** As {@link #check}, with the wildcard address taken for the loopback one, as connect takes it. */
    static InetSocketAddress checkRemote(SocketAddress address, boolean inet6Socket) {
        InetSocketAddress isa = check(address, inet6Socket);
        InetAddress host = isa.getAddress();
        if (!host.isAnyLocalAddress()) {
            return isa;
        }
        return new InetSocketAddress(loopback(host instanceof Inet4Address), isa.getPort());
    }

    /** What bind(null) binds: the wildcard address of the socket's family, any port. */
    static InetSocketAddress wildcard(boolean inet6Socket) {
        return new InetSocketAddress(byAddress(new byte[inet6Socket ? 16 : 4]), 0);
    }

    static void bind(int fd, boolean inet6Socket, InetSocketAddress address) throws IOException {
        InetAddress host = address.getAddress();
        Sockets.bind(fd, inet6Socket, host.getAddress(), address.getPort(), scopeId(host));
    }

    /** Sockets.connect's outcome: 1 when connected at once, or UNAVAILABLE / INTERRUPTED while pending. */
    static int connect(int fd, boolean inet6Socket, InetSocketAddress address) throws IOException {
        InetAddress host = address.getAddress();
        return Sockets.connect(fd, inet6Socket, host.getAddress(), address.getPort(), scopeId(host));
    }

    /** The address the kernel gives the socket (getsockname). */
    static InetSocketAddress local(int fd) throws IOException {
        byte[] bytes = new byte[16];
        return decode(Sockets.localAddress(fd, bytes), bytes);
    }

    /** The address of the socket's peer (getpeername). */
    static InetSocketAddress remote(int fd) throws IOException {
        byte[] bytes = new byte[16];
        return decode(Sockets.remoteAddress(fd, bytes), bytes);
    }

    private static InetSocketAddress decode(long packed, byte[] bytes) {
        int port = (int) (packed & 0xffff);
        int family = (int) ((packed >>> FAMILY_SHIFT) & 0xffff);
        int scopeId = (int) (packed >>> SCOPE_SHIFT);
        InetAddress host;
        if (family == INET4) {
            host = byAddress(Arrays.copyOf(bytes, 4));
        } else if (family == INET6 && scopeId != 0) {
            try {
                host = Inet6Address.getByAddress(null, bytes, scopeId);
            } catch (UnknownHostException e) {
                throw new IllegalStateException("16 bytes are an IPv6 address", e);
            }
        } else if (family == INET6) {
            // Without a scope id: one set to 0 would print as "%0", which the JDK never shows.
            host = byAddress(bytes);
        } else {
            throw new IllegalStateException("address family " + family + " from the kernel");
        }
        return new InetSocketAddress(host, port);
    }

    private static int scopeId(InetAddress host) {
        return host instanceof Inet6Address inet6 ? inet6.getScopeId() : 0;
    }

    private static InetAddress loopback(boolean inet4) {
        if (inet4) {
            return byAddress(new byte[] {127, 0, 0, 1});
        }
        byte[] inet6 = new byte[16];
        inet6[15] = 1;
        return byAddress(inet6);
    }

    private static InetAddress byAddress(byte[] bytes) {
        try {
            return InetAddress.getByAddress(bytes);
        } catch (UnknownHostException e) {
            throw new IllegalStateException("4 or 16 bytes are an address", e);
        }
    }
}
