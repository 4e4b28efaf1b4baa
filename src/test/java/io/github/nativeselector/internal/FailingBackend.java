/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.internal;

import java.io.IOException;
import java.lang.reflect.Field;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntPredicate;
import sun.misc.Unsafe;

/**
 * A real backend with failures injected where a test asks: an {@link #apply} call fails as a
 * whole, by call number, the changes of chosen fds come back refused as the kernel refuses one
 * (EPERM), a {@link #wakeup} fails, a {@link #poll} ends as a signal would end it,
 * and a poll can be held until the test lets it go. It records
 * the size of every apply, whether {@link #close} ran, and whether it ever ran while a call was
 * in progress.
 */
final class FailingBackend implements Backend {

    /** The errno of a refused change: what epoll_ctl says of a file it cannot poll. */
    static final int EPERM = 1;
    private static final Unsafe UNSAFE = unsafe();

    private final Backend real;
    private final boolean appliesDuringPoll;
    private final AtomicInteger applies = new AtomicInteger();
    private final AtomicInteger callsInProgress = new AtomicInteger();
    /** The record count of each apply, failed or not, in order. */
    final List<Integer> applySizes = new CopyOnWriteArrayList<>();
    volatile IntPredicate failApply = call -> false;
    /** The fds whose changes the kernel is made to refuse, after it applied them. */
    volatile IntPredicate refuseFd = fd -> false;
    volatile CountDownLatch pollEntered;
    volatile CountDownLatch pollReleased;
    volatile Runnable duringWakeup = () -> { };
    volatile boolean failWakeups;
    /** Polls still to end at once as a signal ends a wait: -1, no record. */
    final AtomicInteger interruptedPolls = new AtomicInteger();
    volatile boolean closedDuringCall;
    volatile boolean closed;

    FailingBackend(Backend real, boolean appliesDuringPoll) {
        this.real = real;
        this.appliesDuringPoll = appliesDuringPoll;
    }

    /** Fails the next apply calls numbered {@code calls} from now (1 is the next one). */
    void failApplies(int... calls) {
        int base = applies.get();
        failApply = call -> {
            for (int wanted : calls) {
                if (call == base + wanted) {
                    return true;
                }
            }
            return false;
        };
    }

    private static Unsafe unsafe() {
        try {
            Field field = Unsafe.class.getDeclaredField("theUnsafe");
            field.setAccessible(true);
            return (Unsafe) field.get(null);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @Override
    public String name() {
        return real.name();
    }

    @Override
    public boolean appliesDuringPoll() {
        return appliesDuringPoll;
    }

    @Override
    public int apply(long changes, int count, boolean sync) throws IOException {
        callsInProgress.incrementAndGet();
        try {
            int call = applies.incrementAndGet();
            applySizes.add(count);
            if (failApply.test(call)) {
                throw new IOException("injected failure of apply #" + call);
            }
            int calls = real.apply(changes, count, sync);
            for (int i = 0; i < count; i++) {
                long record = changes + (long) i * ChangeBatch.RECORD_SIZE;
                if (refuseFd.test(UNSAFE.getInt(record + ChangeBatch.FD))) {
                    UNSAFE.putInt(record + ChangeBatch.ERROR, EPERM);
                }
            }
            return calls;
        } finally {
            callsInProgress.decrementAndGet();
        }
    }

    @Override
    public int poll(long ready, int capacity, int timeoutMillis) throws IOException {
        callsInProgress.incrementAndGet();
        try {
            if (interruptedPolls.getAndUpdate(left -> Math.max(left - 1, 0)) > 0) {
                return -1;
            }
            CountDownLatch entered = pollEntered;
            CountDownLatch released = pollReleased;
            if (entered != null && released != null) {
                entered.countDown();
                try {
                    if (!released.await(60, TimeUnit.SECONDS)) {
                        throw new IOException("the test never released the poll");
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return real.poll(ready, capacity, timeoutMillis);
        } finally {
            callsInProgress.decrementAndGet();
        }
    }

    @Override
    public void wakeup() throws IOException {
        callsInProgress.incrementAndGet();
        try {
            duringWakeup.run();
            if (failWakeups) {
                throw new IOException("injected failure of wakeup");
            }
            if (!closedDuringCall) {
                real.wakeup();
            }
        } finally {
            callsInProgress.decrementAndGet();
        }
    }

    @Override
    public void close() {
        if (callsInProgress.get() != 0) {
            closedDuringCall = true;
        }
        closed = true;
        real.close();
    }
}
