/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.lean;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Byte patterns whose every byte depends on its offset in the stream, so that a lost, repeated or
 * reordered byte shows, and the reads that check them.
 */
final class Bytes {

    private Bytes() {
    }

    /** The byte at {@code offset} of the stream that {@code seed} names. */
    static byte at(long offset, int seed) {
        long x = offset * 0x9E3779B97F4A7C15L + seed;
        return (byte) (x ^ (x >>> 29) ^ (x >>> 47));
    }

    /** {@code length} bytes of the stream from {@code offset} on, in a heap or direct buffer. */
    static ByteBuffer pattern(long offset, int length, int seed, boolean direct) {
        ByteBuffer b = direct ? ByteBuffer.allocateDirect(length) : ByteBuffer.allocate(length);
        for (int i = 0; i < length; i++) {
            b.put(i, at(offset + i, seed));
        }
        return b;
    }

    /**
     * Makes {@code ch} non-blocking and writes the pattern of {@code seed} from offset 0 until the
     * socket takes no more, not even after a second's pause: the acknowledgements of what was
     * sent last free room for a while after a write first takes nothing, and a later write, of
     * one byte say, would go through. Returns the bytes the socket took.
     */
    static long fillUntilFull(SocketChannel ch, int seed) throws IOException, InterruptedException {
        ch.configureBlocking(false);
        ByteBuffer src = pattern(0, 64 << 20, seed, false);
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(BlockedCall.WAIT_MS);
        do {
            while (src.hasRemaining() && ch.write(src) > 0) {
                // the socket took some: try again
            }
            assertTrue(src.hasRemaining(), "64 MiB did not fill the socket's buffers");
            assertTrue(System.nanoTime() < deadline, "the socket's buffers never stayed full");
            Thread.sleep(1000);
        } while (ch.write(src) > 0);
        return src.position();
    }

    static byte[] array(long offset, int length, int seed) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = at(offset + i, seed);
        }
        return b;
    }

    /**
     * Reads exactly {@code length} bytes (blocking or not) and checks they are the stream's from
     * {@code offset} on; fails on end of stream or when they do not come within the wait.
     */
    static void readAndCheck(ReadableByteChannel ch, long offset, long length, int seed, boolean direct)
            throws IOException {
        ByteBuffer buf = direct ? ByteBuffer.allocateDirect(64 * 1024) : ByteBuffer.allocate(64 * 1024);
        long done = 0;
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(BlockedCall.WAIT_MS);
        boolean blocking = !(ch instanceof SelectableChannel) || ((SelectableChannel) ch).isBlocking();
        while (done < length) {
            buf.clear().limit((int) Math.min(buf.capacity(), length - done));
            int n = ch.read(buf);
            if (n < 0) {
                fail("end of stream after " + done + " of " + length + " bytes");
            }
            if (n == 0) {
                if (blocking) {
                    fail("a blocking read returned 0");
                }
                if (System.nanoTime() > deadline) {
                    fail(done + " of " + length + " bytes arrived within " + BlockedCall.WAIT_MS + " ms");
                }
                LockSupport.parkNanos(200_000);
                continue;
            }
            for (int i = 0; i < n; i++) {
                if (buf.get(i) != at(offset + done + i, seed)) {
                    fail("byte " + (offset + done + i) + " of the stream is wrong");
                }
            }
            done += n;
        }
        assertEquals(length, done);
    }

    /** Reads (blocking or not) exactly these bytes. */
    static void assertReads(ReadableByteChannel ch, byte[] expected) throws IOException {
        ByteBuffer buf = ByteBuffer.allocate(expected.length);
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(BlockedCall.WAIT_MS);
        while (buf.hasRemaining()) {
            if (ch.read(buf) < 0) {
                fail("end of stream after " + buf.position() + " of " + expected.length + " bytes");
            }
            if (System.nanoTime() > deadline) {
                fail(buf.position() + " of " + expected.length + " bytes arrived within " + BlockedCall.WAIT_MS
                        + " ms");
            }
        }
        assertArrayEquals(expected, buf.array());
    }

    /** A non-blocking channel reads end of stream, and nothing before it, within the wait. */
    static void assertEndOfStream(ReadableByteChannel ch, String what) throws IOException {
        ByteBuffer buf = ByteBuffer.allocate(1);
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(BlockedCall.WAIT_MS);
        while (true) {
            int n = ch.read(buf);
            if (n < 0) {
                return;
            }
            if (n > 0) {
                fail(what + ": a byte more than expected");
            }
            if (System.nanoTime() > deadline) {
                fail(what + ": no end of stream within " + BlockedCall.WAIT_MS + " ms");
            }
            LockSupport.parkNanos(200_000);
        }
    }

    /**
     * Waits until the non-blocking channel has something to read (data, end of stream or an
     * error), as a selector of the channel's own provider sees it.
     */
    static void awaitReadable(SelectableChannel ch) throws IOException {
        try (Selector selector = ch.provider().openSelector()) {
            ch.register(selector, SelectionKey.OP_READ);
            if (selector.select(BlockedCall.WAIT_MS) != 1) {
                fail("nothing to read within " + BlockedCall.WAIT_MS + " ms");
            }
        }
    }
}
