/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.contract;

import static io.github.nativeselector.support.ContractChannels.assertEndOfStream;
import static io.github.nativeselector.support.ContractChannels.bytes;
import static io.github.nativeselector.support.ContractChannels.fillUntilWriteReturnsZero;
import static io.github.nativeselector.support.ContractChannels.readDatagram;
import static io.github.nativeselector.support.ContractChannels.readExactly;
import static io.github.nativeselector.support.ContractChannels.writeFully;
import static io.github.nativeselector.support.ContractSupport.awaitReadyOps;
import static io.github.nativeselector.support.ContractSupport.awaitSelected;
import static io.github.nativeselector.support.ContractSupport.ops;
import static io.github.nativeselector.support.ContractSupport.witnessReady;
import static java.nio.channels.SelectionKey.OP_ACCEPT;
import static java.nio.channels.SelectionKey.OP_CONNECT;
import static java.nio.channels.SelectionKey.OP_READ;
import static java.nio.channels.SelectionKey.OP_WRITE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.nativeselector.support.ContractChannels;
import io.github.nativeselector.support.ContractChannels.DatagramPair;
import io.github.nativeselector.support.ContractChannels.DeadPort;
import io.github.nativeselector.support.ContractChannels.Listener;
import io.github.nativeselector.support.ContractChannels.PipePair;
import io.github.nativeselector.support.ContractChannels.SocketKind;
import io.github.nativeselector.support.ContractChannels.SocketPair;
import io.github.nativeselector.support.ContractSupport;
import io.github.nativeselector.support.TestSelectors;
import java.io.IOException;
import java.net.ConnectException;
import java.net.PortUnreachableException;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.WritableByteChannel;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Level-triggered readiness and the ready ops reported for each kind of channel, as the JDK's
 * own selector reports them: data keeps a key ready on every select until it is consumed,
 * ready ops are the translated poll events masked by the interest set, an error or hang-up
 * reports the whole interest set, and an interest set of 0 is never selected.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ReadyOpsTest {

    private static final String ALL = ContractSupport.ALL;

    /** Asserts {@code n} more non-blocking selects each select {@code key} with {@code ready}. */
    private static void assertSelectedOnEverySelect(Selector sel, SelectionKey key, int ready, int n)
            throws IOException {
        for (int i = 0; i < n; i++) {
            sel.selectedKeys().clear();
            assertEquals(1, sel.selectNow(), "selectNow #" + i + " while the channel is still ready");
            assertTrue(sel.selectedKeys().contains(key), "key selected again by selectNow #" + i);
            assertEquals(ops(ready), ops(key.readyOps()), "ready ops on selectNow #" + i);
        }
    }

    private static void assertNotSelected(Selector sel, String why) throws IOException {
        sel.selectedKeys().clear();
        assertEquals(0, sel.selectNow(), why);
        assertTrue(sel.selectedKeys().isEmpty(), why + ": selected-key set");
    }

    /**
     * With only keys whose interest set is 0 (or not ready), a timed select neither selects
     * anything nor returns early: an fd left in the kernel set with no events still reports
     * hang-up and error, which would end the wait at once.
     */
    private static void assertBlocksWithNothingSelected(Selector sel) throws IOException {
        sel.selectedKeys().clear();
        ContractSupport.assertSelectBlocks(sel, 300, 250);
        assertTrue(sel.selectedKeys().isEmpty(), "nothing selected");
    }

    /**
     * Writes to {@code ch} until it is full and the selector stops reporting it writable;
     * returns the bytes written.
     */
    private static long fillUntilNotWritable(Selector sel, WritableByteChannel ch) throws IOException {
        long total = 0;
        for (int attempt = 0; attempt < 50; attempt++) {
            total += fillUntilWriteReturnsZero(ch);
            sel.selectedKeys().clear();
            if (sel.selectNow() == 0) {
                return total;
            }
            ContractSupport.sleepQuietly(10);
        }
        throw new AssertionError("channel still reported writable after it stopped accepting writes");
    }

    // ------------------------------------------------------------------ stream sockets, INET and UNIX

    @ParameterizedTest
    @MethodSource(ALL)
    void inetSocketReadableIsLevelTriggered(TestSelectors s) throws Exception {
        socketReadableIsLevelTriggered(s, SocketKind.INET);
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void unixSocketReadableIsLevelTriggered(TestSelectors s) throws Exception {
        socketReadableIsLevelTriggered(s, SocketKind.UNIX);
    }

    private void socketReadableIsLevelTriggered(TestSelectors s, SocketKind kind) throws Exception {
        try (Selector sel = s.open(); SocketPair p = SocketPair.open(kind)) {
            SelectionKey key = p.local.register(sel, OP_READ);
            assertNotSelected(sel, "nothing to read yet");
            writeFully(p.peer, 100);
            assertEquals(1, awaitSelected(sel, key));
            assertEquals(ops(OP_READ), ops(key.readyOps()));
            assertTrue(key.isReadable());
            assertFalse(key.isWritable());
            assertSelectedOnEverySelect(sel, key, OP_READ, 3);
            readExactly(p.local, 60);
            assertSelectedOnEverySelect(sel, key, OP_READ, 1);
            readExactly(p.local, 40);
            assertNotSelected(sel, "all data read");
            assertEquals(0, sel.select(100), "all data read, select(100)");
        }
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void inetSocketWritableIsLevelTriggered(TestSelectors s) throws Exception {
        socketWritableIsLevelTriggered(s, SocketKind.INET);
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void unixSocketWritableIsLevelTriggered(TestSelectors s) throws Exception {
        socketWritableIsLevelTriggered(s, SocketKind.UNIX);
    }

    private void socketWritableIsLevelTriggered(TestSelectors s, SocketKind kind) throws Exception {
        try (Selector sel = s.open(); SocketPair p = SocketPair.open(kind)) {
            SelectionKey key = p.local.register(sel, OP_WRITE);
            assertEquals(1, awaitSelected(sel, key));
            assertEquals(ops(OP_WRITE), ops(key.readyOps()));
            assertTrue(key.isWritable());
            assertSelectedOnEverySelect(sel, key, OP_WRITE, 3);
            long written = fillUntilNotWritable(sel, p.local);
            assertNotSelected(sel, "send buffer full");
            readExactly(p.peer, written);
            sel.selectedKeys().clear();
            awaitSelected(sel, key);
            assertEquals(ops(OP_WRITE), ops(key.readyOps()), "writable again once the peer read everything");
        }
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void inetSocketReadyOpsAreMaskedByInterest(TestSelectors s) throws Exception {
        socketReadyOpsAreMaskedByInterest(s, SocketKind.INET);
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void unixSocketReadyOpsAreMaskedByInterest(TestSelectors s) throws Exception {
        socketReadyOpsAreMaskedByInterest(s, SocketKind.UNIX);
    }

    /** Readable and writable at once: each interest set sees only its own bits. */
    private void socketReadyOpsAreMaskedByInterest(TestSelectors s, SocketKind kind) throws Exception {
        try (Selector sel = s.open(); SocketPair p = SocketPair.open(kind)) {
            writeFully(p.peer, 10);
            SelectionKey key = p.local.register(sel, OP_READ | OP_WRITE | OP_CONNECT);
            awaitReadyOps(sel, key, OP_READ | OP_WRITE);
            assertFalse(key.isConnectable(), "connected socket: no OP_CONNECT");

            key.interestOps(OP_READ);
            sel.selectedKeys().clear();
            assertEquals(1, sel.selectNow());
            assertEquals(ops(OP_READ), ops(key.readyOps()), "interest READ only");

            key.interestOps(OP_WRITE);
            sel.selectedKeys().clear();
            assertEquals(1, sel.selectNow());
            assertEquals(ops(OP_WRITE), ops(key.readyOps()), "interest WRITE only");

            key.interestOps(OP_CONNECT);
            sel.selectedKeys().clear();
            assertEquals(0, sel.selectNow(), "interest CONNECT on a connected socket");
            assertEquals(0, key.readyOps(), "ready ops replaced by an empty set");
        }
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void inetSocketPendingConnectGivesOpConnectThenFinishConnect(TestSelectors s) throws Exception {
        try (Selector sel = s.open(); Listener l = Listener.open(SocketKind.INET);
                SocketChannel sc = SocketChannel.open()) {
            sc.configureBlocking(false);
            assertFalse(sc.connect(l.address), "a non-blocking TCP connect is pending on Linux");
            assertTrue(sc.isConnectionPending());
            SelectionKey key = sc.register(sel, OP_CONNECT | OP_READ | OP_WRITE);
            awaitSelected(sel, key);
            assertEquals(ops(OP_CONNECT), ops(key.readyOps()),
                    "pending connect: OP_CONNECT only (READ and WRITE need a finished connection)");
            assertTrue(key.isConnectable());
            assertTrue(sc.finishConnect());
            assertTrue(sc.isConnected());

            key.interestOps(OP_CONNECT);
            sel.selectedKeys().clear();
            assertEquals(0, sel.selectNow(), "connection finished: OP_CONNECT no longer ready");
            assertEquals(0, key.readyOps());

            key.interestOps(OP_READ | OP_WRITE);
            assertEquals(1, sel.selectNow());
            assertEquals(ops(OP_WRITE), ops(key.readyOps()), "connected, nothing to read");
            try (SocketChannel accepted = l.channel.accept()) {
                assertNotNull(accepted);
            }
        }
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void inetSocketRefusedConnectReportsTheInterestSet(TestSelectors s) throws Exception {
        try (Selector sel = s.open(); DeadPort dead = DeadPort.tcp(); SocketChannel sc = SocketChannel.open()) {
            sc.configureBlocking(false);
            assertFalse(sc.connect(dead.address), "connect is pending");
            SelectionKey key = sc.register(sel, OP_CONNECT | OP_READ);
            awaitSelected(sel, key);
            assertEquals(ops(OP_CONNECT | OP_READ), ops(key.readyOps()),
                    "POLLERR|POLLHUP: ready ops are the whole interest set");
            assertThrows(ConnectException.class, sc::finishConnect);
        }
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void unixSocketConnectCompletesAtOnceAndIsNeverConnectable(TestSelectors s) throws Exception {
        try (Selector sel = s.open(); Listener l = Listener.open(SocketKind.UNIX);
                SocketChannel sc = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            sc.configureBlocking(false);
            boolean connected = sc.connect(l.address);
            SelectionKey key = sc.register(sel, OP_CONNECT);
            if (!connected) {
                awaitSelected(sel, key);
                assertEquals(ops(OP_CONNECT), ops(key.readyOps()));
                assertTrue(sc.finishConnect());
            }
            assertTrue(sc.isConnected());
            sel.selectedKeys().clear();
            assertEquals(0, sel.select(100), "connected: OP_CONNECT never ready");
            key.interestOps(OP_WRITE);
            assertEquals(1, sel.selectNow());
            assertEquals(ops(OP_WRITE), ops(key.readyOps()));
        }
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void inetUnconnectedSocketHangUpReportsTheInterestSet(TestSelectors s) throws Exception {
        try (Selector sel = s.open(); SocketChannel sc = SocketChannel.open()) {
            unconnectedSocketHangUpReportsTheInterestSet(sel, sc);
        }
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void unixUnconnectedSocketHangUpReportsTheInterestSet(TestSelectors s) throws Exception {
        try (Selector sel = s.open(); SocketChannel sc = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            unconnectedSocketHangUpReportsTheInterestSet(sel, sc);
        }
    }

    /** The kernel reports POLLHUP for a never-connected stream socket; the JDK then reports the interest set. */
    private void unconnectedSocketHangUpReportsTheInterestSet(Selector sel, SocketChannel sc) throws Exception {
        sc.configureBlocking(false);
        SelectionKey key = sc.register(sel, OP_READ | OP_WRITE | OP_CONNECT);
        assertEquals(1, awaitSelected(sel, key));
        assertEquals(ops(OP_READ | OP_WRITE | OP_CONNECT), ops(key.readyOps()));
        key.interestOps(OP_READ);
        sel.selectedKeys().clear();
        assertEquals(1, sel.selectNow());
        assertEquals(ops(OP_READ), ops(key.readyOps()));
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void inetSocketPeerCloseIsReadableEndOfStream(TestSelectors s) throws Exception {
        socketPeerCloseIsReadableEndOfStream(s, SocketKind.INET);
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void unixSocketPeerCloseIsReadableEndOfStream(TestSelectors s) throws Exception {
        socketPeerCloseIsReadableEndOfStream(s, SocketKind.UNIX);
    }

    private void socketPeerCloseIsReadableEndOfStream(TestSelectors s, SocketKind kind) throws Exception {
        try (Selector sel = s.open(); SocketPair p = SocketPair.open(kind)) {
            SelectionKey key = p.local.register(sel, OP_READ);
            assertNotSelected(sel, "peer still open");
            p.peer.close();
            awaitSelected(sel, key);
            assertEquals(ops(OP_READ), ops(key.readyOps()));
            assertSelectedOnEverySelect(sel, key, OP_READ, 2);
            assertEndOfStream(p.local);
            assertSelectedOnEverySelect(sel, key, OP_READ, 1);
        }
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void inetSocketHangUpReportsTheInterestSet(TestSelectors s) throws Exception {
        socketHangUpReportsTheInterestSet(s, SocketKind.INET);
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void unixSocketHangUpReportsTheInterestSet(TestSelectors s) throws Exception {
        socketHangUpReportsTheInterestSet(s, SocketKind.UNIX);
    }

    /**
     * Both directions shut down gives POLLHUP: the JDK reports the whole interest set, including
     * OP_CONNECT on a connected socket, which plain readiness never gives.
     */
    private void socketHangUpReportsTheInterestSet(TestSelectors s, SocketKind kind) throws Exception {
        try (Selector sel = s.open(); SocketPair p = SocketPair.open(kind)) {
            SelectionKey key = p.local.register(sel, OP_READ | OP_CONNECT);
            assertNotSelected(sel, "connected, nothing to read");
            p.local.shutdownOutput();
            p.peer.close();
            awaitReadyOps(sel, key, OP_READ | OP_CONNECT);
            assertSelectedOnEverySelect(sel, key, OP_READ | OP_CONNECT, 2);
        }
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void inetSocketRegisteredWithNoInterestIsNeverSelected(TestSelectors s) throws Exception {
        socketWithNoInterestIsNeverSelected(s, SocketKind.INET, false);
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void unixSocketRegisteredWithNoInterestIsNeverSelected(TestSelectors s) throws Exception {
        socketWithNoInterestIsNeverSelected(s, SocketKind.UNIX, false);
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void inetSocketInterestChangedToZeroIsNeverSelected(TestSelectors s) throws Exception {
        socketWithNoInterestIsNeverSelected(s, SocketKind.INET, true);
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void unixSocketInterestChangedToZeroIsNeverSelected(TestSelectors s) throws Exception {
        socketWithNoInterestIsNeverSelected(s, SocketKind.UNIX, true);
    }

    /** Readable, writable and hung up, yet interest 0: never selected. */
    private void socketWithNoInterestIsNeverSelected(TestSelectors s, SocketKind kind, boolean changed)
            throws Exception {
        try (Selector sel = s.open(); SocketPair p = SocketPair.open(kind)) {
            SelectionKey key;
            if (changed) {
                key = p.local.register(sel, OP_READ | OP_WRITE);
                assertEquals(1, awaitSelected(sel, key));
                key.interestOps(0);
                sel.selectedKeys().clear();
            } else {
                key = p.local.register(sel, 0);
            }
            writeFully(p.peer, 10);
            p.local.shutdownOutput();
            p.peer.close();
            witnessReady(p.local, OP_READ);
            assertEquals(0, sel.selectNow(), "interest 0 after hang-up");
            assertBlocksWithNothingSelected(sel);
            assertTrue(sel.selectedKeys().isEmpty());
            assertTrue(key.isValid());
            key.interestOps(OP_READ);
            assertEquals(1, sel.selectNow(), "interest READ again");
        }
    }

    // ------------------------------------------------------------------ server sockets

    @ParameterizedTest
    @MethodSource(ALL)
    void inetServerSocketAcceptIsLevelTriggered(TestSelectors s) throws Exception {
        serverSocketAcceptIsLevelTriggered(s, SocketKind.INET);
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void unixServerSocketAcceptIsLevelTriggered(TestSelectors s) throws Exception {
        serverSocketAcceptIsLevelTriggered(s, SocketKind.UNIX);
    }

    private void serverSocketAcceptIsLevelTriggered(TestSelectors s, SocketKind kind) throws Exception {
        try (Selector sel = s.open(); Listener l = Listener.open(kind)) {
            l.channel.configureBlocking(false);
            SelectionKey key = l.channel.register(sel, OP_ACCEPT);
            assertNotSelected(sel, "no connection pending");
            try (SocketChannel c1 = l.connectBlocking(); SocketChannel c2 = l.connectBlocking()) {
                assertEquals(1, awaitSelected(sel, key));
                assertEquals(ops(OP_ACCEPT), ops(key.readyOps()));
                assertTrue(key.isAcceptable());
                assertSelectedOnEverySelect(sel, key, OP_ACCEPT, 3);
                try (SocketChannel a1 = l.channel.accept()) {
                    assertNotNull(a1);
                    assertSelectedOnEverySelect(sel, key, OP_ACCEPT, 1);
                    try (SocketChannel a2 = l.channel.accept()) {
                        assertNotNull(a2);
                        assertNotSelected(sel, "backlog empty");
                        assertNull(l.channel.accept());
                    }
                }
            }
        }
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void serverSocketWithNoInterestIsNeverSelected(TestSelectors s) throws Exception {
        try (Selector sel = s.open(); Listener l = Listener.open(SocketKind.INET)) {
            l.channel.configureBlocking(false);
            SelectionKey key = l.channel.register(sel, OP_ACCEPT);
            key.interestOps(0);
            try (SocketChannel c = l.connectBlocking()) {
                witnessReady(l.channel, OP_ACCEPT);
                assertEquals(0, sel.selectNow());
                assertBlocksWithNothingSelected(sel);
                key.interestOps(OP_ACCEPT);
                assertEquals(1, sel.selectNow());
                assertEquals(ops(OP_ACCEPT), ops(key.readyOps()));
            }
        }
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void unboundServerSocketHangUpReportsTheInterestSet(TestSelectors s) throws Exception {
        try (Selector sel = s.open(); ServerSocketChannel ssc = ServerSocketChannel.open()) {
            ssc.configureBlocking(false);
            SelectionKey key = ssc.register(sel, OP_ACCEPT);
            assertEquals(1, awaitSelected(sel, key), "a socket that is not listening reports POLLHUP");
            assertEquals(ops(OP_ACCEPT), ops(key.readyOps()));
        }
    }

    // ------------------------------------------------------------------ datagram channels

    @ParameterizedTest
    @MethodSource(ALL)
    void datagramReadableIsLevelTriggered(TestSelectors s) throws Exception {
        try (Selector sel = s.open(); DatagramPair p = DatagramPair.open()) {
            SelectionKey key = p.local.register(sel, OP_READ);
            assertNotSelected(sel, "no datagram yet");
            p.peer.write(bytes(10));
            assertEquals(1, awaitSelected(sel, key));
            assertEquals(ops(OP_READ), ops(key.readyOps()));
            assertSelectedOnEverySelect(sel, key, OP_READ, 3);
            readDatagram(p.local, 10);
            assertNotSelected(sel, "datagram received");

            p.peer.write(bytes(20));
            p.peer.write(bytes(30));
            sel.selectedKeys().clear();
            awaitSelected(sel, key);
            readDatagram(p.local, 20);
            sel.selectedKeys().clear();
            awaitSelected(sel, key);
            assertEquals(ops(OP_READ), ops(key.readyOps()), "second datagram still queued");
            readDatagram(p.local, 30);
            assertNotSelected(sel, "both datagrams received");
        }
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void datagramWritableAndReadyOpsMaskedByInterest(TestSelectors s) throws Exception {
        try (Selector sel = s.open(); DatagramPair p = DatagramPair.open()) {
            SelectionKey key = p.local.register(sel, OP_WRITE);
            assertEquals(1, awaitSelected(sel, key));
            assertEquals(ops(OP_WRITE), ops(key.readyOps()));
            assertSelectedOnEverySelect(sel, key, OP_WRITE, 3);

            p.peer.write(bytes(10));
            key.interestOps(OP_READ | OP_WRITE);
            awaitReadyOps(sel, key, OP_READ | OP_WRITE);
            key.interestOps(OP_WRITE);
            assertSelectedOnEverySelect(sel, key, OP_WRITE, 1);
            key.interestOps(OP_READ);
            assertSelectedOnEverySelect(sel, key, OP_READ, 1);
        }
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void datagramErrorReportsTheInterestSet(TestSelectors s) throws Exception {
        try (Selector sel = s.open(); DeadPort dead = DeadPort.udp(); DatagramChannel dc = DatagramChannel.open()) {
            dc.bind(ContractChannels.loopback(0));
            dc.connect(dead.address);
            dc.configureBlocking(false);
            SelectionKey key = dc.register(sel, OP_READ);
            assertNotSelected(sel, "nothing received");
            dc.write(bytes(8));
            // ICMP port unreachable sets a socket error: POLLERR, so the interest set is reported.
            awaitSelected(sel, key);
            assertEquals(ops(OP_READ), ops(key.readyOps()));
            assertThrows(PortUnreachableException.class, () -> dc.read(ByteBuffer.allocate(16)));
            assertNotSelected(sel, "error consumed by the read");
        }
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void datagramWithNoInterestIsNeverSelected(TestSelectors s) throws Exception {
        try (Selector sel = s.open(); DatagramPair p = DatagramPair.open()) {
            SelectionKey key = p.local.register(sel, OP_READ | OP_WRITE);
            assertEquals(1, awaitSelected(sel, key));
            key.interestOps(0);
            sel.selectedKeys().clear();
            p.peer.write(bytes(10));
            witnessReady(p.local, OP_READ);
            assertEquals(0, sel.selectNow());
            assertBlocksWithNothingSelected(sel);
            assertTrue(sel.selectedKeys().isEmpty());
            key.interestOps(OP_READ);
            assertEquals(1, sel.selectNow());
            assertEquals(ops(OP_READ), ops(key.readyOps()));
        }
    }

    // ------------------------------------------------------------------ pipe source

    @ParameterizedTest
    @MethodSource(ALL)
    void pipeSourceReadableIsLevelTriggered(TestSelectors s) throws Exception {
        try (Selector sel = s.open(); PipePair p = PipePair.open()) {
            p.source.configureBlocking(false);
            SelectionKey key = p.source.register(sel, OP_READ);
            assertEquals(OP_READ, p.source.validOps());
            assertNotSelected(sel, "pipe empty");
            writeFully(p.sink, 100);
            assertEquals(1, awaitSelected(sel, key));
            assertEquals(ops(OP_READ), ops(key.readyOps()));
            assertSelectedOnEverySelect(sel, key, OP_READ, 3);
            readExactly(p.source, 99);
            assertSelectedOnEverySelect(sel, key, OP_READ, 1);
            readExactly(p.source, 1);
            assertNotSelected(sel, "pipe drained");
        }
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void pipeSourceHangUpIsReadableEndOfStream(TestSelectors s) throws Exception {
        try (Selector sel = s.open(); PipePair p = PipePair.open()) {
            p.source.configureBlocking(false);
            SelectionKey key = p.source.register(sel, OP_READ);
            writeFully(p.sink, 5);
            p.sink.close();
            awaitSelected(sel, key);
            assertEquals(ops(OP_READ), ops(key.readyOps()));
            readExactly(p.source, 5);
            assertSelectedOnEverySelect(sel, key, OP_READ, 2);
            assertEndOfStream(p.source);
            assertSelectedOnEverySelect(sel, key, OP_READ, 1);
        }
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void pipeSourceWithNoInterestIsNeverSelected(TestSelectors s) throws Exception {
        try (Selector sel = s.open(); PipePair p = PipePair.open()) {
            p.source.configureBlocking(false);
            SelectionKey key = p.source.register(sel, 0);
            writeFully(p.sink, 5);
            p.sink.close();
            witnessReady(p.source, OP_READ);
            assertEquals(0, sel.selectNow(), "data and hang-up, interest 0");
            assertBlocksWithNothingSelected(sel);
            key.interestOps(OP_READ);
            assertEquals(1, sel.selectNow());
            key.interestOps(0);
            sel.selectedKeys().clear();
            assertEquals(0, sel.selectNow(), "interest back to 0");
            assertBlocksWithNothingSelected(sel);
        }
    }

    // ------------------------------------------------------------------ pipe sink

    @ParameterizedTest
    @MethodSource(ALL)
    void pipeSinkWritableIsLevelTriggered(TestSelectors s) throws Exception {
        try (Selector sel = s.open(); PipePair p = PipePair.open()) {
            p.sink.configureBlocking(false);
            assertEquals(OP_WRITE, p.sink.validOps());
            SelectionKey key = p.sink.register(sel, OP_WRITE);
            assertEquals(1, awaitSelected(sel, key));
            assertEquals(ops(OP_WRITE), ops(key.readyOps()));
            assertSelectedOnEverySelect(sel, key, OP_WRITE, 3);
            long written = fillUntilNotWritable(sel, p.sink);
            assertNotSelected(sel, "pipe full");
            readExactly(p.source, written);
            sel.selectedKeys().clear();
            awaitSelected(sel, key);
            assertEquals(ops(OP_WRITE), ops(key.readyOps()), "writable again once drained");
        }
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void pipeSinkErrorOnFullPipeReportsTheInterestSet(TestSelectors s) throws Exception {
        try (Selector sel = s.open(); PipePair p = PipePair.open()) {
            p.sink.configureBlocking(false);
            SelectionKey key = p.sink.register(sel, OP_WRITE);
            fillUntilNotWritable(sel, p.sink);
            assertNotSelected(sel, "pipe full");
            p.source.close();
            // No room to write, but the reader is gone: POLLERR reports the interest set.
            assertEquals(1, awaitSelected(sel, key));
            assertEquals(ops(OP_WRITE), ops(key.readyOps()));
            assertThrows(IOException.class, () -> p.sink.write(bytes(1)));
            assertSelectedOnEverySelect(sel, key, OP_WRITE, 1);
        }
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void pipeSinkWithNoInterestIsNeverSelected(TestSelectors s) throws Exception {
        try (Selector sel = s.open(); PipePair p = PipePair.open()) {
            p.sink.configureBlocking(false);
            SelectionKey key = p.sink.register(sel, OP_WRITE);
            assertEquals(1, awaitSelected(sel, key));
            key.interestOps(0);
            sel.selectedKeys().clear();
            assertEquals(0, sel.selectNow(), "writable, interest 0");
            p.source.close();
            witnessReady(p.sink, OP_WRITE);
            assertEquals(0, sel.selectNow(), "reader gone, interest 0");
            assertBlocksWithNothingSelected(sel);
            assertTrue(sel.selectedKeys().isEmpty());
        }
    }
}
