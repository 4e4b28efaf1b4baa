/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.lean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.github.nativeselector.support.RaceSupport;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Scattering reads and gathering writes: offsets and lengths (good and bad), mixed heap and
 * direct buffers, partial and empty ones, more buffers than one system call takes, large and
 * short transfers.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ScatterGatherTest {

    /** {offset, length} pairs out of range for an array of 4 buffers. */
    private static final int[][] BAD_RANGES = {
        {-1, 1}, {0, -1}, {0, 5}, {4, 1}, {1, 4}, {5, 0}, {Integer.MAX_VALUE, 1}, {1, Integer.MAX_VALUE},
        {Integer.MIN_VALUE, 0},
    };

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void badOffsetsAndLengths(Impl impl) throws Exception {
        try (Pair p = Pair.open(impl); SocketChannel unconnected = impl.openSocket()) {
            SocketChannel closed = impl.openSocket();
            closed.close();
            for (SocketChannel ch : new SocketChannel[] {p.client, unconnected, closed}) {
                ByteBuffer[] buffers = {ByteBuffer.allocate(4), ByteBuffer.allocateDirect(4), ByteBuffer.allocate(4),
                    ByteBuffer.allocate(4)};
                for (int[] range : BAD_RANGES) {
                    String what = "offset " + range[0] + ", length " + range[1] + " on " + ch;
                    assertThrows(IndexOutOfBoundsException.class, () -> ch.read(buffers, range[0], range[1]), what);
                    assertThrows(IndexOutOfBoundsException.class, () -> ch.write(buffers, range[0], range[1]), what);
                }
            }
            assertTrue(p.client.isOpen(), "bad ranges do not close the channel");
            assertTrue(p.client.isConnected());
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void emptyRanges(Impl impl) throws Exception {
        try (Pair p = Pair.open(impl)) {
            ByteBuffer[] buffers = {ByteBuffer.allocate(4), ByteBuffer.allocate(4)};
            assertEquals(0, p.client.write(buffers, 2, 0), "nothing to write: no wait");
            assertEquals(0, p.client.read(buffers, 0, 0), "nothing to read into: no wait");
            assertEquals(0, p.client.write(new ByteBuffer[0]));
            assertEquals(0, p.client.read(new ByteBuffer[0]));
            ByteBuffer[] empties = {ByteBuffer.allocate(0), ByteBuffer.allocateDirect(0)};
            assertEquals(0, p.client.write(empties));
            assertEquals(0, p.client.read(empties));
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void nullBuffers(Impl impl) throws Exception {
        try (Pair p = Pair.open(impl)) {
            assertThrows(NullPointerException.class, () -> p.client.read((ByteBuffer[]) null));
            assertThrows(NullPointerException.class, () -> p.client.write((ByteBuffer[]) null));
            assertThrows(NullPointerException.class, () -> p.client.read((ByteBuffer[]) null, 0, 0));
            assertThrows(NullPointerException.class,
                    () -> p.client.write(new ByteBuffer[] {ByteBuffer.allocate(1), null}));
            assertThrows(NullPointerException.class,
                    () -> p.client.read(new ByteBuffer[] {null, ByteBuffer.allocate(1)}));
            ByteBuffer one = Bytes.pattern(0, 1, 9, false);
            assertEquals(1, p.client.write(new ByteBuffer[] {null, one, null}, 1, 1),
                    "nulls outside the range are fine");
            ByteBuffer into = ByteBuffer.allocate(1);
            assertEquals(1, p.accepted.read(new ByteBuffer[] {null, into}, 1, 1));
            assertEquals(Bytes.at(0, 9), into.get(0));
            assertTrue(p.client.isOpen());
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void readOnlyBufferAmongScatterTargets(Impl impl) throws Exception {
        try (Pair p = Pair.open(impl)) {
            ByteBuffer[] targets = {ByteBuffer.allocate(4), ByteBuffer.allocate(4).asReadOnlyBuffer()};
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> p.client.read(targets));
            assertEquals("Read-only buffer", e.getMessage());
            ByteBuffer[] outside = {ByteBuffer.allocate(4).asReadOnlyBuffer(), ByteBuffer.allocate(4)};
            assertEquals(2, p.accepted.write(ByteBuffer.wrap(new byte[] {1, 2})));
            assertEquals(2, p.client.read(outside, 1, 1), "a read-only buffer outside the range is not looked at");
        }
    }

    /**
     * A scattering read whose caller's array is given other buffers while it runs (a race of the
     * caller's): the read fills the buffers it took, never a read-only buffer put in their place.
     */
    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void scatterTargetsSwappedDuringReads(Impl impl) throws Exception {
        try (Pair p = Pair.open(impl)) {
            ByteBuffer guarded = ByteBuffer.allocateDirect(64);
            ByteBuffer readOnly = guarded.asReadOnlyBuffer();
            ByteBuffer writable = ByteBuffer.allocateDirect(64);
            ByteBuffer first = ByteBuffer.allocateDirect(1);
            ByteBuffer[] targets = {first, writable};
            AtomicBoolean done = new AtomicBoolean();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            RaceSupport.start("writer", failure, () -> {
                ByteBuffer chunk = ByteBuffer.allocateDirect(64 * 1024);
                for (int i = 0; i < chunk.capacity(); i++) {
                    chunk.put(i, (byte) 7);
                }
                while (!done.get()) {
                    chunk.clear();
                    p.accepted.write(chunk);
                }
            });
            Thread swapper = RaceSupport.start("swapper", failure, () -> {
                while (!done.get()) {
                    targets[1] = readOnly;
                    targets[1] = writable;
                }
            });
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
            int reads = 0;
            try {
                while (System.nanoTime() < deadline) {
                    first.clear();
                    writable.clear();
                    readOnly.clear();
                    try {
                        p.client.read(targets);
                    } catch (IllegalArgumentException e) {
                        assertEquals("Read-only buffer", e.getMessage());
                    }
                    reads++;
                }
            } finally {
                done.set(true);
                RaceSupport.joinWithin(swapper, "the swapper");
            }
            assertTrue(reads > 0);
            for (int i = 0; i < guarded.capacity(); i++) {
                assertEquals(0, guarded.get(i), "a read wrote into a read-only buffer, at byte " + i + " after " + reads + " reads");
            }
            if (failure.get() != null) {
                fail(failure.get());
            }
        }
    }

    /** A buffer given twice in one gathering write is sent twice, and ends where one pass over it ends. */
    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void bufferGivenTwiceInOneGatheringWrite(Impl impl) throws Exception {
        try (Pair p = Pair.open(impl)) {
            ByteBuffer twice = ByteBuffer.allocateDirect(12);
            for (int i = 0; i < twice.capacity(); i++) {
                twice.put(i, (byte) i);
            }
            twice.position(2).limit(10);
            assertEquals(16, p.client.write(new ByteBuffer[] {twice, twice}));
            assertEquals(10, twice.position());
            ByteBuffer received = ByteBuffer.allocate(16);
            while (received.hasRemaining()) {
                assertTrue(p.accepted.read(received) > 0);
            }
            for (int i = 0; i < 16; i++) {
                assertEquals(2 + i % 8, received.get(i), "byte " + i);
            }
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void scatterFillsBuffersInOrder(Impl impl) throws Exception {
        try (Pair p = Pair.open(impl)) {
            int seed = 10;
            assertEquals(20, p.accepted.write(Bytes.pattern(0, 20, seed, false)));
            ByteBuffer unused = ByteBuffer.allocate(4);
            ByteBuffer a = ByteBuffer.allocate(3);
            ByteBuffer full = ByteBuffer.allocate(5).position(5);
            ByteBuffer b = ByteBuffer.allocateDirect(10).position(2).limit(6);
            ByteBuffer c = ByteBuffer.wrap(new byte[40]).position(7).slice();
            ByteBuffer[] targets = {unused, a, full, b, c, ByteBuffer.allocate(4)};
            long n = p.client.read(targets, 1, 4);
            assertEquals(20, n, "all twenty bytes fit in the range");
            assertEquals(0, unused.position(), "outside the range");
            assertEquals(0, targets[5].position(), "outside the range");
            assertEquals(3, a.position());
            assertEquals(5, full.position());
            assertEquals(6, b.position());
            assertEquals(13, c.position());
            long offset = 0;
            for (ByteBuffer target : new ByteBuffer[] {a, b, c}) {
                int from = target == b ? 2 : 0;
                for (int i = from; i < target.position(); i++) {
                    assertEquals(Bytes.at(offset++, seed), target.get(i), "stream byte " + (offset - 1));
                }
            }
            assertEquals(20, offset);
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void gatherWritesTheRangeOnly(Impl impl) throws Exception {
        try (Pair p = Pair.open(impl)) {
            int seed = 11;
            ByteBuffer skipped = Bytes.pattern(0, 4, 99, false);
            ByteBuffer[] pieces = new ByteBuffer[5];
            pieces[0] = skipped;
            // stream bytes 0..2 at the end of a buffer, 3..6 filling one, 7..10 in a slice's middle
            pieces[1] = Bytes.pattern(-5, 8, seed, false).position(5);
            pieces[2] = Bytes.pattern(3, 4, seed, true);
            pieces[3] = Bytes.pattern(5, 8, seed, false).position(2).limit(6).slice();
            pieces[4] = Bytes.pattern(0, 4, 98, true);
            assertEquals(11, p.client.write(pieces, 1, 3));
            assertEquals(0, pieces[0].position());
            assertFalse(pieces[1].hasRemaining());
            assertFalse(pieces[2].hasRemaining());
            assertFalse(pieces[3].hasRemaining());
            assertEquals(0, pieces[4].position());
            Bytes.readAndCheck(p.accepted, 0, 11, seed, false);
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void moreBuffersThanOneSystemCallTakes(Impl impl) throws Exception {
        int count = 3000;
        try (Pair p = Pair.open(impl)) {
            int seed = 12;
            ByteBuffer[] pieces = new ByteBuffer[count];
            for (int i = 0; i < count; i++) {
                pieces[i] = Bytes.pattern(i, 1, seed, i % 2 == 0);
            }
            long written = 0;
            while (written < count) {
                long n = p.client.write(pieces);
                assertTrue(n > 0, "a blocking gathering write writes something");
                written += n;
            }
            assertEquals(count, written);
            ByteBuffer[] targets = new ByteBuffer[count];
            for (int i = 0; i < count; i++) {
                targets[i] = i % 3 == 0 ? ByteBuffer.allocateDirect(1) : ByteBuffer.allocate(1);
            }
            long read = 0;
            while (read < count) {
                long n = p.accepted.read(targets);
                assertTrue(n > 0, "a blocking scattering read reads something");
                read += n;
            }
            for (int i = 0; i < count; i++) {
                assertEquals(Bytes.at(i, seed), targets[i].get(0), "byte " + i);
            }
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void largeBlockingGatherWritesEverything(Impl impl) throws Exception {
        int piece = 2 << 20;
        try (Pair p = Pair.open(impl)) {
            int seed = 13;
            try (BlockedCall<Void> reader = BlockedCall.start(() -> {
                Bytes.readAndCheck(p.accepted, 0, 4L * piece, seed, true);
                return null;
            })) {
                ByteBuffer[] pieces = new ByteBuffer[4];
                for (int i = 0; i < 4; i++) {
                    pieces[i] = Bytes.pattern((long) i * piece, piece, seed, i % 2 == 1);
                }
                assertEquals(4L * piece, p.client.write(pieces), "a blocking gathering write writes every byte");
                reader.get();
            }
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void largeBlockingScatterRead(Impl impl) throws Exception {
        int piece = 1 << 20;
        try (Pair p = Pair.open(impl)) {
            int seed = 14;
            try (BlockedCall<Void> writer = BlockedCall.start(() -> {
                p.accepted.write(Bytes.pattern(0, 4 * piece, seed, false));
                return null;
            })) {
                ByteBuffer[] targets = {ByteBuffer.allocate(piece), ByteBuffer.allocateDirect(piece),
                    ByteBuffer.allocate(piece), ByteBuffer.allocateDirect(piece)};
                long read = 0;
                while (read < 4L * piece) {
                    long n = p.client.read(targets);
                    if (n <= 0) {
                        fail("scattering read returned " + n + " after " + read + " bytes");
                    }
                    read += n;
                }
                for (int i = 0; i < 4; i++) {
                    for (int j = 0; j < piece; j += 4093) {
                        assertEquals(Bytes.at((long) i * piece + j, seed), targets[i].get(j));
                    }
                }
                writer.get();
            }
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void shortGatherWritesInNonBlockingMode(Impl impl) throws Exception {
        try (Pair p = Pair.open(impl)) {
            int seed = 15;
            int piece = 1 << 20;
            p.client.configureBlocking(false);
            p.accepted.configureBlocking(false);
            p.client.setOption(StandardSocketOptions.SO_SNDBUF, 64 * 1024);
            ByteBuffer[] pieces = new ByteBuffer[8];
            for (int i = 0; i < 8; i++) {
                pieces[i] = Bytes.pattern((long) i * piece, piece, seed, i % 2 == 0);
            }
            long written = 0;
            boolean shortWrite = false;
            while (true) {
                long before = remaining(pieces);
                long n = p.client.write(pieces);
                assertEquals(before - n, remaining(pieces), "the positions move by what write returns");
                if (n == 0) {
                    break;
                }
                shortWrite |= remaining(pieces) > 0;
                written += n;
            }
            assertTrue(shortWrite, "8 MiB cannot fit in the buffers of a connection nobody reads");
            for (int i = 0; i < 8; i++) {
                long wrote = Math.min(piece, Math.max(0, written - (long) i * piece));
                assertEquals(wrote, pieces[i].position(), "buffer " + i + " is consumed in order");
            }
            Bytes.readAndCheck(p.accepted, 0, written, seed, false);
            p.client.shutdownOutput();
            Bytes.assertEndOfStream(p.accepted, "exactly what the writes reported went out");
        }
    }

    private static long remaining(ByteBuffer[] buffers) {
        long sum = 0;
        for (ByteBuffer b : buffers) {
            sum += b.remaining();
        }
        return sum;
    }
}
