/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.lean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Buffers that view a memory segment (MemorySegment.asByteBuffer): once the arena is closed a read
 * or write fails with IllegalStateException, as the JDK's channels fail, rather than have the kernel
 * use freed memory; while it is open, bytes go both ways, alone and among direct buffers.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class SegmentBufferTest {

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void closedArenaFailsReadAndWrite(Impl impl) throws Exception {
        assumeTrue(Segments.available(), Segments.UNAVAILABLE);
        try (Pair p = Pair.open(impl)) {
            ByteBuffer buffer = Segments.closedArenasBuffer(1000);
            assertThrows(IllegalStateException.class, () -> p.client.write(buffer), "write from a closed arena");

            byte[] sent = Bytes.array(0, 100, 1);
            assertEquals(100, p.accepted.write(ByteBuffer.wrap(sent)));
            assertThrows(IllegalStateException.class, () -> p.client.read(buffer), "read into a closed arena");
            Bytes.assertReads(p.client, sent);
        }
    }

    /**
     * A closed arena's buffer after a live one in a gathering write or a scattering read fails the
     * call before the live one moves a byte: nothing sent, nothing taken from the socket.
     */
    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void closedArenaAmongBuffersFailsBeforeAnyMoves(Impl impl) throws Exception {
        assumeTrue(Segments.available(), Segments.UNAVAILABLE);
        try (Pair p = Pair.open(impl)) {
            ByteBuffer closed = Segments.closedArenasBuffer(100);
            ByteBuffer head = Bytes.pattern(0, 100, 4, true);
            assertThrows(IllegalStateException.class, () -> p.client.write(new ByteBuffer[] {head, closed}),
                    "gathering write from a closed arena");
            assertEquals(0, head.position(), "bytes of the live buffer were written");

            byte[] sent = Bytes.array(0, 100, 5);
            assertEquals(100, p.accepted.write(ByteBuffer.wrap(sent)));
            ByteBuffer first = ByteBuffer.allocate(50);
            assertThrows(IllegalStateException.class, () -> p.client.read(new ByteBuffer[] {first, closed}),
                    "scattering read into a closed arena");
            assertEquals(0, first.position(), "bytes were read into the live buffer");
            Bytes.assertReads(p.client, sent);
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void liveSegmentBuffersBothWays(Impl impl) throws Exception {
        assumeTrue(Segments.available(), Segments.UNAVAILABLE);
        try (Pair p = Pair.open(impl); AutoCloseable arena = Segments.openArena()) {
            ByteBuffer src = Segments.buffer(arena, 1000).put(Bytes.array(0, 1000, 2)).flip();
            assertEquals(1000, p.client.write(src));
            ByteBuffer dst = Segments.buffer(arena, 1000);
            readFully(p.accepted, new ByteBuffer[] {dst});
            assertEquals(Bytes.pattern(0, 1000, 2, false), dst.flip());

            ByteBuffer first = Bytes.pattern(0, 300, 3, true);
            ByteBuffer second = Segments.buffer(arena, 700).put(Bytes.array(300, 700, 3)).flip();
            assertEquals(1000, p.accepted.write(new ByteBuffer[] {first, second}));
            ByteBuffer[] dsts = {Segments.buffer(arena, 500), ByteBuffer.allocateDirect(500)};
            readFully(p.client, dsts);
            assertEquals(Bytes.pattern(0, 500, 3, false), dsts[0].flip());
            assertEquals(Bytes.pattern(500, 500, 3, false), dsts[1].flip());
        }
    }

    /** Reads into {@code dsts}, one by one when there is one, until they are full. */
    private static void readFully(SocketChannel ch, ByteBuffer[] dsts) throws IOException {
        ByteBuffer last = dsts[dsts.length - 1];
        while (last.hasRemaining()) {
            long n = dsts.length == 1 ? ch.read(last) : ch.read(dsts);
            if (n < 0) {
                fail("end of stream");
            }
        }
    }

    /**
     * Shared arenas and their segments' buffers, reached through method handles because the tests
     * compile for Java 17. The foreign memory API is final in Java 22 (a preview in 21, which these
     * tests leave alone).
     */
    private static final class Segments {

        static final String UNAVAILABLE = "the foreign memory API needs Java 22 or later; this is Java "
                + Runtime.version().feature();

        private static final MethodHandle OF_SHARED;
        private static final MethodHandle ALLOCATE;
        private static final MethodHandle AS_BYTE_BUFFER;

        static {
            MethodHandle ofShared = null;
            MethodHandle allocate = null;
            MethodHandle asByteBuffer = null;
            if (Runtime.version().feature() >= 22) {
                try {
                    MethodHandles.Lookup lookup = MethodHandles.publicLookup();
                    Class<?> arena = Class.forName("java.lang.foreign.Arena");
                    Class<?> segment = Class.forName("java.lang.foreign.MemorySegment");
                    ofShared = lookup.findStatic(arena, "ofShared", MethodType.methodType(arena));
                    allocate = lookup.findVirtual(arena, "allocate", MethodType.methodType(segment, long.class));
                    asByteBuffer = lookup.findVirtual(segment, "asByteBuffer", MethodType.methodType(ByteBuffer.class));
                } catch (ReflectiveOperationException e) {
                    throw new ExceptionInInitializerError(e);
                }
            }
            OF_SHARED = ofShared;
            ALLOCATE = allocate;
            AS_BYTE_BUFFER = asByteBuffer;
        }

        private Segments() {
        }

        static boolean available() {
            return OF_SHARED != null;
        }

        /** A new shared arena (an Arena, which is AutoCloseable). */
        static AutoCloseable openArena() {
            try {
                return (AutoCloseable) OF_SHARED.invoke();
            } catch (Throwable e) {
                throw new AssertionError("cannot open a shared arena", e);
            }
        }

        /** A buffer that views a segment of {@code bytes} in an arena closed since. */
        static ByteBuffer closedArenasBuffer(int bytes) throws Exception {
            AutoCloseable arena = openArena();
            ByteBuffer buffer = buffer(arena, bytes);
            arena.close();
            return buffer;
        }

        /** A direct buffer that views a new segment of {@code bytes} in {@code arena}. */
        static ByteBuffer buffer(AutoCloseable arena, int bytes) {
            try {
                return (ByteBuffer) AS_BYTE_BUFFER.invoke(ALLOCATE.invoke(arena, (long) bytes));
            } catch (Throwable e) {
                throw new AssertionError("cannot allocate a segment", e);
            }
        }
    }
}
