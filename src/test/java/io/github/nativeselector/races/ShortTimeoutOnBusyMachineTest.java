/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.races;

import static java.nio.channels.SelectionKey.OP_READ;
import static java.nio.channels.SelectionKey.OP_WRITE;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.nativeselector.support.ContractChannels.SocketKind;
import io.github.nativeselector.support.ContractChannels.SocketPair;
import io.github.nativeselector.support.ContractSupport;
import io.github.nativeselector.support.RaceSupport;
import io.github.nativeselector.support.TestSelectors;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A select with a 1 ms timeout reports a channel that is ready when the select begins, however
 * little CPU the selecting thread gets: every core is kept busy by other threads, so the
 * selecting thread is often preempted in the middle of a select, for longer than its timeout.
 * On io_uring this is the check of a poll armed again during the select (for a completion found
 * in the ring, or one reported by the select before): it must be made whatever time is left.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ShortTimeoutOnBusyMachineTest {

    private static final int ROUNDS = 10_000;

    /** A connected socket, registered for READ|WRITE, is writable: every select(action, 1) says so. */
    @ParameterizedTest
    @MethodSource(ContractSupport.ALL)
    void writableSocketIsReportedByEveryShortSelect(TestSelectors selectors) throws Exception {
        try (Selector selector = selectors.open(); SocketPair pair = SocketPair.open(SocketKind.INET);
                CpuHogs hogs = CpuHogs.start()) {
            for (int round = 0; round < ROUNDS; round++) {
                SelectionKey key = pair.local.register(selector, OP_READ | OP_WRITE);
                List<Integer> readyOps = new ArrayList<>();
                int selected = selector.select(k -> readyOps.add(k.readyOps()), 1);
                assertEquals(1, selected, "select(action, 1) in round " + round + " of a writable socket");
                assertEquals(List.of(OP_WRITE), readyOps);
                assertEquals(1, selector.select(k -> { }, 1), "the next select(action, 1) in round " + round);
                key.cancel();
                selector.selectNow();
            }
        }
    }

    /** Threads that spin, one more than there are cores, until closed. */
    private static final class CpuHogs implements AutoCloseable {
        private final AtomicBoolean spinning = new AtomicBoolean(true);
        private final List<Thread> threads = new ArrayList<>();

        static CpuHogs start() {
            CpuHogs hogs = new CpuHogs();
            int count = Runtime.getRuntime().availableProcessors() + 1;
            for (int i = 0; i < count; i++) {
                Thread thread = new Thread(() -> {
                    while (hogs.spinning.get()) {
                        Thread.onSpinWait();
                    }
                }, "cpu hog " + i);
                thread.setDaemon(true);
                thread.start();
                hogs.threads.add(thread);
            }
            return hogs;
        }

        @Override
        public void close() throws InterruptedException {
            spinning.set(false);
            for (Thread thread : threads) {
                thread.join(TimeUnit.SECONDS.toMillis(RaceSupport.BOUND_SECONDS));
            }
        }
    }
}
