/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.install;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.nativeselector.NativeSelectorProvider;
import io.github.nativeselector.SelectorStats;
import io.github.nativeselector.internal.NativeSelector;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** A plain single-threaded NIO echo server on our selector, and 100 blocking clients. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PlainEchoTest {

    private static final int CONNECTIONS = 100;
    private static final int MESSAGES = 10;
    private static final int CLIENT_THREADS = 20;

    private String savedBackend;
    private String savedThreshold;

    @BeforeEach
    void defaultSettings() {
        savedBackend = System.clearProperty("nativeselector.backend");
        savedThreshold = System.clearProperty("nativeselector.batchThreshold");
    }

    @AfterEach
    void restoreSettings() {
        if (savedBackend != null) {
            System.setProperty("nativeselector.backend", savedBackend);
        }
        if (savedThreshold != null) {
            System.setProperty("nativeselector.batchThreshold", savedThreshold);
        }
    }

    @ParameterizedTest(name = "selector from {0}")
    @ValueSource(strings = {"Selector.open()", "NativeSelectorProvider.provider().openSelector()"})
    void hundredConnectionsEchoEveryMessage(String source) throws Exception {
        Selector selector = source.equals("Selector.open()")
                ? Selector.open() : NativeSelectorProvider.provider().openSelector();
        if (!(selector instanceof NativeSelector)) {
            selector.close();
            assertInstanceOf(NativeSelector.class, selector, source + " did not give a native selector");
        }
        List<SocketChannel> clients = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(CLIENT_THREADS);
        long bytesSent = 0;
        EchoServer server = new EchoServer(selector);
        try {
            for (int i = 0; i < CONNECTIONS; i++) {
                SocketChannel client = SocketChannel.open();
                clients.add(client);
                client.connect(server.address());
            }
            List<Future<Long>> results = new ArrayList<>();
            for (int t = 0; t < CLIENT_THREADS; t++) {
                List<SocketChannel> mine = new ArrayList<>();
                for (int i = t; i < CONNECTIONS; i += CLIENT_THREADS) {
                    mine.add(clients.get(i));
                }
                long seed = t;
                results.add(pool.submit(() -> converse(mine, seed)));
            }
            for (Future<Long> result : results) {
                bytesSent += result.get(30, TimeUnit.SECONDS);
            }
            assertEquals(CONNECTIONS, server.accepted());
            // The server counts a write just after it returns, maybe after the client read the echo.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (server.bytesEchoed() != bytesSent && System.nanoTime() - deadline < 0) {
                Thread.sleep(1);
            }
            assertEquals(bytesSent, server.bytesEchoed());
        } finally {
            pool.shutdownNow();
            for (SocketChannel client : clients) {
                client.close(); // also unblocks a client stuck in read
            }
            assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS));
            if (!clients.isEmpty()) {
                // The server sees every client go and deregisters it: only its listening key stays.
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (server.registeredKeys() != 1 && System.nanoTime() - deadline < 0) {
                    Thread.sleep(10);
                }
            }
            server.close();
        }
        assertEquals(1, server.registeredKeys(), "keys left after every client closed");

        SelectorStats stats = server.finalStats().orElseThrow(() -> new AssertionError("no counters"));
        assertEquals("epoll", stats.backend());
        assertTrue(stats.polls() > 0, stats.toString());
        assertTrue(stats.readyEvents() >= (long) CONNECTIONS * MESSAGES,
                "every message of the ping-pong needs its own ready event: " + stats);
        assertTrue(stats.changesApplied() >= CONNECTIONS + 1, "one registration per channel at least: " + stats);
        assertTrue(stats.batches() > 0 && stats.kernelCallsForChanges() > 0, stats.toString());
        assertTrue(stats.kernelCallsForChanges() <= stats.changesApplied(), stats.toString());
        assertTrue(stats.wakeups() >= 1, "close woke the server up: " + stats);
        assertTrue(!selector.isOpen(), "the server closed its selector");
    }

    /** Each connection in turn sends a message and reads its echo, {@code MESSAGES} times. */
    private static long converse(List<SocketChannel> connections, long seed) throws IOException {
        Random random = new Random(seed);
        long sent = 0;
        for (int m = 0; m < MESSAGES; m++) {
            for (SocketChannel connection : connections) {
                byte[] message = new byte[m == MESSAGES - 1 ? 48 * 1024 : 1 + random.nextInt(8192)];
                random.nextBytes(message);
                ByteBuffer out = ByteBuffer.wrap(message);
                while (out.hasRemaining()) {
                    connection.write(out);
                }
                ByteBuffer in = ByteBuffer.allocate(message.length);
                while (in.hasRemaining()) {
                    if (connection.read(in) < 0) {
                        throw new EOFException("server closed after " + in.position() + " of " + message.length);
                    }
                }
                assertArrayEquals(message, in.array(), "echo of message " + m);
                sent += message.length;
            }
        }
        return sent;
    }
}
