/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.lean;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.fail;

import io.github.nativeselector.support.RaceSupport;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;

/**
 * A channel operation that blocks, run on a thread of its own (platform or virtual), and the
 * waits that tell when that thread is blocked inside the channel and what the operation ended with.
 */
final class BlockedCall<T> implements AutoCloseable {

    /** How long an operation that should end (or block) is waited for before the test fails. */
    static final long WAIT_MS = 20_000;

    final Thread thread;
    private final CompletableFuture<T> result = new CompletableFuture<>();
    /** Whether the thread's interrupt status was set when the operation ended. */
    private volatile boolean interruptedAtEnd;

    private BlockedCall(Function<Runnable, Thread> threads, Callable<T> call) {
        thread = threads.apply(() -> {
            try {
                T value = call.call();
                interruptedAtEnd = Thread.currentThread().isInterrupted();
                result.complete(value);
            } catch (Throwable e) {
                interruptedAtEnd = Thread.currentThread().isInterrupted();
                result.completeExceptionally(e);
            }
        });
    }

    static <T> BlockedCall<T> start(Callable<T> call) {
        return start(false, call);
    }

    static <T> BlockedCall<T> start(boolean virtual, Callable<T> call) {
        BlockedCall<T> blocked = new BlockedCall<>(task -> {
            if (virtual) {
                return VirtualThreads.unstarted(task);
            }
            Thread t = new Thread(task, "blocked channel call");
            t.setDaemon(true);
            return t;
        }, call);
        blocked.thread.start();
        return blocked;
    }

    /**
     * Waits until the thread is blocked inside a method of {@code channel}'s class (or of a class
     * nested in it): a platform thread in a native call, a virtual thread parked. The state must
     * hold on three samples in a row, so that a short system call on the way in is not taken for
     * the wait.
     */
    BlockedCall<T> awaitBlockedIn(Object channel) {
        return awaitIn(channel, false);
    }

    /**
     * Waits until the thread is parked inside a method of {@code channel}'s class, as a thread
     * waiting for a lock that another thread holds is (a virtual thread blocked on the socket is
     * parked too), on three samples in a row.
     */
    BlockedCall<T> awaitParkedIn(Object channel) {
        return awaitIn(channel, true);
    }

    private BlockedCall<T> awaitIn(Object channel, boolean parked) {
        String owner = channel.getClass().getName();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
        int seen = 0;
        while (seen < 3) {
            if (result.isDone()) {
                fail("the call ended instead of blocking: " + outcome());
            }
            if (System.nanoTime() > deadline) {
                fail("the call never blocked in " + owner + "; it is at:\n" + RaceSupport.stackOf(thread));
            }
            seen = isBlockedIn(owner, parked) ? seen + 1 : 0;
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
        }
        return this;
    }

    private boolean isBlockedIn(String owner, boolean parked) {
        Thread.State state = thread.getState();
        StackTraceElement[] stack = thread.getStackTrace();
        boolean waiting = parked || VirtualThreads.isVirtual(thread)
                ? state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING
                : state == Thread.State.RUNNABLE && stack.length > 0 && stack[0].isNativeMethod();
        if (!waiting) {
            return false;
        }
        for (StackTraceElement frame : stack) {
            String c = frame.getClassName();
            if (c.equals(owner) || c.startsWith(owner + "$")) {
                return true;
            }
        }
        return false;
    }

    /** What the call returned; fails if it threw or did not end in time. */
    T get() throws Exception {
        try {
            return result.get(WAIT_MS, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            fail("the call did not end within " + WAIT_MS + " ms; it is at:\n" + RaceSupport.stackOf(thread));
            throw e;
        } catch (ExecutionException e) {
            throw new AssertionError("the call threw " + e.getCause(), e.getCause());
        }
    }

    /** What the call threw; fails if it returned or did not end in time. */
    Throwable failure() throws InterruptedException {
        try {
            T value = result.get(WAIT_MS, TimeUnit.MILLISECONDS);
            fail("the call returned " + value + " instead of throwing");
            return null;
        } catch (TimeoutException e) {
            fail("the call did not end within " + WAIT_MS + " ms; it is at:\n" + RaceSupport.stackOf(thread));
            return null;
        } catch (ExecutionException e) {
            assertNotNull(e.getCause());
            return e.getCause();
        }
    }

    /** Waits for the call to end (failing if it does not), and tells whether it threw. */
    boolean threw() throws InterruptedException {
        try {
            result.get(WAIT_MS, TimeUnit.MILLISECONDS);
            return false;
        } catch (ExecutionException e) {
            return true;
        } catch (TimeoutException e) {
            fail("the call did not end within " + WAIT_MS + " ms; it is at:\n" + RaceSupport.stackOf(thread));
            return false;
        }
    }

    /**
     * Whether the thread's interrupt status was set as the call ended (once {@link #failure()} or
     * {@link #get()} has returned).
     */
    boolean interruptedAtEnd() {
        return interruptedAtEnd;
    }

    private String outcome() {
        try {
            return "returned " + result.getNow(null);
        } catch (Exception e) {
            return "threw " + e.getCause();
        }
    }

    @Override
    public void close() throws InterruptedException {
        if (thread.isAlive()) {
            thread.interrupt();
            thread.join(WAIT_MS);
        }
    }
}
