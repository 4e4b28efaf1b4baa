/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.lean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.BindException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.AlreadyBoundException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.UnsupportedAddressTypeException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Local and remote addresses of socket and server channels of each family: before and after bind,
 * connect, shutdown and close, with IPv4 on dual-stack channels reported as IPv4.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class AddressTest {

    @ParameterizedTest
    @MethodSource(Impl.WITH_FAMILIES)
    void unbound(Impl impl, Family family) throws Exception {
        try (SocketChannel ch = impl.openSocket(family); ServerSocketChannel server = impl.openServer(family)) {
            assertNull(ch.getLocalAddress());
            assertNull(ch.getRemoteAddress());
            assertNull(server.getLocalAddress());
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.WITH_FAMILIES)
    void boundToTheWildcardAddress(Impl impl, Family family) throws Exception {
        for (InetSocketAddress any : new InetSocketAddress[] {null, new InetSocketAddress(0)}) {
            try (SocketChannel ch = impl.openSocket(family)) {
                assertEquals(ch, ch.bind(any));
                InetSocketAddress local = (InetSocketAddress) ch.getLocalAddress();
                assertTrue(local.getAddress().isAnyLocalAddress(), "bind(" + any + "): " + local);
                assertInstanceOf(family.wildcardClass(), local.getAddress(),
                        "bind(" + any + ") binds the family's own wildcard: " + local);
                assertTrue(local.getPort() > 0, "an ephemeral port: " + local);
                assertNull(ch.getRemoteAddress());
                assertThrows(AlreadyBoundException.class, () -> ch.bind(null));
            }
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.WITH_FAMILIES)
    void boundToLoopback(Impl impl, Family family) throws Exception {
        try (SocketChannel ch = impl.openSocket(family)) {
            ch.bind(family.loopback(0));
            InetSocketAddress local = (InetSocketAddress) ch.getLocalAddress();
            assertEquals(family.loopback(), local.getAddress());
            assertInstanceOf(family.addressClass(), local.getAddress());
            assertEquals("/" + toUriString(family.loopback()) + ":" + local.getPort(), local.toString());
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.WITH_FAMILIES)
    void bindToAPortInUse(Impl impl, Family family) throws Exception {
        try (ServerSocketChannel taken = impl.listen(family); SocketChannel ch = impl.openSocket(family)) {
            BindException e = assertThrows(BindException.class, () -> ch.bind(taken.getLocalAddress()));
            assertEquals("Address already in use", e.getMessage());
            assertNull(ch.getLocalAddress());
            assertTrue(ch.isOpen());
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.WITH_FAMILIES)
    void connected(Impl impl, Family family) throws Exception {
        try (Pair p = Pair.open(impl, family)) {
            InetSocketAddress server = (InetSocketAddress) p.server.getLocalAddress();
            InetSocketAddress clientLocal = (InetSocketAddress) p.client.getLocalAddress();
            assertEquals(family.loopback(), server.getAddress());
            assertInstanceOf(family.addressClass(), server.getAddress());
            assertEquals(family.loopback(), clientLocal.getAddress());
            assertInstanceOf(family.addressClass(), clientLocal.getAddress(), "IPv4 on a dual-stack socket is IPv4");
            assertEquals(server, p.client.getRemoteAddress());
            assertEquals(server, p.accepted.getLocalAddress());
            assertEquals(clientLocal, p.accepted.getRemoteAddress());
            InetSocketAddress acceptedRemote = (InetSocketAddress) p.accepted.getRemoteAddress();
            assertInstanceOf(family.addressClass(), acceptedRemote.getAddress());
            assertEquals("/" + toUriString(family.loopback()) + ":" + clientLocal.getPort(), acceptedRemote.toString());
            assertEquals("/" + toUriString(family.loopback()) + ":" + server.getPort(),
                    p.client.getRemoteAddress().toString());
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.WITH_FAMILIES)
    void theRemoteAddressIsTheOneConnectedTo(Impl impl, Family family) throws Exception {
        try (ServerSocketChannel server = impl.listen(family); SocketChannel ch = impl.openSocket(family)) {
            int port = ((InetSocketAddress) server.getLocalAddress()).getPort();
            InetSocketAddress named = new InetSocketAddress(
                    InetAddress.getByAddress("localhost", family.loopback().getAddress()), port);
            ch.connect(named);
            InetSocketAddress remote = (InetSocketAddress) ch.getRemoteAddress();
            assertEquals(named, remote);
            assertEquals("localhost", remote.getHostString(), "the host name connected to is kept");
            assertEquals(named.toString(), remote.toString());
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.WITH_FAMILIES)
    void afterShutdown(Impl impl, Family family) throws Exception {
        try (Pair p = Pair.open(impl, family)) {
            Object local = p.client.getLocalAddress();
            Object remote = p.client.getRemoteAddress();
            p.client.shutdownInput();
            p.client.shutdownOutput();
            assertEquals(local, p.client.getLocalAddress());
            assertEquals(remote, p.client.getRemoteAddress());
        }
    }

    /**
     * An accepted channel knows its peer from the accept, so the address outlives the connection:
     * after a reset, and after the connection ended both ways, the channel and its adaptor still
     * report it, as the JDK's do.
     */
    @ParameterizedTest
    @MethodSource(Impl.WITH_FAMILIES)
    void anAcceptedChannelKnowsItsPeerOnceTheConnectionIsGone(Impl impl, Family family) throws Exception {
        try (Pair p = Pair.open(impl, family)) {
            SocketAddress peer = p.client.getLocalAddress();
            p.client.setOption(StandardSocketOptions.SO_LINGER, 0);
            p.client.close(); // a reset
            assertThrows(SocketException.class, () -> p.accepted.read(ByteBuffer.allocate(1)));
            assertEquals(peer, p.accepted.getRemoteAddress());
            assertEquals(peer, p.accepted.socket().getRemoteSocketAddress());
            assertTrue(p.accepted.toString().contains("remote=" + peer), p.accepted.toString());
        }
        try (Pair p = Pair.open(impl, family)) {
            SocketAddress peer = p.client.getLocalAddress();
            p.accepted.shutdownOutput();
            p.client.close(); // the end both ways: the accepted socket is in TIME_WAIT
            assertEquals(-1, p.accepted.read(ByteBuffer.allocate(1)));
            assertEquals(peer, p.accepted.getRemoteAddress());
            p.accepted.close();
            assertEquals(((InetSocketAddress) peer).getPort(), p.accepted.socket().getPort(),
                    "an adaptor first made after the close knows the peer too");
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.WITH_FAMILIES)
    void afterClose(Impl impl, Family family) throws Exception {
        try (Pair p = Pair.open(impl, family)) {
            p.client.getLocalAddress();
            p.client.close();
            assertThrows(ClosedChannelException.class, p.client::getLocalAddress);
            assertThrows(ClosedChannelException.class, p.client::getRemoteAddress);
            p.accepted.close(); // never asked for its addresses before
            assertThrows(ClosedChannelException.class, p.accepted::getLocalAddress);
            assertThrows(ClosedChannelException.class, p.accepted::getRemoteAddress);
            p.server.close();
            assertThrows(ClosedChannelException.class, p.server::getLocalAddress);
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void ipv4ChannelsRefuseIpv6Addresses(Impl impl) throws Exception {
        try (SocketChannel ch = impl.openSocket(Family.INET);
                ServerSocketChannel server = impl.openServer(Family.INET)) {
            assertThrows(UnsupportedAddressTypeException.class, () -> ch.bind(Family.INET6.loopback(0)));
            assertThrows(UnsupportedAddressTypeException.class, () -> server.bind(Family.INET6.loopback(0)));
            assertThrows(UnsupportedAddressTypeException.class, () -> ch.connect(Family.INET6.loopback(80)));
            assertNull(ch.getLocalAddress());
            assertNull(server.getLocalAddress());
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void ipv6ChannelsTakeIpv4Addresses(Impl impl) throws Exception {
        InetSocketAddress mapped = new InetSocketAddress(InetAddress.getByAddress(
                new byte[] {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, (byte) 0xff, (byte) 0xff, 127, 0, 0, 1}), 0);
        assertInstanceOf(Inet4Address.class, mapped.getAddress(), "Java itself maps ::ffff:127.0.0.1 to IPv4");
        try (ServerSocketChannel server = impl.openServer(Family.INET6);
                SocketChannel ch = impl.openSocket(Family.INET6)) {
            server.bind(Family.INET.loopback(0));
            InetSocketAddress local = (InetSocketAddress) server.getLocalAddress();
            assertEquals(Family.INET.loopback(), local.getAddress());
            assertInstanceOf(Inet4Address.class, local.getAddress());
            ch.bind(Family.INET.loopback(0));
            assertInstanceOf(Inet4Address.class, ((InetSocketAddress) ch.getLocalAddress()).getAddress());
            ch.connect(local);
            assertEquals(local, ch.getRemoteAddress());
            try (SocketChannel accepted = server.accept()) {
                assertEquals(ch.getLocalAddress(), accepted.getRemoteAddress());
                assertInstanceOf(Inet4Address.class, ((InetSocketAddress) accepted.getRemoteAddress()).getAddress());
            }
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.WITH_FAMILIES)
    void serverAddresses(Impl impl, Family family) throws Exception {
        try (ServerSocketChannel server = impl.openServer(family)) {
            assertNull(server.getLocalAddress());
            server.bind(family.loopback(0));
            InetSocketAddress local = (InetSocketAddress) server.getLocalAddress();
            assertEquals(family.loopback(), local.getAddress());
            assertInstanceOf(family.addressClass(), local.getAddress());
            assertTrue(local.getPort() > 0);
        }
    }

    /** How InetSocketAddress.toString writes the address: IPv6 literals in brackets. */
    private static String toUriString(InetAddress address) {
        String s = address.getHostAddress();
        return s.contains(":") ? "[" + s + "]" : s;
    }
}
