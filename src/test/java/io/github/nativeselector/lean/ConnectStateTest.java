/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.lean;

import static java.nio.channels.SelectionKey.OP_CONNECT;
import static java.nio.channels.SelectionKey.OP_READ;
import static java.nio.channels.SelectionKey.OP_WRITE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.github.nativeselector.support.ContractChannels;
import io.github.nativeselector.support.ContractChannels.DeadPort;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.AlreadyBoundException;
import java.nio.channels.AlreadyConnectedException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ConnectionPendingException;
import java.nio.channels.NoConnectionPendingException;
import java.nio.channels.NotYetConnectedException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.channels.UnresolvedAddressException;
import java.nio.channels.UnsupportedAddressTypeException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A socket channel's connection states (unconnected, pending, connected, closed): what each
 * method returns or throws in each, and the moves between them.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ConnectStateTest {

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void unconnected(Impl impl) throws Exception {
        try (SocketChannel ch = impl.openSocket()) {
            assertSame(impl.provider(), ch.provider());
            assertTrue(ch.isOpen());
            assertTrue(ch.isBlocking());
            assertFalse(ch.isRegistered());
            assertFalse(ch.isConnected());
            assertFalse(ch.isConnectionPending());
            assertEquals(OP_READ | OP_WRITE | OP_CONNECT, ch.validOps());
            assertNull(ch.getLocalAddress());
            assertNull(ch.getRemoteAddress());
            assertUnconnectedIo(ch);
            assertThrows(NoConnectionPendingException.class, ch::finishConnect);
            ch.configureBlocking(false);
            assertUnconnectedIo(ch);
            assertThrows(NoConnectionPendingException.class, ch::finishConnect);
            assertTrue(ch.isOpen(), "none of that closes the channel");
        }
    }

    private static void assertUnconnectedIo(SocketChannel ch) {
        assertThrows(NotYetConnectedException.class, () -> ch.read(ByteBuffer.allocate(8)));
        assertThrows(NotYetConnectedException.class, () -> ch.read(ByteBuffer.allocateDirect(8)));
        assertThrows(NotYetConnectedException.class, () -> ch.read(new ByteBuffer[] {ByteBuffer.allocate(8)}));
        assertThrows(NotYetConnectedException.class, () -> ch.write(ContractChannels.bytes(8)));
        assertThrows(NotYetConnectedException.class, () -> ch.write(ByteBuffer.allocateDirect(8)));
        assertThrows(NotYetConnectedException.class, () -> ch.write(new ByteBuffer[] {ContractChannels.bytes(8)}));
        assertThrows(NotYetConnectedException.class, ch::shutdownInput);
        assertThrows(NotYetConnectedException.class, ch::shutdownOutput);
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void connectedInBlockingMode(Impl impl) throws Exception {
        try (var server = impl.listen(Family.INET); SocketChannel ch = impl.openSocket()) {
            SocketAddress remote = server.getLocalAddress();
            assertTrue(ch.connect(remote), "a blocking connect returns connected");
            assertConnected(ch, remote);
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void connectedInNonBlockingMode(Impl impl) throws Exception {
        try (var server = impl.listen(Family.INET); SocketChannel ch = impl.openSocket();
                Selector selector = impl.openSelector()) {
            SocketAddress remote = server.getLocalAddress();
            ch.configureBlocking(false);
            if (!ch.connect(remote)) {
                assertTrue(ch.isConnectionPending());
                SelectionKey key = ch.register(selector, OP_CONNECT);
                assertEquals(1, selector.select(BlockedCall.WAIT_MS), "OP_CONNECT within the wait");
                assertEquals(OP_CONNECT, key.readyOps());
                assertTrue(ch.finishConnect());
                key.cancel();
                selector.selectNow();
            }
            assertConnected(ch, remote);
        }
    }

    private static void assertConnected(SocketChannel ch, SocketAddress remote) throws IOException {
        assertTrue(ch.isConnected());
        assertFalse(ch.isConnectionPending());
        assertTrue(ch.finishConnect(), "finishConnect on a connected channel");
        assertTrue(ch.finishConnect(), "and again");
        assertEquals(remote, ch.getRemoteAddress());
        assertNotNull(ch.getLocalAddress());
        assertThrows(AlreadyConnectedException.class, () -> ch.connect(remote));
        assertThrows(AlreadyBoundException.class, () -> ch.bind(null));
        boolean blocking = ch.isBlocking();
        ch.configureBlocking(!blocking);
        assertThrows(AlreadyConnectedException.class, () -> ch.connect(remote));
        ch.configureBlocking(blocking);
        assertTrue(ch.isConnected(), "failed connects leave the connection alone");
        assertTrue(ch.isOpen());
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void pendingThenFinishedInBlockingMode(Impl impl) throws Exception {
        try (FullBacklog full = FullBacklog.open(Family.INET); SocketChannel ch = impl.openSocket()) {
            ch.configureBlocking(false);
            assertFalse(ch.connect(full.address), "a connect to a full accept queue is pending");
            assertPending(ch, full.address);
            ch.configureBlocking(true);
            full.makeRoom();
            assertTrue(ch.finishConnect(), "a blocking finishConnect waits for the connection");
            assertTrue(ch.isConnected());
            assertFalse(ch.isConnectionPending());
            assertEquals(full.address, ch.getRemoteAddress());
            assertNotNull(ch.getLocalAddress());
        }
    }

    /**
     * A socket bound to the wildcard reports the wildcard while its connect is pending, as it did
     * before the connect, although the kernel has chosen its source address by then; the
     * connection's address once it is made.
     */
    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void aWildcardBoundSocketReportsTheWildcardUntilConnected(Impl impl) throws Exception {
        try (FullBacklog full = FullBacklog.open(Family.INET); SocketChannel ch = impl.openSocket()) {
            ch.bind(new InetSocketAddress(0));
            ch.configureBlocking(false);
            assertFalse(ch.connect(full.address), "a connect to a full accept queue is pending");
            InetSocketAddress pending = (InetSocketAddress) ch.getLocalAddress();
            assertTrue(pending.getAddress().isAnyLocalAddress(), pending::toString);
            ch.configureBlocking(true);
            full.makeRoom();
            assertTrue(ch.finishConnect());
            InetSocketAddress connected = (InetSocketAddress) ch.getLocalAddress();
            assertTrue(connected.getAddress().isLoopbackAddress(), connected::toString);
            assertEquals(pending.getPort(), connected.getPort());
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void pendingThenFinishedInNonBlockingMode(Impl impl) throws Exception {
        try (FullBacklog full = FullBacklog.open(Family.INET); SocketChannel ch = impl.openSocket();
                Selector selector = impl.openSelector()) {
            ch.configureBlocking(false);
            assertFalse(ch.connect(full.address));
            SelectionKey key = ch.register(selector, OP_CONNECT);
            assertEquals(0, selector.select(300), "not connectable while the SYN is dropped");
            assertPending(ch, full.address);
            full.makeRoom();
            assertEquals(1, selector.select(BlockedCall.WAIT_MS), "connectable once the listener has room");
            assertEquals(OP_CONNECT, key.readyOps());
            assertTrue(ch.finishConnect());
            assertTrue(ch.isConnected());
            assertFalse(ch.isConnectionPending());
        }
    }

    private static void assertPending(SocketChannel ch, InetSocketAddress remote) throws IOException {
        assertTrue(ch.isConnectionPending());
        assertFalse(ch.isConnected());
        assertFalse(ch.finishConnect(), "a non-blocking finishConnect of a pending connection");
        assertTrue(ch.isConnectionPending(), "still pending");
        assertThrows(ConnectionPendingException.class, () -> ch.connect(remote));
        assertThrows(ConnectionPendingException.class, () -> ch.bind(null));
        assertThrows(NotYetConnectedException.class, () -> ch.read(ByteBuffer.allocate(8)));
        assertThrows(NotYetConnectedException.class, () -> ch.write(ContractChannels.bytes(8)));
        assertThrows(NotYetConnectedException.class, ch::shutdownInput);
        assertThrows(NotYetConnectedException.class, ch::shutdownOutput);
        assertEquals(remote, ch.getRemoteAddress(), "the remote address is known from the connect on");
        assertNull(ch.getLocalAddress(), "the local address is known once connected");
        assertTrue(ch.isOpen());
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void closedWhilePending(Impl impl) throws Exception {
        try (FullBacklog full = FullBacklog.open(Family.INET)) {
            SocketChannel ch = impl.openSocket();
            ch.configureBlocking(false);
            assertFalse(ch.connect(full.address));
            ch.close();
            assertFalse(ch.isOpen());
            assertFalse(ch.isConnectionPending());
            assertFalse(ch.isConnected());
            assertThrows(ClosedChannelException.class, ch::finishConnect);
            assertThrows(ClosedChannelException.class, () -> ch.connect(full.address));
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void closedAfterConnected(Impl impl) throws Exception {
        try (Pair p = Pair.open(impl); Pair twin = Pair.open(Impl.JDK)) {
            p.client.close();
            twin.client.close();
            assertClosed(impl, p.client, twin.client, p.serverAddress());
            assertEquals(-1, p.accepted.read(ByteBuffer.allocate(1)), "the peer sees the close");
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void closedBeforeConnecting(Impl impl) throws Exception {
        try (var server = impl.listen(Family.INET)) {
            SocketChannel ch = impl.openSocket();
            SocketChannel twin = Impl.JDK.openSocket();
            ch.close();
            twin.close();
            assertClosed(impl, ch, twin, (InetSocketAddress) server.getLocalAddress());
        }
    }

    /**
     * Every operation of a closed channel throws {@link ClosedChannelException}, as the closed JDK
     * channel {@code twin} in the same state does; Java 17 throws its subclass
     * AsynchronousCloseException from a blocking connect or finishConnect, later releases the
     * plain one, and either is right.
     */
    private static void assertClosed(Impl impl, SocketChannel ch, SocketChannel twin, InetSocketAddress remote)
            throws IOException {
        assertFalse(ch.isOpen());
        assertFalse(ch.isConnected());
        assertFalse(ch.isConnectionPending());
        assertFalse(ch.isRegistered());
        ByteBuffer[] buffers = {ByteBuffer.allocate(4), ByteBuffer.allocateDirect(4)};
        assertClosedLike(twin, ch, "connect", c -> c.connect(remote));
        assertClosedLike(twin, ch, "finishConnect", SocketChannel::finishConnect);
        assertClosedLike(twin, ch, "bind", c -> c.bind(null));
        assertClosedLike(twin, ch, "read", c -> c.read(ByteBuffer.allocate(4)));
        assertClosedLike(twin, ch, "scattering read", c -> c.read(buffers));
        assertClosedLike(twin, ch, "write", c -> c.write(ByteBuffer.allocate(4)));
        assertClosedLike(twin, ch, "gathering write", c -> c.write(buffers, 0, 2));
        assertClosedLike(twin, ch, "shutdownInput", SocketChannel::shutdownInput);
        assertClosedLike(twin, ch, "shutdownOutput", SocketChannel::shutdownOutput);
        assertClosedLike(twin, ch, "getLocalAddress", SocketChannel::getLocalAddress);
        assertClosedLike(twin, ch, "getRemoteAddress", SocketChannel::getRemoteAddress);
        assertClosedLike(twin, ch, "getOption", c -> c.getOption(StandardSocketOptions.TCP_NODELAY));
        assertClosedLike(twin, ch, "setOption", c -> c.setOption(StandardSocketOptions.TCP_NODELAY, true));
        assertClosedLike(twin, ch, "configureBlocking", c -> c.configureBlocking(false));
        try (Selector selector = impl.openSelector(); Selector jdkSelector = Impl.JDK.openSelector()) {
            assertEquals(Outcome.of(() -> twin.register(jdkSelector, OP_READ)),
                    Outcome.of(() -> ch.register(selector, OP_READ)), "register");
        }
        ch.close();
        assertFalse(ch.isOpen(), "a second close does nothing");
    }

    @FunctionalInterface
    interface ChannelCall {
        Object call(SocketChannel ch) throws Exception;
    }

    private static void assertClosedLike(SocketChannel twin, SocketChannel ch, String what, ChannelCall call) {
        assertThrows(ClosedChannelException.class, () -> call.call(ch), what);
        Outcome.assertJdkOrOtherRelease(Outcome.of(() -> call.call(twin)), CLOSED, Outcome.of(() -> call.call(ch)),
                what);
    }

    static final String CLOSED = Outcome.thrown(new ClosedChannelException());

    @ParameterizedTest
    @MethodSource(Impl.WITH_FAMILIES)
    void connectRefusedInBlockingMode(Impl impl, Family family) throws Exception {
        try (DeadPort dead = DeadPort.tcp(family.loopback()); SocketChannel ch = impl.openSocket(family)) {
            ConnectException e = assertThrows(ConnectException.class, () -> ch.connect(dead.address));
            assertEquals("Connection refused", e.getMessage());
            assertFalse(ch.isOpen(), "a failed connect closes the channel");
            assertFalse(ch.isConnectionPending());
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.WITH_FAMILIES)
    void connectRefusedInNonBlockingMode(Impl impl, Family family) throws Exception {
        try (DeadPort dead = DeadPort.tcp(family.loopback()); Selector selector = impl.openSelector();
                SocketChannel ch = impl.openSocket(family)) {
            ch.configureBlocking(false);
            ConnectException e = assertThrows(ConnectException.class, () -> {
                if (ch.connect(dead.address)) {
                    fail("connected to a port nobody listens on");
                }
                ch.register(selector, OP_CONNECT);
                assertEquals(1, selector.select(BlockedCall.WAIT_MS), "the refusal is an OP_CONNECT event");
                ch.finishConnect();
            });
            assertEquals("Connection refused", e.getMessage());
            assertFalse(ch.isOpen(), "a failed connect closes the channel");
            assertFalse(ch.isConnectionPending());
            assertFalse(ch.isConnected());
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void badConnectAddresses(Impl impl) throws Exception {
        try (SocketChannel ch = impl.openSocket(Family.INET)) {
            assertThrows(NullPointerException.class, () -> ch.connect(null));
            assertThrows(UnresolvedAddressException.class,
                    () -> ch.connect(InetSocketAddress.createUnresolved("localhost", 80)));
            assertThrows(UnsupportedAddressTypeException.class, () -> ch.connect(new SocketAddress() {
            }));
            assertThrows(UnsupportedAddressTypeException.class, () -> ch.connect(Family.INET6.loopback(80)),
                    "an IPv4 channel cannot reach an IPv6 address");
            assertTrue(ch.isOpen(), "a refused address does not close the channel");
            assertFalse(ch.isConnectionPending());
            assertNull(ch.getLocalAddress(), "nor bind it");
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void toStringInEachState(Impl impl) throws Exception {
        try (SocketChannel ch = impl.openSocket(); SocketChannel twin = Impl.JDK.openSocket()) {
            assertEquals("java.nio.channels.SocketChannel[unconnected]", ch.toString());
            assertEquals(twin.toString(), ch.toString());
        }
        try (FullBacklog full = FullBacklog.open(Family.INET); SocketChannel ch = impl.openSocket();
                SocketChannel twin = Impl.JDK.openSocket()) {
            ch.configureBlocking(false);
            twin.configureBlocking(false);
            assertFalse(ch.connect(full.address));
            assertFalse(twin.connect(full.address));
            assertEquals(twin.toString(), ch.toString(), "connection pending");
        }
        try (Pair p = Pair.open(impl); Pair twin = Pair.open(Impl.JDK)) {
            assertEquals("java.nio.channels.SocketChannel[connected local=" + p.client.getLocalAddress() + " remote="
                    + p.client.getRemoteAddress() + "]", p.client.toString());
            assertEquals(withoutPorts(twin.client), withoutPorts(p.client), "connected");
            assertEquals(withoutPorts(twin.accepted), withoutPorts(p.accepted), "accepted");
            p.client.shutdownInput();
            twin.client.shutdownInput();
            assertEquals(withoutPorts(twin.client), withoutPorts(p.client), "input shut down");
            p.client.shutdownOutput();
            twin.client.shutdownOutput();
            assertEquals(withoutPorts(twin.client), withoutPorts(p.client), "both shut down");
            p.client.close();
            twin.client.close();
            assertEquals(twin.client.toString(), p.client.toString(), "closed");
        }
    }

    private static String withoutPorts(SocketChannel ch) throws IOException {
        String s = ch.toString();
        s = s.replace(":" + ((InetSocketAddress) ch.getLocalAddress()).getPort(), ":LOCALPORT");
        return s.replace(":" + ((InetSocketAddress) ch.getRemoteAddress()).getPort(), ":REMOTEPORT");
    }
}
