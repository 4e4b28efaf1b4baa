/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.lean;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.SocketException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SocketChannel;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Reads and writes of single buffers: heap, direct, sliced and read-only buffers, partial and
 * empty ones, large transfers, short writes in non-blocking mode, end of stream, shutdowns,
 * resets and closed channels.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ReadWriteTest {

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void heapAndDirectBuffersBothWays(Impl impl) throws Exception {
        try (Pair p = Pair.open(impl)) {
            int seed = 1;
            long offset = 0;
            for (boolean directWrite : new boolean[] {false, true}) {
                for (boolean directRead : new boolean[] {false, true}) {
                    ByteBuffer src = Bytes.pattern(offset, 1000, seed, directWrite);
                    assertEquals(1000, p.client.write(src));
                    assertFalse(src.hasRemaining());
                    Bytes.readAndCheck(p.accepted, offset, 1000, seed, directRead);
                    src = Bytes.pattern(offset, 1000, seed, directWrite);
                    assertEquals(1000, p.accepted.write(src));
                    Bytes.readAndCheck(p.client, offset, 1000, seed, directRead);
                    offset += 1000;
                }
            }
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void partialBuffers(Impl impl) throws Exception {
        try (Pair p = Pair.open(impl)) {
            for (boolean direct : new boolean[] {false, true}) {
                ByteBuffer src = Bytes.pattern(0, 16, 2, direct).position(3).limit(7);
                assertEquals(4, p.client.write(src), "only position to limit is written");
                assertEquals(7, src.position());
                assertEquals(7, src.limit());

                ByteBuffer dst = direct ? ByteBuffer.allocateDirect(16) : ByteBuffer.allocate(16);
                for (int i = 0; i < 16; i++) {
                    dst.put(i, (byte) 0x55);
                }
                dst.position(10).limit(12);
                assertEquals(2, p.accepted.read(dst), "only position to limit is filled");
                assertEquals(12, dst.position());
                dst.limit(16);
                assertEquals(2, p.accepted.read(dst), "the other two bytes");
                for (int i = 0; i < 16; i++) {
                    byte expected = i >= 10 && i < 14 ? Bytes.at(3 + i - 10, 2) : (byte) 0x55;
                    assertEquals(expected, dst.get(i), "byte " + i + " of the destination");
                }
            }
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void directBuffersTakenInTurnEachUseTheirOwnMemory(Impl impl) throws Exception {
        try (Pair p = Pair.open(impl)) {
            ByteBuffer whole = ByteBuffer.allocateDirect(64);
            ByteBuffer[] views = {whole.slice(8, 8), whole.slice(32, 8), whole.duplicate()};
            int[] startInWhole = {8, 32, 0};
            int[] order = {0, 1, 0, 2, 1, 2, 0};
            long offset = 0;
            for (int turn = 0; turn < order.length; turn++) {
                ByteBuffer from = views[order[turn]].clear().limit(8);
                from.put(Bytes.array(offset, 8, 4)).flip();
                assertEquals(8, p.client.write(from), "write " + turn);
                Bytes.readAndCheck(p.accepted, offset, 8, 4, false);

                int view = order[order.length - 1 - turn];
                ByteBuffer into = views[view].clear().limit(8);
                p.accepted.write(Bytes.pattern(offset, 8, 5, false));
                while (into.hasRemaining()) {
                    assertTrue(p.client.read(into) >= 0);
                }
                for (int i = 0; i < 8; i++) {
                    assertEquals(Bytes.at(offset + i, 5), whole.get(startInWhole[view] + i), "turn " + turn + ", byte " + i);
                }
                offset += 8;
            }
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void slicedHeapBuffers(Impl impl) throws Exception {
        try (Pair p = Pair.open(impl)) {
            byte[] backing = Bytes.array(0, 64, 3);
            ByteBuffer src = ByteBuffer.wrap(backing).position(20).slice().limit(8);
            assertEquals(20, src.arrayOffset());
            assertEquals(8, p.client.write(src));

            byte[] into = new byte[64];
            ByteBuffer dst = ByteBuffer.wrap(into).position(30).slice().position(2).limit(10);
            assertEquals(30, dst.arrayOffset());
            assertEquals(8, p.accepted.read(dst));
            byte[] expected = new byte[64];
            System.arraycopy(backing, 20, expected, 32, 8);
            assertArrayEquals(expected, into, "the slice's bytes, at the slice's offset in the array");
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void readOnlyBuffers(Impl impl) throws Exception {
        try (Pair p = Pair.open(impl)) {
            ByteBuffer heap = Bytes.pattern(0, 10, 4, false).asReadOnlyBuffer();
            ByteBuffer direct = Bytes.pattern(10, 10, 4, true).asReadOnlyBuffer();
            assertEquals(10, p.client.write(heap), "a read-only heap buffer has no array to hand out");
            assertEquals(10, p.client.write(direct));
            Bytes.readAndCheck(p.accepted, 0, 20, 4, false);

            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> p.accepted.read(ByteBuffer.allocate(4).asReadOnlyBuffer()));
            assertEquals("Read-only buffer", e.getMessage());
            e = assertThrows(IllegalArgumentException.class,
                    () -> p.accepted.read(ByteBuffer.allocateDirect(4).asReadOnlyBuffer()));
            assertEquals("Read-only buffer", e.getMessage());
            assertTrue(p.accepted.isOpen());
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void nullBuffers(Impl impl) throws Exception {
        try (Pair p = Pair.open(impl)) {
            assertThrows(NullPointerException.class, () -> p.client.read((ByteBuffer) null));
            assertThrows(NullPointerException.class, () -> p.client.write((ByteBuffer) null));
            assertTrue(p.client.isOpen());
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void emptyBuffersDoNotBlock(Impl impl) throws Exception {
        try (Pair p = Pair.open(impl)) {
            assertEquals(0, p.client.read(ByteBuffer.allocate(0)), "blocking read of nothing, nothing to read");
            assertEquals(0, p.client.read(ByteBuffer.allocateDirect(0)));
            assertEquals(0, p.client.write(ByteBuffer.allocate(0)));
            assertEquals(0, p.client.write(ByteBuffer.allocateDirect(0)));
            ByteBuffer full = ByteBuffer.allocate(8).position(8);
            assertEquals(1, p.accepted.write(ByteBuffer.wrap(new byte[] {7})));
            assertEquals(0, p.client.read(full), "a full buffer takes nothing");
            ByteBuffer one = ByteBuffer.allocate(1);
            assertEquals(1, p.client.read(one), "the byte is still there");
            assertEquals(7, one.get(0));
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void blockingReadReturnsWhatHasArrived(Impl impl) throws Exception {
        try (Pair p = Pair.open(impl)) {
            assertEquals(3, p.accepted.write(ByteBuffer.wrap(new byte[] {1, 2, 3})));
            ByteBuffer big = ByteBuffer.allocate(1000);
            assertEquals(3, p.client.read(big), "a blocking read does not wait to fill the buffer");
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void nonBlockingReadWithNothingToRead(Impl impl) throws Exception {
        try (Pair p = Pair.open(impl)) {
            p.client.configureBlocking(false);
            assertEquals(0, p.client.read(ByteBuffer.allocate(8)));
            assertEquals(0, p.client.read(ByteBuffer.allocateDirect(8)));
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void largeBlockingTransfers(Impl impl) throws Exception {
        int size = 8 << 20;
        try (Pair p = Pair.open(impl)) {
            for (boolean direct : new boolean[] {false, true}) {
                int seed = direct ? 5 : 6;
                try (BlockedCall<Void> reader = BlockedCall.start(() -> {
                    Bytes.readAndCheck(p.accepted, 0, size, seed, !direct);
                    return null;
                })) {
                    ByteBuffer src = Bytes.pattern(0, size, seed, direct);
                    assertEquals(size, p.client.write(src), "a blocking write writes the whole buffer");
                    reader.get();
                }
            }
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void fullDuplexBlockingTransfers(Impl impl) throws Exception {
        int size = 8 << 20;
        try (Pair p = Pair.open(impl);
                BlockedCall<Integer> clientWrites = BlockedCall.start(
                        () -> p.client.write(Bytes.pattern(0, size, 16, true)));
                BlockedCall<Integer> acceptedWrites = BlockedCall.start(
                        () -> p.accepted.write(Bytes.pattern(0, size, 17, false)));
                BlockedCall<Void> clientReads = BlockedCall.start(() -> {
                    Bytes.readAndCheck(p.client, 0, size, 17, false);
                    return null;
                })) {
            Bytes.readAndCheck(p.accepted, 0, size, 16, true);
            clientReads.get();
            assertEquals(size, clientWrites.get());
            assertEquals(size, acceptedWrites.get());
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void shortWritesInNonBlockingMode(Impl impl) throws Exception {
        for (boolean direct : new boolean[] {false, true}) {
            int seed = direct ? 7 : 8;
            try (Pair p = Pair.open(impl)) {
                p.client.configureBlocking(false);
                p.accepted.configureBlocking(false);
                p.client.setOption(StandardSocketOptions.SO_SNDBUF, 64 * 1024);
                ByteBuffer src = Bytes.pattern(0, 8 << 20, seed, direct);
                long written = 0;
                boolean shortWrite = false;
                while (true) {
                    int before = src.position();
                    int n = p.client.write(src);
                    assertEquals(before + n, src.position(), "the position moves by what write returns");
                    if (n == 0) {
                        break;
                    }
                    shortWrite |= src.hasRemaining();
                    written += n;
                }
                assertTrue(shortWrite, "8 MiB cannot fit in the buffers of a connection nobody reads");
                assertTrue(written > 0 && written < src.limit(), "written: " + written);
                Bytes.readAndCheck(p.accepted, 0, written, seed, !direct);
                p.client.shutdownOutput();
                Bytes.assertEndOfStream(p.accepted, "exactly what the writes reported went out");
            }
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void endOfStream(Impl impl) throws Exception {
        try (Pair p = Pair.open(impl)) {
            assertEquals(2, p.accepted.write(ByteBuffer.wrap(new byte[] {1, 2})));
            p.accepted.shutdownOutput();
            ByteBuffer buf = ByteBuffer.allocate(8);
            assertEquals(2, p.client.read(buf), "the data before the end");
            assertEquals(-1, p.client.read(buf), "blocking read at the end");
            assertEquals(-1, p.client.read(ByteBuffer.allocateDirect(8)), "and again");
            assertEquals(-1, p.client.read(new ByteBuffer[] {ByteBuffer.allocate(1)}), "scattering read");
            p.client.configureBlocking(false);
            assertEquals(-1, p.client.read(buf), "non-blocking read at the end");
            assertEquals(2, buf.position(), "nothing was put in the buffer");
            assertEquals(3, p.client.write(ByteBuffer.wrap(new byte[] {1, 2, 3})), "the other way is still open");
            Bytes.assertReads(p.accepted, new byte[] {1, 2, 3});
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void endOfStreamAfterThePeerCloses(Impl impl) throws Exception {
        try (Pair p = Pair.open(impl)) {
            p.accepted.close();
            assertEquals(-1, p.client.read(ByteBuffer.allocate(8)));
            assertEquals(-1, p.client.read(ByteBuffer.allocate(8)));
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void shutdownInput(Impl impl) throws Exception {
        try (Pair p = Pair.open(impl)) {
            assertEquals(3, p.accepted.write(ByteBuffer.wrap(new byte[] {1, 2, 3})));
            assertEquals(p.client, p.client.shutdownInput());
            ByteBuffer buf = ByteBuffer.allocate(8);
            assertEquals(-1, p.client.read(buf), "input shut down: end of stream, even with data waiting");
            assertEquals(-1, p.client.read(new ByteBuffer[] {buf}));
            assertEquals(0, buf.position());
            p.client.configureBlocking(false);
            assertEquals(-1, p.client.read(buf));
            p.client.configureBlocking(true);
            assertEquals(p.client, p.client.shutdownInput(), "a second shutdown does nothing");
            assertTrue(p.client.socket().isInputShutdown());
            assertFalse(p.client.socket().isOutputShutdown());
            assertEquals(2, p.client.write(ByteBuffer.wrap(new byte[] {4, 5})), "output is still open");
            Bytes.assertReads(p.accepted, new byte[] {4, 5});
            assertTrue(p.client.isConnected());
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void shutdownOutput(Impl impl) throws Exception {
        try (Pair p = Pair.open(impl); Pair twin = Pair.open(Impl.JDK)) {
            assertEquals(p.client, p.client.shutdownOutput());
            twin.client.shutdownOutput();
            assertEquals(-1, p.accepted.read(ByteBuffer.allocate(8)), "the peer sees the end");
            for (boolean blocking : new boolean[] {true, false}) {
                p.client.configureBlocking(blocking);
                twin.client.configureBlocking(blocking);
                assertNoWrite(p.client, twin.client, ch -> ch.write(ByteBuffer.allocate(4)), "write");
                assertNoWrite(p.client, twin.client, ch -> ch.write(ByteBuffer.allocateDirect(4)), "direct write");
                assertNoWrite(p.client, twin.client, ch -> ch.write(ByteBuffer.allocate(0)), "empty write");
                assertNoWrite(p.client, twin.client, ch -> ch.write(new ByteBuffer[] {ByteBuffer.allocate(4)}),
                        "gathering write");
            }
            p.client.configureBlocking(true);
            assertEquals(p.client, p.client.shutdownOutput(), "a second shutdown does nothing");
            assertTrue(p.client.socket().isOutputShutdown());
            assertFalse(p.client.socket().isInputShutdown());
            assertEquals(2, p.accepted.write(ByteBuffer.wrap(new byte[] {4, 5})), "input is still open");
            Bytes.assertReads(p.client, new byte[] {4, 5});
            assertTrue(p.client.isOpen());
        }
    }

    /**
     * A write after shutdownOutput throws a ClosedChannelException; the JDK's is its subclass
     * AsynchronousCloseException, and lean channels' must be the same class.
     */
    private static void assertNoWrite(SocketChannel ch, SocketChannel twin, ConnectStateTest.ChannelCall write,
            String what) {
        assertThrows(ClosedChannelException.class, () -> write.call(ch), what);
        assertEquals(Outcome.of(() -> write.call(twin)), Outcome.of(() -> write.call(ch)), what);
    }

    /**
     * Non-blocking writes, one after another, while another thread shuts the output down: the
     * write that the shutdown overtakes, whose send fails with EPIPE, throws what a write after
     * the shutdown throws, AsynchronousCloseException, and not the send's "Broken pipe"; single
     * and gathering writes in turn, round after round, so that the shutdown lands inside a send.
     * The JDK's channel mostly does so too, but it looks for the shutdown without its state lock,
     * and when that look comes between the shutdown's system call and its marking the output
     * shut, its write says "Broken pipe" (seen in about one round in a hundred); a lean channel
     * waits for the mark.
     */
    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void nonBlockingWriteOvertakenByShutdownOutput(Impl impl) throws Exception {
        for (int round = 0; round < 200; round++) {
            try (Pair p = Pair.open(impl)) {
                p.client.configureBlocking(false);
                CyclicBarrier together = new CyclicBarrier(2);
                boolean gathering = round % 2 == 1;
                try (BlockedCall<Throwable> writes = BlockedCall.start(() -> {
                    together.await();
                    ByteBuffer one = ByteBuffer.allocate(1);
                    ByteBuffer[] ones = {one};
                    try {
                        for (;;) {
                            if (gathering) {
                                p.client.write(ones);
                            } else {
                                p.client.write(one);
                            }
                            one.clear();
                        }
                    } catch (IOException e) {
                        return e;
                    }
                })) {
                    together.await();
                    p.client.shutdownOutput();
                    Throwable e = writes.get();
                    if (impl == Impl.JDK && e.getClass() == IOException.class) {
                        assertEquals("Broken pipe", e.getMessage(), "round " + round);
                    } else {
                        assertSame(AsynchronousCloseException.class, e.getClass(), "round " + round + ": " + e);
                    }
                }
            }
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void resetByThePeer(Impl impl) throws Exception {
        for (boolean blocking : new boolean[] {true, false}) {
            try (Pair p = Pair.open(impl)) {
                p.resetByAccepted();
                p.client.configureBlocking(blocking);
                SocketException e = assertThrows(SocketException.class, () -> p.client.read(ByteBuffer.allocate(8)));
                assertEquals("Connection reset", e.getMessage());
                e = assertThrows(SocketException.class, () -> p.client.read(ByteBuffer.allocateDirect(8)),
                        "a reset connection stays reset");
                assertEquals("Connection reset", e.getMessage());
                assertTrue(p.client.isOpen(), "a reset does not close the channel");
                IOException w = assertThrows(IOException.class, () -> p.client.write(ByteBuffer.allocate(8)));
                assertEquals("Broken pipe", w.getMessage());
                assertTrue(p.client.isOpen());
            }
        }
    }

    /** Once the input is shut down, a read gives the end of the stream, reset or not, in either mode. */
    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void aShutdownInputAfterAResetGivesTheEndOfTheStream(Impl impl) throws Exception {
        for (boolean blocking : new boolean[] {true, false}) {
            try (Pair p = Pair.open(impl)) {
                p.resetByAccepted();
                p.client.configureBlocking(blocking);
                assertThrows(SocketException.class, () -> p.client.read(ByteBuffer.allocate(8)));
                p.client.shutdownInput();
                assertEquals(-1, p.client.read(ByteBuffer.allocate(8)), "blocking: " + blocking);
                assertEquals(-1, p.client.read(new ByteBuffer[] {ByteBuffer.allocate(8)}), "blocking: " + blocking);
            }
        }
    }

    /**
     * A scattering read returns the bytes that arrived before a reset, as one readv does, whatever
     * the buffers; the next read throws the reset.
     */
    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void aScatteringReadReturnsWhatArrivedBeforeAReset(Impl impl) throws Exception {
        List<ByteBuffer[]> kinds = List.of(
                new ByteBuffer[] {ByteBuffer.allocate(10), ByteBuffer.allocate(10)},
                new ByteBuffer[] {ByteBuffer.allocateDirect(10), ByteBuffer.allocateDirect(10)},
                new ByteBuffer[] {ByteBuffer.allocate(10), ByteBuffer.allocateDirect(10)});
        for (ByteBuffer[] buffers : kinds) {
            try (Pair p = Pair.open(impl)) {
                p.accepted.write(Bytes.pattern(0, 10, 7, false));
                p.resetByAccepted();
                assertEquals(10, p.client.read(buffers), "the bytes before the reset, into " + List.of(buffers));
                assertFalse(buffers[0].hasRemaining());
                p.client.configureBlocking(true);
                SocketException e = assertThrows(SocketException.class, () -> p.client.read(ByteBuffer.allocate(8)));
                assertEquals("Connection reset", e.getMessage());
            }
        }
    }

    /**
     * A blocking write that the peer's reset ends after some bytes went returns their count, as one
     * blocking send does; the next write throws.
     */
    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void aBlockingWriteEndedByAResetReturnsWhatItSent(Impl impl) throws Exception {
        try (Pair p = Pair.open(impl)) {
            // Small buffers, so that the write waits however large the system's are.
            p.client.setOption(StandardSocketOptions.SO_SNDBUF, 64 * 1024);
            p.accepted.setOption(StandardSocketOptions.SO_RCVBUF, 64 * 1024);
            ByteBuffer big = ByteBuffer.allocate(32 << 20);
            try (BlockedCall<Integer> call = BlockedCall.start(() -> p.client.write(big))) {
                call.awaitBlockedIn(p.client);
                p.accepted.setOption(StandardSocketOptions.SO_LINGER, 0);
                p.accepted.close();
                int n = call.get();
                assertTrue(n > 0 && n < big.capacity(), "wrote " + n);
                assertEquals(big.position(), n);
            }
            assertThrows(IOException.class, () -> p.client.write(ByteBuffer.allocate(8)));
        }
    }

    /**
     * A write learns of a reset in the system's words, as the JDK's do: an IOException "Connection
     * reset by peer", where a read throws SocketException "Connection reset"; every way of
     * writing, on a connection of its own.
     */
    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void writeAfterThePeerReset(Impl impl) throws Exception {
        List<ConnectStateTest.ChannelCall> writes = List.of(
                ch -> ch.write(ByteBuffer.allocate(8)),
                ch -> ch.write(ByteBuffer.allocateDirect(8)),
                ch -> ch.write(new ByteBuffer[] {ByteBuffer.allocate(8), ByteBuffer.allocateDirect(8)}),
                ch -> {
                    ch.configureBlocking(true);
                    ch.socket().getOutputStream().write(1);
                    return null;
                });
        for (int i = 0; i < writes.size(); i++) {
            ConnectStateTest.ChannelCall write = writes.get(i);
            try (Pair p = Pair.open(impl)) {
                p.resetByAccepted();
                assertEquals("java.io.IOException: Connection reset by peer", Outcome.of(() -> write.call(p.client)),
                        "write " + i);
                assertEquals("java.io.IOException: Broken pipe", Outcome.of(() -> write.call(p.client)),
                        "write " + i + " again");
                assertEquals(-1, p.client.read(ByteBuffer.allocate(8)), "then a read sees the end of the stream");
                assertTrue(p.client.isOpen());
            }
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void readAndWriteOnClosedChannels(Impl impl) throws Exception {
        try (Pair p = Pair.open(impl)) {
            for (SocketChannel ch : new SocketChannel[] {p.client, p.accepted}) {
                ch.close();
                for (boolean direct : new boolean[] {false, true}) {
                    ByteBuffer buf = direct ? ByteBuffer.allocateDirect(4) : ByteBuffer.allocate(4);
                    assertSame(ClosedChannelException.class, assertThrows(ClosedChannelException.class,
                            () -> ch.read(buf)).getClass());
                    assertSame(ClosedChannelException.class, assertThrows(ClosedChannelException.class,
                            () -> ch.write(buf)).getClass());
                    assertSame(ClosedChannelException.class, assertThrows(ClosedChannelException.class,
                            () -> ch.read(new ByteBuffer[] {buf})).getClass());
                    assertSame(ClosedChannelException.class, assertThrows(ClosedChannelException.class,
                            () -> ch.write(new ByteBuffer[] {buf}, 0, 1)).getClass());
                }
            }
        }
    }
}
