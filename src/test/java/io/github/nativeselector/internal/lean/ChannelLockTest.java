/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.internal.lean;

import static io.github.nativeselector.support.ContractSupport.AWAIT_MS;
import static io.github.nativeselector.support.ContractSupport.awaitCondition;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The lean channels' lock: exclusive, reentrant, uninterruptible, and released only by its owner. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ChannelLockTest {

    private final ChannelLock lock = new ChannelLock();

    @Test
    void excludesOtherThreadsUntilReleased() throws Exception {
        lock.lock();
        AtomicBoolean acquired = new AtomicBoolean();
        Thread waiter = waitingThread(() -> acquired.set(true));
        assertFalse(acquired.get());
        lock.unlock();
        waiter.join(AWAIT_MS);
        assertTrue(acquired.get());
    }

    @Test
    void isReentrantAndFreeOnlyAfterTheLastRelease() throws Exception {
        lock.lock();
        lock.lock();
        lock.unlock();
        assertTrue(lock.isHeldExclusively(), "released once of twice, the lock is still held");
        assertFalse(CompletableFuture.supplyAsync(() -> lock.tryAcquire(1)).get(AWAIT_MS, TimeUnit.MILLISECONDS));
        lock.unlock();
        assertFalse(lock.isHeldExclusively());
        assertTrue(CompletableFuture.supplyAsync(() -> lock.tryAcquire(1)).get(AWAIT_MS, TimeUnit.MILLISECONDS));
    }

    @Test
    void onlyTheOwnerReleases() throws Exception {
        assertThrows(IllegalMonitorStateException.class, lock::unlock);
        lock.lock();
        CompletableFuture<Void> stranger = CompletableFuture.runAsync(lock::unlock);
        Exception e = assertThrows(Exception.class, () -> stranger.get(AWAIT_MS, TimeUnit.MILLISECONDS));
        assertTrue(e.getCause() instanceof IllegalMonitorStateException, e.toString());
        assertTrue(lock.isHeldExclusively());
        lock.unlock();
    }

    @Test
    void refusesAHoldCountPastTheLargestInt() {
        lock.lock();
        Error e = assertThrows(Error.class, () -> lock.tryAcquire(Integer.MAX_VALUE));
        assertEquals("Maximum lock count exceeded", e.getMessage());
        lock.unlock();
        assertFalse(lock.isHeldExclusively(), "the refused acquire left the count as it was");
    }

    @Test
    void anInterruptedWaiterStillGetsTheLockAndKeepsItsInterrupt() throws Exception {
        lock.lock();
        AtomicBoolean interruptedAfter = new AtomicBoolean();
        Thread waiter = waitingThread(() -> interruptedAfter.set(Thread.currentThread().isInterrupted()));
        waiter.interrupt();
        Thread.sleep(50);
        assertTrue(waiter.isAlive(), "an interrupt does not end the wait for the lock");
        lock.unlock();
        waiter.join(AWAIT_MS);
        assertFalse(waiter.isAlive());
        assertTrue(interruptedAfter.get());
    }

    @Test
    void twoThreadsIncrementingUnderTheLockLoseNothing() throws Exception {
        int[] counter = {0};
        int rounds = 200_000;
        Runnable increments = () -> {
            for (int i = 0; i < rounds; i++) {
                lock.lock();
                try {
                    counter[0]++;
                } finally {
                    lock.unlock();
                }
            }
        };
        Thread other = new Thread(increments);
        other.start();
        increments.run();
        other.join(AWAIT_MS * 4);
        assertEquals(2 * rounds, counter[0]);
    }

    /**
     * Starts a thread that takes the lock, runs {@code holding} and lets the lock go; returns once
     * the thread waits for the lock, which the caller holds.
     */
    private Thread waitingThread(Runnable holding) {
        Thread waiter = new Thread(() -> {
            lock.lock();
            try {
                holding.run();
            } finally {
                lock.unlock();
            }
        });
        waiter.start();
        awaitCondition(() -> lock.isQueued(waiter), "the second thread to wait for the lock");
        return waiter;
    }
}
