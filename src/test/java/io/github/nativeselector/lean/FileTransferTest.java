/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.lean;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Files sent into a socket channel and received from one: {@code FileChannel.transferTo} and
 * {@code transferFrom}, and a file's stream copied into the socket's streams. The JDK hands its own
 * channels to {@code sendfile(2)} and copies into any other through a buffer of its own, so on lean
 * channels these take another path through the JDK than on its channels: the bytes must arrive
 * whole, once each and in order all the same, in blocking mode and where a non-blocking socket
 * takes only part of what the JDK read from the file.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class FileTransferTest {

    /** More than one of the JDK's 8 KiB copies, and more than a socket's buffers hold here. */
    private static final int LARGE = 24 << 20;

    @TempDir
    Path dir;

    private Path file(int length, int seed) throws Exception {
        Path file = Files.createTempFile(dir, "transfer", ".bin");
        Files.write(file, Bytes.array(0, length, seed));
        return file;
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void transferToBlockingSendsTheWholeFile(Impl impl) throws Exception {
        Path file = file(300_001, 11);
        try (Pair p = Pair.open(impl); FileChannel source = FileChannel.open(file, StandardOpenOption.READ);
                BlockedCall<Long> sending = BlockedCall.start(() -> {
                    long sent = 0;
                    while (sent < 300_001) {
                        sent += source.transferTo(sent, 300_001 - sent, p.accepted);
                    }
                    return sent;
                })) {
            Bytes.readAndCheck(p.client, 0, 300_001, 11, false);
            assertEquals(300_001L, sending.get());
            assertEquals(0, source.position(), "transferTo leaves the file's position alone");
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void transferToNonBlockingStopsWhereTheSocketIsFullAndLosesNothing(Impl impl) throws Exception {
        Path file = file(LARGE, 12);
        try (Pair p = Pair.open(impl); FileChannel source = FileChannel.open(file, StandardOpenOption.READ)) {
            p.accepted.configureBlocking(false);
            long first = source.transferTo(0, LARGE, p.accepted);
            assertTrue(first > 0 && first < LARGE, "one call sent " + first + " of " + LARGE + " bytes");
            Bytes.readAndCheck(p.client, 0, first, 12, true);
            long sent = first;
            long received = first;
            while (received < LARGE) {
                sent += source.transferTo(sent, LARGE - sent, p.accepted);
                Bytes.readAndCheck(p.client, received, sent - received, 12, true);
                received = sent;
            }
            assertEquals(LARGE, sent);
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void transferFromReadsTheSocketIntoTheFile(Impl impl) throws Exception {
        Path file = Files.createTempFile(dir, "received", ".bin");
        try (Pair p = Pair.open(impl); FileChannel sink = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ByteBuffer src = Bytes.pattern(0, 100_000, 13, false);
            while (src.hasRemaining()) {
                p.client.write(src);
            }
            p.client.shutdownOutput();
            long written = 0;
            long count;
            while ((count = sink.transferFrom(p.accepted, written, 1 << 20)) > 0) {
                written += count;
            }
            assertEquals(100_000, written);
            assertArrayEquals(Bytes.array(0, 100_000, 13), Files.readAllBytes(file));
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void aFilesStreamCopiedIntoTheSocketsStreams(Impl impl) throws Exception {
        Path file = file(200_003, 14);
        try (Pair p = Pair.open(impl)) {
            for (boolean adaptor : new boolean[] {true, false}) {
                OutputStream out = adaptor ? p.accepted.socket().getOutputStream() : Channels.newOutputStream(p.accepted);
                try (InputStream in = Files.newInputStream(file);
                        BlockedCall<Long> copying = BlockedCall.start(() -> in.transferTo(out))) {
                    Bytes.readAndCheck(p.client, 0, 200_003, 14, false);
                    assertEquals(200_003L, copying.get(), adaptor ? "socket().getOutputStream()" : "Channels.newOutputStream");
                }
            }
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void transferToAfterShutdownOutputFails(Impl impl) throws Exception {
        Path file = file(100_000, 15);
        try (Pair p = Pair.open(impl); FileChannel source = FileChannel.open(file, StandardOpenOption.READ)) {
            p.accepted.shutdownOutput();
            for (boolean blocking : new boolean[] {true, false}) {
                p.accepted.configureBlocking(blocking);
                // The JDK's sendfile meets EPIPE on 17 and 21; JDK 25, and the write of any other
                // channel (the JDK's own on 17 and 21 too), report the shut output as a close.
                Outcome.assertJdkOrOtherRelease("java.io.IOException: Broken pipe",
                        "java.nio.channels.AsynchronousCloseException: null",
                        Outcome.of(() -> source.transferTo(0, 100_000, p.accepted)), "blocking " + blocking);
            }
            assertTrue(p.accepted.isOpen());
            Bytes.assertEndOfStream(p.client, "the peer of a shut output");
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void transferToAfterTheConnectionIsResetFails(Impl impl) throws Exception {
        Path file = file(100_000, 16);
        try (Pair p = Pair.open(impl); FileChannel source = FileChannel.open(file, StandardOpenOption.READ)) {
            p.resetByClient();
            assertEquals("java.io.IOException: Connection reset by peer",
                    Outcome.of(() -> source.transferTo(0, 100_000, p.accepted)));
            assertEquals("java.io.IOException: Broken pipe", Outcome.of(() -> source.transferTo(0, 100_000, p.accepted)));
        }
    }
}
