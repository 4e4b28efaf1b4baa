/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.races;

import static io.github.nativeselector.support.ContractChannels.readExactly;
import static io.github.nativeselector.support.ContractChannels.writeFully;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.github.nativeselector.support.CloseReuseFds;
import io.github.nativeselector.support.ContractChannels.PipePair;
import io.github.nativeselector.support.ContractChannels.SocketKind;
import io.github.nativeselector.support.ContractChannels.SocketPair;
import io.github.nativeselector.support.ContractSupport;
import io.github.nativeselector.support.RaceSupport;
import io.github.nativeselector.support.TestSelectors;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * An event loop selects with {@code selectNow()} and then is busy for a moment; meanwhile
 * another thread makes a registered socket readable, reads it empty again, cancels its key and
 * selects. That cancel must take the socket out of the selector for good: a channel registered
 * next is selected when it is ready, and the cancelled socket, once closed, is released (its
 * peer reads end-of-stream). The
 * race is short, so each case repeats up to {@value #ROUNDS} times and stops at the first failure.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class CancelDuringBusySelectLoopTest {

    private static final int ROUNDS = 100;

    @ParameterizedTest
    @MethodSource(ContractSupport.ALL)
    void aKeyRegisteredAfterTheCancelIsSelected(TestSelectors selectors) throws Exception {
        try (Selector selector = selectors.open()) {
            for (int round = 0; round < ROUNDS; round++) {
                try (SocketPair cancelled = SocketPair.open(SocketKind.UNIX); PipePair next = PipePair.open()) {
                    SelectionKey old = registerReadable(selector, cancelled);
                    try (BusyLoop loop = BusyLoop.start(selector)) {
                        flickerAndCancel(selector, cancelled, old);
                        loop.rest();
                        next.source.configureBlocking(false);
                        SelectionKey key = next.source.register(selector, SelectionKey.OP_READ);
                        writeFully(next.sink, 1);
                        ContractSupport.awaitSelected(selector, key);
                        selector.selectedKeys().clear();
                        key.cancel();
                        selector.selectNow();
                    }
                }
            }
        }
    }

    @ParameterizedTest
    @MethodSource(ContractSupport.ALL)
    void theCancelledChannelIsReleasedOnceClosed(TestSelectors selectors) throws Exception {
        try (Selector selector = selectors.open()) {
            for (int round = 0; round < ROUNDS; round++) {
                try (SocketPair cancelled = SocketPair.open(SocketKind.UNIX)) {
                    SelectionKey old = registerReadable(selector, cancelled);
                    try (BusyLoop loop = BusyLoop.start(selector)) {
                        flickerAndCancel(selector, cancelled, old);
                        loop.rest();
                        cancelled.local.close();
                        cancelled.peer.configureBlocking(false);
                        // Reading the peer leaves the closed end as it is: nothing wakes what may hold it.
                        CloseReuseFds.assertReadsEof(cancelled.peer, "round " + round
                                + ": peer of the socket cancelled, deregistered and closed");
                    }
                }
            }
        }
    }

    /** Registers the local end and lets a byte come and go, so that the selector has seen it ready. */
    private static SelectionKey registerReadable(Selector selector, SocketPair pair) throws Exception {
        SelectionKey key = pair.local.register(selector, SelectionKey.OP_READ);
        writeFully(pair.peer, 1);
        readExactly(pair.local, 1);
        return key;
    }

    /** While the loop is busy: the channel becomes readable and unreadable again, then its key is cancelled. */
    private static void flickerAndCancel(Selector selector, SocketPair pair, SelectionKey key) throws Exception {
        writeFully(pair.peer, 1);
        readExactly(pair.local, 1);
        key.cancel();
        selector.selectNow();
    }

    /**
     * An event loop thread: selects twice (the first select reports what is pending, the second
     * finds nothing), then is busy without selecting until {@link #rest()}, then parks until
     * closed. It stays alive until then: what it selected may belong to it.
     */
    private static final class BusyLoop implements AutoCloseable {
        private final AtomicBoolean busy = new AtomicBoolean(true);
        private final AtomicReference<Throwable> failure = new AtomicReference<>();
        private final CountDownLatch selected = new CountDownLatch(1);
        private final Thread thread;

        private BusyLoop(Selector selector) {
            thread = RaceSupport.start("busy select loop", failure, () -> {
                selector.selectNow();
                selector.selectedKeys().clear();
                selector.selectNow();
                selected.countDown();
                while (busy.get()) {
                    Thread.onSpinWait();
                }
                while (!Thread.interrupted()) {
                    LockSupport.park();
                }
            });
        }

        static BusyLoop start(Selector selector) throws InterruptedException {
            BusyLoop loop = new BusyLoop(selector);
            assertTrue(loop.selected.await(RaceSupport.BOUND_SECONDS, TimeUnit.SECONDS), "the loop thread did not select");
            return loop;
        }

        /** Ends the busy part: the thread parks (or has died, which {@link #close()} reports). */
        void rest() {
            busy.set(false);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(RaceSupport.BOUND_SECONDS);
            while (thread.getState() != Thread.State.WAITING && thread.isAlive()) {
                if (System.nanoTime() > deadline) {
                    fail("the loop thread did not park within " + RaceSupport.BOUND_SECONDS + " s of rest():\n"
                            + RaceSupport.stackOf(thread));
                }
                Thread.onSpinWait();
            }
        }

        @Override
        public void close() throws InterruptedException {
            busy.set(false);
            thread.interrupt();
            RaceSupport.joinWithin(thread, "busy select loop");
            if (failure.get() != null) {
                fail("the loop thread failed: " + RaceSupport.stackOf(failure.get()));
            }
        }
    }
}
