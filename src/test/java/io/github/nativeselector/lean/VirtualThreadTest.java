/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.lean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.github.nativeselector.support.RaceSupport;
import java.io.InputStream;
import java.net.ServerSocket;
import java.net.SocketTimeoutException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Blocking channel operations on virtual threads (Java 21 and later; skipped before): more
 * threads blocked at once than there are carrier threads, which only works if a blocked virtual
 * thread lets go of its carrier, and close and interrupt of a virtual thread blocked in a channel.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class VirtualThreadTest {

    /** Many more than the carrier threads (one per processor). */
    private static final int THREADS = Math.max(64, 8 * Runtime.getRuntime().availableProcessors());

    @BeforeEach
    void needsVirtualThreads() {
        assumeTrue(VirtualThreads.available(), VirtualThreads.UNAVAILABLE);
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void manyBlockedReaders(Impl impl) throws Exception {
        List<Pair> pairs = new ArrayList<>();
        List<BlockedCall<Integer>> readers = new ArrayList<>();
        List<BlockedCall<Integer>> writers = new ArrayList<>();
        try {
            for (int i = 0; i < THREADS; i++) {
                pairs.add(Pair.open(impl));
            }
            for (Pair p : pairs) {
                readers.add(BlockedCall.start(true, () -> {
                    ByteBuffer buf = ByteBuffer.allocate(8);
                    p.accepted.read(buf);
                    return (int) buf.get(0);
                }));
            }
            for (int i = 0; i < THREADS; i++) {
                readers.get(i).awaitBlockedIn(pairs.get(i).accepted);
            }
            for (int i = 0; i < THREADS; i++) {
                Pair p = pairs.get(i);
                byte value = (byte) i;
                writers.add(BlockedCall.start(true, () -> p.client.write(ByteBuffer.wrap(new byte[] {value}))));
            }
            for (int i = 0; i < THREADS; i++) {
                assertEquals(1, writers.get(i).get());
                assertEquals((byte) i, (byte) (int) readers.get(i).get(), "reader " + i);
            }
        } finally {
            closeAll(readers, writers, pairs);
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void manyBlockedAcceptors(Impl impl) throws Exception {
        List<ServerSocketChannel> servers = new ArrayList<>();
        List<SocketChannel> clients = new ArrayList<>();
        List<BlockedCall<SocketChannel>> acceptors = new ArrayList<>();
        List<BlockedCall<Boolean>> connectors = new ArrayList<>();
        try {
            for (int i = 0; i < THREADS; i++) {
                ServerSocketChannel server = impl.listen(Family.INET);
                servers.add(server);
                acceptors.add(BlockedCall.start(true, server::accept));
            }
            for (int i = 0; i < THREADS; i++) {
                acceptors.get(i).awaitBlockedIn(servers.get(i));
            }
            for (ServerSocketChannel server : servers) {
                SocketChannel client = impl.openSocket();
                clients.add(client);
                connectors.add(BlockedCall.start(true, () -> client.connect(server.getLocalAddress())));
            }
            for (int i = 0; i < THREADS; i++) {
                assertTrue(connectors.get(i).get());
                try (SocketChannel accepted = acceptors.get(i).get()) {
                    assertEquals(clients.get(i).getLocalAddress(), accepted.getRemoteAddress());
                }
            }
        } finally {
            closeAll(acceptors, connectors, servers);
            closeAll(List.of(), List.of(), clients);
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void blockedWriterWaitsForRoom(Impl impl) throws Exception {
        int size = 16 << 20;
        // on a virtual thread the JDK's blocking write may return after part of the buffer
        try (Pair p = Pair.open(impl); BlockedCall<Long> write = BlockedCall.start(true, () -> {
            ByteBuffer src = Bytes.pattern(0, size, 40, true);
            long total = 0;
            while (src.hasRemaining()) {
                int n = p.client.write(src);
                assertTrue(n > 0, "a blocking write wrote nothing");
                total += n;
            }
            return total;
        })) {
            write.awaitBlockedIn(p.client);
            Bytes.readAndCheck(p.accepted, 0, size, 40, false);
            assertEquals(size, write.get());
        }
    }

    /**
     * More virtual threads than carriers write to one blocking channel at once, so that most of
     * them wait for the write lock while its holder waits for room: every byte arrives, once.
     * Their writes may interleave (a write on a virtual thread returns after part of a buffer),
     * so each writer's bytes are counted rather than found in one run.
     */
    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void writersWaitingForTheLockLoseNothing(Impl impl) throws Exception {
        int writers = 16;
        int perWriter = 256 * 1024;
        List<BlockedCall<Integer>> writes = new ArrayList<>();
        try (Pair p = Pair.open(impl)) {
            p.client.setOption(StandardSocketOptions.SO_SNDBUF, 16 * 1024);
            try {
                for (int w = 0; w < writers; w++) {
                    byte value = (byte) w;
                    writes.add(BlockedCall.start(true, () -> {
                        ByteBuffer chunk = ByteBuffer.allocate(4096);
                        for (int sent = 0; sent < perWriter; sent += chunk.capacity()) {
                            Arrays.fill(chunk.clear().array(), value);
                            while (chunk.hasRemaining()) {
                                assertTrue(p.client.write(chunk) > 0, "a blocking write wrote nothing");
                            }
                        }
                        return perWriter;
                    }));
                }
                long[] counts = new long[writers];
                ByteBuffer in = ByteBuffer.allocate(64 * 1024);
                for (long received = 0; received < (long) writers * perWriter; ) {
                    int n = p.accepted.read(in.clear());
                    assertTrue(n > 0, "the stream ended after " + received + " bytes");
                    for (int i = 0; i < n; i++) {
                        counts[in.get(i)]++;
                    }
                    received += n;
                }
                for (int w = 0; w < writers; w++) {
                    assertEquals(perWriter, counts[w], "bytes of writer " + w);
                    assertEquals(perWriter, writes.get(w).get());
                }
            } finally {
                for (BlockedCall<Integer> write : writes) {
                    write.close();
                }
            }
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void blockingWriteReturnsWhatOneSendTook(Impl impl) throws Exception {
        // the JDK's channel is non-blocking in the kernel under a virtual thread: a write returns
        // once a send took part of the buffer, and only a write that can send nothing waits
        int size = 64 << 20;
        try (Pair p = Pair.open(impl); BlockedCall<Integer> write = BlockedCall.start(true,
                () -> p.client.write(ByteBuffer.allocate(size)))) {
            int n = write.get();
            assertTrue(n > 0 && n < size, "wrote " + n + " of " + size + " bytes, nobody reading");
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void urgentDataWithTheSendBufferFullFails(Impl impl) throws Exception {
        // the JDK's channel is non-blocking in the kernel under a virtual thread and fails at once
        try (Pair p = Pair.open(impl)) {
            Bytes.fillUntilFull(p.client, 60);
            p.client.configureBlocking(true);
            try (BlockedCall<String> send = BlockedCall.start(true,
                    () -> Outcome.ofRun(() -> p.client.socket().sendUrgentData(0)))) {
                assertEquals("java.net.SocketException: No buffer space available", send.get());
            }
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void closeEndsBlockedOperations(Impl impl) throws Exception {
        for (BlockingTest.Op op : BlockingTest.Op.values()) {
            BlockingTest.assertCloseEnds(impl, op, true);
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void interruptEndsBlockedOperations(Impl impl) throws Exception {
        for (BlockingTest.Op op : BlockingTest.Op.values()) {
            BlockingTest.assertInterruptEnds(impl, op, true);
        }
    }

    /**
     * An interrupt of a virtual thread blocked reading, made as the byte it waits for arrives,
     * round after round. The reader is inside a {@code synchronized} block, which on Java 21 pins
     * it to its carrier: waking it then takes its interrupt lock, which the interrupt holds while
     * it closes the channel. A wake made while holding a lock that the close needs would leave
     * both waiting for ever, and every virtual thread of the JVM that waits for a lean channel
     * with them. Each round ends with the byte read or the channel closed by the interrupt. (With
     * a close or a shutdown in place of the byte, Java 21 can hang on either kind of channel; see
     * the README.)
     */
    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void interruptAsDataArrivesForAPinnedReader(Impl impl) throws Exception {
        for (int round = 0; round < 300; round++) {
            Object monitor = new Object();
            Pair p = Pair.open(impl);
            BlockedCall<Integer> read = BlockedCall.start(true, () -> {
                synchronized (monitor) {
                    return p.accepted.read(ByteBuffer.allocate(1));
                }
            });
            Thread interrupter = null;
            try {
                long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(BlockedCall.WAIT_MS);
                while (read.thread.getState() != Thread.State.WAITING) {
                    assertTrue(read.thread.isAlive(), "the reader ended before it blocked");
                    assertTrue(System.nanoTime() < deadline, "the reader never blocked; it is at:\n"
                            + RaceSupport.stackOf(read.thread));
                    Thread.onSpinWait();
                }
                CyclicBarrier together = new CyclicBarrier(2);
                interrupter = RaceSupport.start("interrupter", new AtomicReference<>(), () -> {
                    together.await();
                    read.thread.interrupt();
                });
                together.await();
                p.client.write(ByteBuffer.wrap(new byte[] {1}));
                interrupter.join(BlockedCall.WAIT_MS);
                assertFalse(interrupter.isAlive(), "the interrupt did not end in round " + round
                        + "; it is at:\n" + RaceSupport.stackOf(interrupter));
                if (read.threw()) {
                    assertSame(ClosedByInterruptException.class, read.failure().getClass(), "round " + round);
                } else {
                    assertEquals(1, read.get(), "round " + round);
                }
            } finally {
                // A hung interrupt holds the channel's close lock: closing it would wait as well.
                if (interrupter == null || !interrupter.isAlive()) {
                    read.close();
                    p.close();
                }
            }
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void shutdownEndsBlockedTransfers(Impl impl) throws Exception {
        BlockingTest.assertShutdownInputEndsARead(impl, true);
        BlockingTest.assertShutdownOutputEndsAWrite(impl, true);
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void readsWaitingForTheLock(Impl impl) throws Exception {
        BlockingTest.assertReadsTakeTurns(impl, true);
        BlockingTest.assertCloseEndsAWaitForTheLock(impl, true);
        BlockingTest.assertInterruptWaitsForTheLock(impl, true);
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void adaptorTimeouts(Impl impl) throws Exception {
        try (Pair p = Pair.open(impl)) {
            p.client.socket().setSoTimeout(300);
            p.server.socket().setSoTimeout(300);
            InputStream in = p.client.socket().getInputStream();
            ServerSocket ss = p.server.socket();
            try (BlockedCall<Throwable> read = BlockedCall.start(true, () -> {
                try {
                    return new AssertionError("read " + in.read());
                } catch (SocketTimeoutException e) {
                    return e;
                }
            }); BlockedCall<Throwable> accept = BlockedCall.start(true, () -> {
                try {
                    return new AssertionError("accepted " + ss.accept());
                } catch (SocketTimeoutException e) {
                    return e;
                }
            })) {
                assertEquals("Read timed out", read.get().getMessage());
                assertEquals("Accept timed out", accept.get().getMessage());
            }
            assertTrue(p.client.isOpen());
            p.accepted.write(ByteBuffer.wrap(new byte[] {6}));
            try (BlockedCall<Integer> read = BlockedCall.start(true, in::read)) {
                assertEquals(6, read.get(), "the socket still reads after a time-out");
            }
        }
    }

    private static void closeAll(List<? extends BlockedCall<?>> a, List<? extends BlockedCall<?>> b,
            List<? extends AutoCloseable> resources) throws Exception {
        for (AutoCloseable r : resources) {
            r.close();
        }
        for (BlockedCall<?> call : a) {
            call.close();
        }
        for (BlockedCall<?> call : b) {
            call.close();
        }
    }
}
