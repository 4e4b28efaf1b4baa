/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.lean;

import static java.nio.channels.SelectionKey.OP_ACCEPT;
import static java.nio.channels.SelectionKey.OP_READ;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.nativeselector.support.RaceSupport;
import java.io.IOException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.IllegalBlockingModeException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.spi.AbstractInterruptibleChannel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Blocking mode: switching it, operations that wait, and how a close from another thread or an
 * interrupt ends a wait in read, write, accept and connect (a platform thread here;
 * {@link VirtualThreadTest} runs the same on virtual threads).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class BlockingTest {

    /** The blocking operations a thread can be stopped in. */
    enum Op {
        READ, WRITE, ACCEPT, CONNECT
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void blockingModeWhileRegistered(Impl impl) throws Exception {
        try (Pair p = Pair.open(impl); Selector selector = impl.openSelector()) {
            assertThrows(IllegalBlockingModeException.class, () -> p.client.register(selector, OP_READ),
                    "a channel in blocking mode cannot be registered");
            assertThrows(IllegalBlockingModeException.class, () -> p.server.register(selector, OP_ACCEPT));
            p.client.configureBlocking(false);
            p.server.configureBlocking(false);
            SelectionKey key = p.client.register(selector, OP_READ);
            SelectionKey serverKey = p.server.register(selector, OP_ACCEPT);
            assertThrows(IllegalBlockingModeException.class, () -> p.client.configureBlocking(true));
            assertThrows(IllegalBlockingModeException.class, () -> p.server.configureBlocking(true));
            assertFalse(p.client.isBlocking());
            assertSame(p.client, p.client.configureBlocking(false), "non-blocking again is fine");
            key.cancel();
            serverKey.cancel();
            selector.selectNow();
            assertFalse(p.client.isRegistered());
            p.client.configureBlocking(true);
            p.server.configureBlocking(true);
            assertTrue(p.client.isBlocking());
            assertTrue(p.server.isBlocking());
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void blockingAcceptWaitsForAConnection(Impl impl) throws Exception {
        try (ServerSocketChannel server = impl.listen(Family.INET); SocketChannel client = impl.openSocket();
                BlockedCall<SocketChannel> accept = BlockedCall.start(server::accept)) {
            accept.awaitBlockedIn(server);
            client.connect(server.getLocalAddress());
            try (SocketChannel accepted = accept.get()) {
                assertNotNull(accepted);
                assertEquals(client.getLocalAddress(), accepted.getRemoteAddress());
            }
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void blockingReadWaitsForData(Impl impl) throws Exception {
        try (Pair p = Pair.open(impl); BlockedCall<Integer> read = BlockedCall.start(
                () -> p.client.read(ByteBuffer.allocate(100)))) {
            read.awaitBlockedIn(p.client);
            p.accepted.write(ByteBuffer.wrap(new byte[] {1, 2, 3, 4}));
            assertEquals(4, read.get());
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void blockingWriteWaitsForRoom(Impl impl) throws Exception {
        int size = 16 << 20;
        try (Pair p = Pair.open(impl); BlockedCall<Integer> write = BlockedCall.start(
                () -> p.client.write(Bytes.pattern(0, size, 20, false)))) {
            write.awaitBlockedIn(p.client);
            Bytes.readAndCheck(p.accepted, 0, size, 20, true);
            assertEquals(size, write.get());
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void blockingConnectWaitsForTheHandshake(Impl impl) throws Exception {
        try (FullBacklog full = FullBacklog.open(Family.INET); SocketChannel ch = impl.openSocket();
                BlockedCall<Boolean> connect = BlockedCall.start(() -> ch.connect(full.address))) {
            connect.awaitBlockedIn(ch);
            assertTrue(ch.isConnectionPending());
            full.makeRoom();
            assertTrue(connect.get());
            assertTrue(ch.isConnected());
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void closeEndsABlockedRead(Impl impl) throws Exception {
        assertCloseEnds(impl, Op.READ, false);
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void closeEndsABlockedWrite(Impl impl) throws Exception {
        assertCloseEnds(impl, Op.WRITE, false);
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void closeEndsABlockedAccept(Impl impl) throws Exception {
        assertCloseEnds(impl, Op.ACCEPT, false);
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void closeEndsABlockedConnect(Impl impl) throws Exception {
        assertCloseEnds(impl, Op.CONNECT, false);
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void interruptEndsABlockedRead(Impl impl) throws Exception {
        assertInterruptEnds(impl, Op.READ, false);
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void interruptEndsABlockedWrite(Impl impl) throws Exception {
        assertInterruptEnds(impl, Op.WRITE, false);
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void interruptEndsABlockedAccept(Impl impl) throws Exception {
        assertInterruptEnds(impl, Op.ACCEPT, false);
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void interruptEndsABlockedConnect(Impl impl) throws Exception {
        assertInterruptEnds(impl, Op.CONNECT, false);
    }

    /** A blocked operation, the channel it blocks in, and what it talks to. */
    static final class Setup implements AutoCloseable {
        final AbstractInterruptibleChannel channel;
        final Callable<Object> call;
        private final AutoCloseable[] resources;
        /** The other end of the connection, for read and write; null otherwise. */
        final SocketChannel peer;

        private Setup(AbstractInterruptibleChannel channel, SocketChannel peer, Callable<Object> call,
                AutoCloseable... resources) {
            this.channel = channel;
            this.peer = peer;
            this.call = call;
            this.resources = resources;
        }

        static Setup of(Impl impl, Op op) throws IOException {
            switch (op) {
                case READ: {
                    Pair p = Pair.open(impl);
                    return new Setup(p.client, p.accepted, () -> p.client.read(ByteBuffer.allocate(16)), p);
                }
                case WRITE: {
                    Pair p = Pair.open(impl);
                    p.client.setOption(StandardSocketOptions.SO_SNDBUF, 64 * 1024);
                    return new Setup(p.client, p.accepted, () -> writeUntilStopped(p.client), p);
                }
                case ACCEPT: {
                    ServerSocketChannel server = impl.listen(Family.INET);
                    return new Setup(server, null, server::accept, server);
                }
                default: {
                    FullBacklog full = FullBacklog.open(Family.INET);
                    SocketChannel ch = impl.openSocket();
                    return new Setup(ch, null, () -> ch.connect(full.address), ch, full);
                }
            }
        }

        @Override
        public void close() throws Exception {
            for (AutoCloseable r : resources) {
                r.close();
            }
        }
    }

    /**
     * Writes 16 MiB buffers, nobody reading, until a write throws or returns with the channel
     * closed: a write that had sent some bytes when the channel was closed under it may return
     * their count, as the JDK's do, and the next write would find the channel closed.
     */
    static String writeUntilStopped(SocketChannel ch) throws IOException {
        ByteBuffer big = ByteBuffer.allocate(16 << 20);
        while (true) {
            ch.write(big.clear());
            if (!ch.isOpen()) {
                return CLOSED_AFTER_A_WRITE;
            }
        }
    }

    private static final String CLOSED_AFTER_A_WRITE = "a write returned, the channel closed";

    /**
     * Closes the channel while a thread is blocked in it: the thread gets an
     * AsynchronousCloseException (exactly that class; or, for a write, the count of the bytes it
     * sent), the close does not wait for the peer, and a peer of a connection sees it closed.
     */
    static void assertCloseEnds(Impl impl, Op op, boolean virtual) throws Exception {
        try (Setup s = Setup.of(impl, op); BlockedCall<Object> call = BlockedCall.start(virtual, s.call)) {
            call.awaitBlockedIn(s.channel);
            RaceSupport.runWithin("close of a channel with a blocked " + op, s.channel::close);
            assertStoppedByClose(call, op);
            assertFalse(call.interruptedAtEnd(), "a close is no interrupt");
            assertFalse(s.channel.isOpen());
            if (s.peer != null) {
                assertPeerSeesTheClose(s.peer);
            }
        }
    }

    /**
     * Interrupts a thread blocked in the channel: it gets a ClosedByInterruptException, its
     * interrupt status stays set, and the channel is closed.
     */
    static void assertInterruptEnds(Impl impl, Op op, boolean virtual) throws Exception {
        try (Setup s = Setup.of(impl, op); BlockedCall<Object> call = BlockedCall.start(virtual, s.call)) {
            call.awaitBlockedIn(s.channel);
            call.thread.interrupt();
            Throwable e = call.failure();
            assertSame(ClosedByInterruptException.class, e.getClass(), "the blocked " + op + " threw " + e);
            assertTrue(call.interruptedAtEnd(), "the interrupt status stays set");
            assertFalse(s.channel.isOpen(), "an interrupt closes the channel");
            if (s.peer != null) {
                assertPeerSeesTheClose(s.peer);
            }
        }
    }

    /** The peer reads what was sent, then end of stream or a reset: nothing hangs. */
    private static void assertPeerSeesTheClose(SocketChannel peer) throws Exception {
        RaceSupport.runWithin("the peer's reads up to the end", () -> {
            ByteBuffer sink = ByteBuffer.allocate(64 * 1024);
            try {
                while (peer.read(sink.clear()) >= 0) {
                    // what the writer managed to send before the close
                }
            } catch (IOException reset) {
                // a close with unread data resets the connection
            }
        });
    }

    private static void assertStoppedByClose(BlockedCall<Object> call, Op op) throws Exception {
        if (op == Op.WRITE && !call.threw()) {
            assertEquals(CLOSED_AFTER_A_WRITE, call.get());
            return;
        }
        Throwable e = call.failure();
        assertSame(AsynchronousCloseException.class, e.getClass(), "the blocked " + op + " threw " + e);
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void shutdownInputEndsABlockedRead(Impl impl) throws Exception {
        assertShutdownInputEndsARead(impl, false);
    }

    /** shutdownInput ends a read blocked on a platform or a {@code virtual} thread with the end of the stream. */
    static void assertShutdownInputEndsARead(Impl impl, boolean virtual) throws Exception {
        try (Pair p = Pair.open(impl);
                BlockedCall<Integer> read = BlockedCall.start(virtual, () -> p.client.read(ByteBuffer.allocate(8)))) {
            read.awaitBlockedIn(p.client);
            p.client.shutdownInput();
            assertEquals(-1, read.get(), "a read blocked when input is shut down reads end of stream");
            assertTrue(p.client.isOpen());
            assertEquals(1, p.client.write(ByteBuffer.allocate(1)), "output is still open");
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void shutdownOutputEndsABlockedWrite(Impl impl) throws Exception {
        assertShutdownOutputEndsAWrite(impl, false);
    }

    /** shutdownOutput ends a write blocked on a platform or a {@code virtual} thread, the channel left open. */
    static void assertShutdownOutputEndsAWrite(Impl impl, boolean virtual) throws Exception {
        try (Pair p = Pair.open(impl)) {
            p.client.setOption(StandardSocketOptions.SO_SNDBUF, 64 * 1024);
            try (BlockedCall<Long> write = BlockedCall.start(virtual, () -> {
                ByteBuffer big = ByteBuffer.allocate(16 << 20);
                long total = 0;
                while (!p.client.socket().isOutputShutdown()) {
                    total += p.client.write(big.clear());
                }
                return total;
            })) {
                write.awaitBlockedIn(p.client);
                p.client.shutdownOutput();
                // the JDK's write returns the bytes it sent before the shutdown, or throws if it sent none
                if (write.threw()) {
                    Throwable e = write.failure();
                    assertSame(AsynchronousCloseException.class, e.getClass(), "the blocked write threw " + e);
                } else {
                    assertTrue(write.get() > 0);
                }
                assertTrue(p.client.isOpen(), "a shutdown does not close the channel");
                assertTrue(p.client.socket().isOutputShutdown());
                RaceSupport.runWithin("the peer reads up to the end", () -> {
                    ByteBuffer sink = ByteBuffer.allocate(64 * 1024);
                    while (p.accepted.read(sink.clear()) >= 0) {
                        // what the writer sent before the shutdown
                    }
                });
                assertEquals(1, p.accepted.write(ByteBuffer.allocate(1)));
                assertEquals(1, p.client.read(ByteBuffer.allocate(1)), "input is still open");
            }
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void interruptStatusSetBeforeTheCall(Impl impl) throws Exception {
        for (Op op : Op.values()) {
            try (Setup s = Setup.of(impl, op)) {
                Thread.currentThread().interrupt();
                try {
                    Throwable e = assertThrows(ClosedByInterruptException.class, s.call::call, op.toString());
                    assertSame(ClosedByInterruptException.class, e.getClass());
                    assertTrue(Thread.currentThread().isInterrupted(), "the status stays set");
                } finally {
                    Thread.interrupted();
                }
                assertFalse(s.channel.isOpen(), op + ": the channel is closed");
            }
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void interruptStatusDoesNotTouchNonBlockingOperations(Impl impl) throws Exception {
        try (Pair p = Pair.open(impl)) {
            p.client.configureBlocking(false);
            p.server.configureBlocking(false);
            Thread.currentThread().interrupt();
            try {
                assertEquals(0, p.client.read(ByteBuffer.allocate(8)));
                assertEquals(1, p.client.write(ByteBuffer.allocate(1)));
                assertEquals(null, p.server.accept());
                assertTrue(Thread.currentThread().isInterrupted());
            } finally {
                Thread.interrupted();
            }
            assertTrue(p.client.isOpen());
            assertTrue(p.server.isOpen());
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void closeWakesAReaderAndAWriterAtOnce(Impl impl) throws Exception {
        try (Pair p = Pair.open(impl)) {
            p.client.setOption(StandardSocketOptions.SO_SNDBUF, 64 * 1024);
            try (BlockedCall<Object> read = BlockedCall.start(() -> p.client.read(ByteBuffer.allocate(8)));
                    BlockedCall<Object> write = BlockedCall.start(() -> writeUntilStopped(p.client))) {
                read.awaitBlockedIn(p.client);
                write.awaitBlockedIn(p.client);
                RaceSupport.runWithin("close with a reader and a writer blocked", p.client::close);
                assertStoppedByClose(read, Op.READ);
                assertStoppedByClose(write, Op.WRITE);
            }
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void aReadWaitingForTheLockReadsTheNextBytes(Impl impl) throws Exception {
        assertReadsTakeTurns(impl, false);
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void closeEndsAReadWaitingForTheLock(Impl impl) throws Exception {
        assertCloseEndsAWaitForTheLock(impl, false);
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void anInterruptWhileWaitingForTheLockClosesOnceTheLockIsTaken(Impl impl) throws Exception {
        assertInterruptWaitsForTheLock(impl, false);
    }

    /**
     * Several threads write to one blocking channel at once, each a buffer of its own byte many
     * times the send buffer: the peer reads each buffer whole, one after the other, as the write
     * lock makes them.
     */
    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void blockingWritesFromSeveralThreadsDoNotInterleave(Impl impl) throws Exception {
        int writers = 4;
        int size = 1 << 20;
        try (Pair p = Pair.open(impl)) {
            p.client.setOption(StandardSocketOptions.SO_SNDBUF, 16 * 1024);
            List<BlockedCall<Integer>> writes = new ArrayList<>();
            try {
                for (int w = 1; w <= writers; w++) {
                    byte value = (byte) w;
                    writes.add(BlockedCall.start(() -> {
                        ByteBuffer all = ByteBuffer.allocate(size);
                        Arrays.fill(all.array(), value);
                        return p.client.write(all);
                    }));
                }
                ByteBuffer received = ByteBuffer.allocate(writers * size);
                while (received.hasRemaining()) {
                    assertTrue(p.accepted.read(received) > 0, "the stream ended early");
                }
                Set<Byte> seen = new HashSet<>();
                for (int at = 0; at < received.capacity(); at += size) {
                    byte value = received.get(at);
                    assertTrue(seen.add(value), "a second run of " + value + " at " + at);
                    for (int i = at; i < at + size; i++) {
                        assertEquals(value, received.get(i), "byte " + i + " in the run of " + value + " from " + at);
                    }
                }
                for (BlockedCall<Integer> write : writes) {
                    assertEquals(size, write.get());
                }
            } finally {
                for (BlockedCall<Integer> write : writes) {
                    write.close();
                }
            }
        }
    }

    /**
     * A read blocked on the socket holds the read lock; a second read waits for the lock, and
     * reads the bytes that come after the ones the first read took.
     */
    static void assertReadsTakeTurns(Impl impl, boolean virtual) throws Exception {
        try (Pair p = Pair.open(impl);
                BlockedCall<Byte> first = BlockedCall.start(virtual, () -> readOneByte(p.client));
                BlockedCall<Byte> second = startSecondRead(p.client, first, virtual)) {
            p.accepted.write(ByteBuffer.wrap(new byte[] {1}));
            assertEquals((byte) 1, first.get());
            second.awaitBlockedIn(p.client);
            p.accepted.write(ByteBuffer.wrap(new byte[] {2}));
            assertEquals((byte) 2, second.get());
        }
    }

    /**
     * Closing the channel ends the blocked read (AsynchronousCloseException) and the one waiting
     * for the lock, which then finds the channel closed (ClosedChannelException).
     */
    static void assertCloseEndsAWaitForTheLock(Impl impl, boolean virtual) throws Exception {
        try (Pair p = Pair.open(impl);
                BlockedCall<Byte> first = BlockedCall.start(virtual, () -> readOneByte(p.client));
                BlockedCall<Byte> second = startSecondRead(p.client, first, virtual)) {
            RaceSupport.runWithin("close with a read blocked and one waiting for the lock", p.client::close);
            assertSame(AsynchronousCloseException.class, first.failure().getClass());
            assertSame(ClosedChannelException.class, second.failure().getClass());
            assertFalse(second.interruptedAtEnd());
        }
    }

    /**
     * An interrupt does not end a wait for the lock, as the JDK's uninterruptible lock has it:
     * the read that holds it goes on, and the interrupted thread, once it has the lock, closes
     * the channel, its interrupt status still set.
     */
    static void assertInterruptWaitsForTheLock(Impl impl, boolean virtual) throws Exception {
        try (Pair p = Pair.open(impl);
                BlockedCall<Byte> first = BlockedCall.start(virtual, () -> readOneByte(p.client));
                BlockedCall<Byte> second = startSecondRead(p.client, first, virtual)) {
            second.thread.interrupt();
            second.awaitParkedIn(p.client);
            assertTrue(p.client.isOpen(), "the interrupt waits for the lock");
            p.accepted.write(ByteBuffer.wrap(new byte[] {1}));
            assertEquals((byte) 1, first.get());
            assertSame(ClosedByInterruptException.class, second.failure().getClass());
            assertTrue(second.interruptedAtEnd());
            assertFalse(p.client.isOpen());
        }
    }

    private static byte readOneByte(SocketChannel ch) throws IOException {
        ByteBuffer one = ByteBuffer.allocate(1);
        assertEquals(1, ch.read(one));
        return one.get(0);
    }

    /** Once {@code first} is blocked reading {@code ch}, starts a second read, and returns once it waits for the lock. */
    private static BlockedCall<Byte> startSecondRead(SocketChannel ch, BlockedCall<Byte> first, boolean virtual) {
        first.awaitBlockedIn(ch);
        return BlockedCall.start(virtual, () -> readOneByte(ch)).awaitParkedIn(ch);
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void blockingFinishConnectInterruptedBeforehand(Impl impl) throws Exception {
        try (FullBacklog full = FullBacklog.open(Family.INET); SocketChannel ch = impl.openSocket()) {
            ch.configureBlocking(false);
            assertFalse(ch.connect(full.address));
            ch.configureBlocking(true);
            Thread.currentThread().interrupt();
            try {
                assertThrows(ClosedByInterruptException.class, ch::finishConnect);
            } finally {
                Thread.interrupted();
            }
            assertFalse(ch.isOpen());
            assertFalse(ch.isConnectionPending());
        }
    }
}
