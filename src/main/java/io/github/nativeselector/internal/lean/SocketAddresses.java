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
import java.net.NetworkInterface;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.nio.channels.UnresolvedAddressException;
import java.nio.channels.UnsupportedAddressTypeException;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * {@link InetSocketAddress} on one side, what {@link Sockets} takes and gives on the other: an
 * address of 4 or 16 bytes, a port and an IPv6 scope id. Checks addresses as the JDK's
 * {@code sun.nio.ch.Net} does, so the same arguments fail with the same exceptions.
 */
final class SocketAddresses {

    private static final int INET4 = 4;
    private static final int INET6 = 6;

    /** The scope ids found for this host's link-local addresses, as the JDK keeps them: for good. */
    private static final Map<Inet6Address, Integer> LINK_LOCAL_SCOPES = new ConcurrentHashMap<>();

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
        byte[] bytes = new byte[Sockets.ADDRESS_BYTES];
        Sockets.localAddress(fd, bytes);
        return decode(bytes);
    }

    /** An address as {@link Sockets#ADDRESS_BYTES} lays it out. */
    static InetSocketAddress decode(byte[] bytes) {
        int port = (bytes[16] & 0xff) << 8 | bytes[17] & 0xff;
        int family = bytes[18];
        int scopeId = (bytes[20] & 0xff) << 24 | (bytes[21] & 0xff) << 16 | (bytes[22] & 0xff) << 8 | bytes[23] & 0xff;
        InetAddress host;
        if (family == INET4) {
            host = byAddress(Arrays.copyOf(bytes, 4));
        } else if (family == INET6 && scopeId != 0) {
            try {
                host = Inet6Address.getByAddress(null, Arrays.copyOf(bytes, 16), scopeId);
            } catch (UnknownHostException e) {
                throw new IllegalStateException("16 bytes are an IPv6 address", e);
            }
        } else if (family == INET6) {
            // Without a scope id: one set to 0 would print as "%0", which the JDK never shows.
            host = byAddress(Arrays.copyOf(bytes, 16));
        } else {
            throw new IllegalStateException("address family " + family + " from the kernel");
        }
        return new InetSocketAddress(host, port);
    }

    /**
     * The scope id the kernel takes for {@code host}: its own; for a link-local IPv6 address
     * without one, that of the interface holding the address, as the JDK's {@code sun.nio.ch.Net}
     * finds it before it binds or connects (0 when no interface holds it).
     */
    private static int scopeId(InetAddress host) throws SocketException {
        if (!(host instanceof Inet6Address inet6)) {
            return 0;
        }
        if (inet6.getScopeId() != 0 || !inet6.isLinkLocalAddress()) {
            return inet6.getScopeId();
        }
        Integer known = LINK_LOCAL_SCOPES.get(inet6);
        return known != null ? known : findLinkLocalScope(inet6);
    }

    private static int findLinkLocalScope(Inet6Address address) throws SocketException {
        List<Inet6Address> held;
        try {
            // Inet6Address.equals compares the 16 bytes alone, whatever the scope.
            held = NetworkInterface.networkInterfaces()
                    .flatMap(NetworkInterface::inetAddresses)
                    .filter(a -> a instanceof Inet6Address && a.equals(address))
                    .map(a -> (Inet6Address) a)
                    .filter(a -> a.getScopeId() != 0)
                    .toList();
        } catch (SocketException e) {
            // As the JDK: interfaces that cannot be listed leave the address as it was given.
            return 0;
        }
        if (held.size() > 1) {
            throw new SocketException("Duplicate link local addresses: must specify scope-id");
        }
        if (held.isEmpty()) {
            return 0;
        }
        int scopeId = held.get(0).getScopeId();
        LINK_LOCAL_SCOPES.put(address, scopeId);
        return scopeId;
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
