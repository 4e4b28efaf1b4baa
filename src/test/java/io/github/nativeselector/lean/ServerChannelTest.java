/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.lean;

import static java.nio.channels.SelectionKey.OP_ACCEPT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.AlreadyBoundException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.NotYetBoundException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.UnresolvedAddressException;
import java.nio.channels.UnsupportedAddressTypeException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** A server socket channel's states (unbound, bound, closed), its binds and its accepts. */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ServerChannelTest {

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void unbound(Impl impl) throws Exception {
        try (ServerSocketChannel server = impl.openServer()) {
            assertSame(impl.provider(), server.provider());
            assertTrue(server.isOpen());
            assertTrue(server.isBlocking());
            assertEquals(OP_ACCEPT, server.validOps());
            assertNull(server.getLocalAddress());
            assertThrows(NotYetBoundException.class, server::accept);
            server.configureBlocking(false);
            assertThrows(NotYetBoundException.class, server::accept);
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void bound(Impl impl) throws Exception {
        try (ServerSocketChannel server = impl.openServer()) {
            InetSocketAddress loopback = Family.INET.loopback(0);
            assertSame(server, server.bind(loopback));
            InetSocketAddress local = (InetSocketAddress) server.getLocalAddress();
            assertEquals(loopback.getAddress(), local.getAddress());
            assertTrue(local.getPort() > 0, "an ephemeral port: " + local);
            assertThrows(AlreadyBoundException.class, () -> server.bind(null));
            assertThrows(AlreadyBoundException.class, () -> server.bind(loopback, 5));
            assertEquals(local, server.getLocalAddress(), "a refused bind changes nothing");
            server.configureBlocking(false);
            assertNull(server.accept(), "a non-blocking accept with no connection waiting");
            assertNull(server.accept(), "and again");
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void badBinds(Impl impl) throws Exception {
        try (ServerSocketChannel taken = impl.listen(Family.INET); ServerSocketChannel server = impl.openServer()) {
            SocketAddress inUse = taken.getLocalAddress();
            BindException e = assertThrows(BindException.class, () -> server.bind(inUse));
            assertEquals("Address already in use", e.getMessage());
            assertThrows(UnresolvedAddressException.class,
                    () -> server.bind(InetSocketAddress.createUnresolved("localhost", 0)));
            assertThrows(UnsupportedAddressTypeException.class, () -> server.bind(new SocketAddress() {
            }));
            assertThrows(UnsupportedAddressTypeException.class, () -> server.bind(Family.INET6.loopback(0)),
                    "an IPv4 server cannot bind an IPv6 address");
            assertTrue(server.isOpen(), "a failed bind does not close the channel");
            assertNull(server.getLocalAddress(), "nor bind it");
            server.bind(Family.INET.loopback(0));
            assertNotNull(server.getLocalAddress(), "a good bind after bad ones");
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void closed(Impl impl) throws Exception {
        ServerSocketChannel server = impl.listen(Family.INET);
        ServerSocketChannel twin = Impl.JDK.listen(Family.INET);
        server.close();
        twin.close();
        assertFalse(server.isOpen());
        assertThrows(ClosedChannelException.class, server::getLocalAddress);
        assertThrows(ClosedChannelException.class, () -> server.bind(null));
        assertThrows(ClosedChannelException.class, () -> server.getOption(StandardSocketOptions.SO_RCVBUF));
        assertThrows(ClosedChannelException.class, () -> server.configureBlocking(false));
        assertThrows(ClosedChannelException.class, server::accept);
        // Java 17 throws AsynchronousCloseException, a ClosedChannelException, from a blocking accept
        Outcome.assertJdkOrOtherRelease(Outcome.of(twin::accept), ConnectStateTest.CLOSED, Outcome.of(server::accept),
                "blocking accept");
        server.close();
    }

    @ParameterizedTest
    @MethodSource(Impl.WITH_FAMILIES)
    void acceptedChannels(Impl impl, Family family) throws Exception {
        try (ServerSocketChannel server = impl.listen(family); SocketChannel client = impl.openSocket(family)) {
            client.connect(server.getLocalAddress());
            try (SocketChannel accepted = server.accept()) {
                assertSame(impl.provider(), accepted.provider());
                assertSame(client.getClass(), accepted.getClass(), "accepted channels are of the server's kind");
                assertTrue(accepted.isOpen());
                assertTrue(accepted.isBlocking(), "accepted channels start in blocking mode");
                assertTrue(accepted.isConnected());
                assertFalse(accepted.isConnectionPending());
                assertTrue(accepted.finishConnect());
                assertEquals(server.getLocalAddress(), accepted.getLocalAddress());
                assertEquals(client.getLocalAddress(), accepted.getRemoteAddress());
                assertEquals(client.getRemoteAddress(), accepted.getLocalAddress());
                assertEquals(1, client.write(ByteBuffer.wrap(new byte[] {42})));
                ByteBuffer one = ByteBuffer.allocate(1);
                assertEquals(1, accepted.read(one));
                assertEquals(42, one.get(0));
            }
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void backlogOfConnectionsAcceptedInOrder(Impl impl) throws Exception {
        List<SocketChannel> clients = new ArrayList<>();
        try (ServerSocketChannel server = impl.openServer()) {
            server.bind(Family.INET.loopback(0), 0); // 0: the implementation's default backlog
            for (int i = 0; i < 20; i++) {
                SocketChannel client = impl.openSocket();
                clients.add(client);
                client.connect(server.getLocalAddress());
            }
            for (SocketChannel client : clients) {
                try (SocketChannel accepted = server.accept()) {
                    assertEquals(client.getLocalAddress(), accepted.getRemoteAddress());
                }
            }
            server.configureBlocking(false);
            assertNull(server.accept(), "all accepted");
        } finally {
            for (SocketChannel client : clients) {
                client.close();
            }
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void toStringOfServerChannel(Impl impl) throws Exception {
        ServerSocketChannel server = impl.openServer();
        ServerSocketChannel twin = Impl.JDK.openServer();
        assertEquals(state(twin), state(server), "unbound");
        server.bind(Family.INET.loopback(0));
        twin.bind(Family.INET.loopback(0));
        // Java 17 shows the address; Java 25 shows none ("[]")
        Outcome.assertJdkOrOtherRelease(state(twin).replace(port(twin), "PORT"), "[/127.0.0.1PORT]",
                state(server).replace(port(server), "PORT"), "bound");
        server.close();
        twin.close();
        assertEquals(state(twin), state(server), "closed");
    }

    /** A server channel's toString without the class name, which is the implementation's own. */
    private static String state(ServerSocketChannel server) {
        String s = server.toString();
        return s.substring(s.indexOf('['));
    }

    private static String port(ServerSocketChannel server) throws Exception {
        return ":" + ((InetSocketAddress) server.getLocalAddress()).getPort();
    }
}
