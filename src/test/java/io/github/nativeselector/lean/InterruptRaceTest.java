/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.lean;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.nativeselector.support.ContractChannels;
import io.github.nativeselector.support.ContractSupport;
import io.github.nativeselector.support.RaceSupport;
import java.io.IOException;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channel;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * An interrupt that reaches a thread busy in one short blocking operation after another, so that
 * it lands as often as not while the thread starts or ends an operation rather than while it
 * waits. The interrupt closes the channel from inside {@code Thread.interrupt}, which holds the
 * interrupted thread's interrupt lock all along; a close that waited there for that thread's
 * operation would never return, since the thread takes the same lock as it starts or ends one.
 * Each attempt ends with the thread stopped by ClosedByInterruptException.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class InterruptRaceTest {

    private static final int ATTEMPTS = 60;

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void interruptingABusyReader(Impl impl) throws Exception {
        interruptShortTransfers(impl, true);
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void interruptingABusyWriter(Impl impl) throws Exception {
        interruptShortTransfers(impl, false);
    }

    /**
     * The client reads ({@code reading}) or writes 16 bytes at a time, the accepted side keeping
     * it supplied or drained, until an interrupt stops it.
     */
    private static void interruptShortTransfers(Impl impl, boolean reading) throws Exception {
        for (int i = 0; i < ATTEMPTS; i++) {
            try (Pair p = Pair.open(impl)) {
                AtomicReference<Throwable> peerFailure = new AtomicReference<>();
                Thread peer = RaceSupport.start("the accepted side", peerFailure, () -> {
                    ByteBuffer chunk = ByteBuffer.allocate(64 * 1024);
                    while ((reading ? p.accepted.write(chunk.clear()) : p.accepted.read(chunk.clear())) >= 0) {
                        // until the client's close ends the connection
                    }
                });
                AtomicLong transfers = new AtomicLong();
                assertInterruptStops(p.client, transfers, () -> {
                    ByteBuffer small = ByteBuffer.allocate(16);
                    while (true) {
                        if (reading) {
                            p.client.read(small.clear());
                        } else {
                            p.client.write(small.clear());
                        }
                        transfers.incrementAndGet();
                    }
                });
                p.accepted.close();
                RaceSupport.joinWithin(peer, "the accepted side after its channel's close");
                // The connection's end reaches the accepted side as the client's close (reset, broken
                // pipe) or as its own (closed, asynchronously closed): an IOException, and nothing else.
                Throwable e = peerFailure.get();
                assertTrue(e == null || e instanceof IOException,
                        () -> "the accepted side failed: " + RaceSupport.stackOf(e));
            }
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void interruptingABusyAcceptor(Impl impl) throws Exception {
        for (int i = 0; i < ATTEMPTS; i++) {
            try (ServerSocketChannel server = impl.listen(Family.INET)) {
                SocketAddress address = server.getLocalAddress();
                AtomicReference<Throwable> connectorFailure = new AtomicReference<>();
                Thread connector = RaceSupport.start("connector", connectorFailure, () -> {
                    while (server.isOpen()) {
                        try (SocketChannel ch = impl.openSocket()) {
                            ch.connect(address);
                        } catch (IOException refusedOnceClosed) {
                            // the server closed meanwhile
                        }
                    }
                });
                AtomicLong accepts = new AtomicLong();
                assertInterruptStops(server, accepts, () -> {
                    while (true) {
                        ContractChannels.closeQuietly(server.accept());
                        accepts.incrementAndGet();
                    }
                });
                RaceSupport.joinWithin(connector, "the connector after the server's close");
                assertNull(connectorFailure.get(),
                        () -> "the connector failed: " + RaceSupport.stackOf(connectorFailure.get()));
            }
        }
    }

    /**
     * Runs {@code busy} on a thread of its own, interrupts that thread once it is under way (it has
     * counted one operation done in {@code operations}), and expects the interrupt to return at once
     * and the thread to end with ClosedByInterruptException, {@code channel} closed.
     */
    private static void assertInterruptStops(Channel channel, AtomicLong operations, RaceSupport.Body busy)
            throws Exception {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread thread = RaceSupport.start("busy in blocking operations", failure, busy);
        // An interrupt before the first operation would only meet the check at its start, never the
        // thread between one operation and the next.
        ContractSupport.awaitCondition(() -> operations.get() > 0 || !thread.isAlive(),
                "the busy thread never finished an operation");
        RaceSupport.runWithin("interrupt of a thread busy in blocking operations", thread::interrupt);
        RaceSupport.joinWithin(thread, "the interrupted thread");
        Throwable e = failure.get();
        assertNotNull(e, "the busy thread ended without an exception");
        assertSame(ClosedByInterruptException.class, e.getClass(), "the busy thread threw " + e);
        assertFalse(channel.isOpen(), "an interrupt closes the channel");
    }
}
