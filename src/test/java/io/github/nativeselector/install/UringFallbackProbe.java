/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.install;

import io.github.nativeselector.SelectorStats;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.Pipe;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.spi.SelectorProvider;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Child-JVM main for {@link UringFallbackTest}: opens a selector with {@link Selector#open()}
 * (whatever {@code -Dnativeselector.backend} asks for), runs a pipe round trip through it, applies
 * one batch of {@value #BATCH} registrations, and prints {@code key=value} lines saying what it
 * got. Exit status 0 when all went well, 3 when {@code Selector.open()} threw, 4 when the round
 * trip or the batch failed.
 */
public final class UringFallbackProbe {

    private static final int ROUNDS = 5;
    private static final int BATCH = 10;

    private UringFallbackProbe() {
    }

    public static void main(String[] args) {
        System.out.println("provider=" + SelectorProvider.provider().getClass().getName());
        Selector selector;
        try {
            selector = Selector.open();
        } catch (IOException | RuntimeException e) {
            System.out.println("error=" + e.getClass().getName() + ": " + e.getMessage());
            System.out.flush();
            System.exit(3);
            return;
        }
        try (Selector s = selector) {
            System.out.println("selector=" + s.getClass().getName());
            System.out.println("backend=" + SelectorStats.of(s).map(SelectorStats::backend).orElse("none"));
            System.out.println("roundtrip=ok rounds=" + pipeRoundTrip(s));
            System.out.println("batchCalls=" + batchCalls(s));
        } catch (IOException | RuntimeException e) {
            System.out.println("roundtrip=failed " + e);
            System.out.flush();
            System.exit(4);
        }
        System.out.flush();
    }

    /** Sends ROUNDS messages through a pipe whose source is registered with {@code selector}. */
    static int pipeRoundTrip(Selector selector) throws IOException {
        Pipe pipe = Pipe.open();
        try (Pipe.SourceChannel source = pipe.source(); Pipe.SinkChannel sink = pipe.sink()) {
            source.configureBlocking(false);
            SelectionKey key = source.register(selector, SelectionKey.OP_READ);
            if (selector.selectNow() != 0) {
                throw new IOException("an empty pipe was selected");
            }
            for (int round = 0; round < ROUNDS; round++) {
                byte[] message = ("round " + round).getBytes(StandardCharsets.US_ASCII);
                sink.write(ByteBuffer.wrap(message));
                ByteBuffer in = ByteBuffer.allocate(message.length);
                long deadline = System.nanoTime() + 10_000_000_000L;
                while (in.hasRemaining()) {
                    if (System.nanoTime() - deadline > 0) {
                        throw new IOException("round " + round + ": nothing came through the selector in 10 s");
                    }
                    selector.select(1000);
                    if (selector.selectedKeys().remove(key) && key.isReadable()) {
                        source.read(in);
                    }
                }
                if (!Arrays.equals(message, in.array())) {
                    throw new IOException("round " + round + ": received something else than was sent");
                }
                if (selector.selectNow() != 0) {
                    throw new IOException("round " + round + ": a drained pipe was selected");
                }
            }
            key.cancel();
            selector.selectNow();
        }
        return ROUNDS;
    }

    /** The kernel calls that one batch of BATCH registrations, applied by a selectNow, took. */
    static long batchCalls(Selector selector) throws IOException {
        List<Pipe> pipes = new ArrayList<>();
        try {
            long before = SelectorStats.of(selector).orElseThrow().kernelCallsForChanges();
            for (int i = 0; i < BATCH; i++) {
                Pipe pipe = Pipe.open();
                pipes.add(pipe);
                pipe.source().configureBlocking(false);
                pipe.source().register(selector, SelectionKey.OP_READ);
            }
            selector.selectNow();
            return SelectorStats.of(selector).orElseThrow().kernelCallsForChanges() - before;
        } finally {
            for (Pipe pipe : pipes) {
                pipe.source().close();
                pipe.sink().close();
            }
        }
    }
}
