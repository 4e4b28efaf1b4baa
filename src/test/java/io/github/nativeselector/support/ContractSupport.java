/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.github.nativeselector.internal.lean.LeanChannel;
import java.io.IOException;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;

/** Waiting, timing and threading helpers for the selector contract tests. */
public final class ContractSupport {

    /** How long an event that should happen is waited for before the test fails. */
    public static final long AWAIT_MS = 5_000;

    /** The method source every contract test is parametrised with. */
    public static final String ALL = "io.github.nativeselector.support.TestSelectors#all";

    private ContractSupport() {
    }

    public static long millisSince(long startNanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
    }

    /** Selects until every key is in the selected-key set; fails after five seconds. */
    public static void selectUntilSelected(Selector selector, SelectionKey... keys) throws IOException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!selector.selectedKeys().containsAll(List.of(keys))) {
            if (System.nanoTime() > deadline) {
                List<Object> missing = new ArrayList<>();
                for (SelectionKey key : keys) {
                    if (!selector.selectedKeys().contains(key)) {
                        missing.add(key.attachment());
                    }
                }
                fail("not selected within 5 s: " + missing);
            }
            selector.select(100);
        }
    }

    /**
     * Selects (blocking, up to {@link #AWAIT_MS}) until {@code key} is in the selected-key set;
     * returns the value of the select that put it there.
     */
    public static int awaitSelected(Selector sel, SelectionKey key) throws IOException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(AWAIT_MS);
        while (true) {
            long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            if (left <= 0) {
                fail("key was not selected within " + AWAIT_MS + " ms (interest "
                        + key.interestOps() + ")");
            }
            int n = sel.select(left);
            if (sel.selectedKeys().contains(key)) {
                return n;
            }
        }
    }

    /**
     * Clears the selected-key set and selects until {@code key} is selected with exactly
     * {@code expected} ready ops (for events that arrive in steps, such as FIN then HUP).
     */
    public static void awaitReadyOps(Selector sel, SelectionKey key, int expected) throws IOException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(AWAIT_MS);
        int last = -1;
        while (true) {
            sel.selectedKeys().clear();
            long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            if (left <= 0) {
                fail("key not selected with ready ops " + ops(expected) + " within " + AWAIT_MS
                        + " ms; last seen " + (last < 0 ? "not selected" : ops(last)));
            }
            sel.select(left);
            if (sel.selectedKeys().contains(key)) {
                last = key.readyOps();
                if (last == expected) {
                    return;
                }
                sleepQuietly(10);
            }
        }
    }

    /**
     * Waits until the JDK's own selector reports {@code ch} ready for {@code ops}: proof that an
     * event has happened, independent of the selector under test. A lean channel, which the JDK's
     * selector does not take, is watched by a selector of its own provider's.
     */
    public static void witnessReady(SelectableChannel ch, int ops) throws IOException {
        try (Selector witness = ch instanceof LeanChannel ? ch.provider().openSelector() : TestSelectors.JDK.open()) {
            SelectionKey key = ch.register(witness, ops);
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(AWAIT_MS);
            while (true) {
                long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (left <= 0) {
                    fail("the JDK selector did not see the channel ready for " + ops(ops));
                }
                witness.select(left);
                if (witness.selectedKeys().contains(key) && (key.readyOps() & ops) == ops) {
                    return;
                }
                witness.selectedKeys().clear();
            }
        }
    }

    /** Asserts a {@code select(ms)} with nothing to report returns 0 and blocks at least {@code minMs}. */
    public static void assertSelectBlocks(Selector sel, long timeoutMs, long minMs) throws IOException {
        long t0 = System.nanoTime();
        int n = sel.select(timeoutMs);
        long took = millisSince(t0);
        assertEquals(0, n, "select(" + timeoutMs + ") return value");
        assertTrue(took >= minMs, "select(" + timeoutMs + ") returned after " + took
                + " ms; expected it to block at least " + minMs + " ms");
    }

    public static String ops(int ops) {
        StringBuilder sb = new StringBuilder();
        if ((ops & SelectionKey.OP_READ) != 0) {
            sb.append("READ|");
        }
        if ((ops & SelectionKey.OP_WRITE) != 0) {
            sb.append("WRITE|");
        }
        if ((ops & SelectionKey.OP_CONNECT) != 0) {
            sb.append("CONNECT|");
        }
        if ((ops & SelectionKey.OP_ACCEPT) != 0) {
            sb.append("ACCEPT|");
        }
        return sb.length() == 0 ? "0" : sb.substring(0, sb.length() - 1);
    }

    public static void sleepQuietly(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Polls {@code condition} every 20 ms for up to {@link #AWAIT_MS}; fails with {@code what}. */
    public static void awaitCondition(BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(AWAIT_MS);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                fail(what + " (waited " + AWAIT_MS + " ms)");
            }
            sleepQuietly(20);
        }
    }

    /**
     * A task on its own thread. {@link #awaitBlockedInSelect()} waits until the task has
     * signalled {@link #aboutToBlock()} and the thread sits in the kernel wait of a select. Closing interrupts and joins a thread still running.
     */
    public static final class Background<T> implements AutoCloseable {
        public final Thread thread;
        private final CompletableFuture<T> result = new CompletableFuture<>();
        private final CountDownLatch about = new CountDownLatch(1);

        /** A task that is handed its own {@link Background} (to call {@link #aboutToBlock()}). */
        @FunctionalInterface
        public interface Task<T> {
            T run(Background<T> self) throws Exception;
        }

        private Background(String name, Task<T> task) {
            thread = new Thread(() -> {
                try {
                    result.complete(task.run(this));
                } catch (Throwable t) {
                    result.completeExceptionally(t);
                }
            }, name);
            thread.setDaemon(true);
        }

        public static <T> Background<T> start(String name, Task<T> task) {
            Background<T> b = new Background<>(name, task);
            b.thread.start();
            return b;
        }

        /** Called by the task just before it blocks. */
        public void aboutToBlock() {
            about.countDown();
        }

        /** Waits until the task has called {@link #aboutToBlock()}. */
        public void awaitStarted() throws InterruptedException {
            assertTrue(about.await(AWAIT_MS, TimeUnit.MILLISECONDS), "background task did not start");
        }

        /**
         * Waits until the task has called {@link #aboutToBlock()} and its thread is inside the
         * kernel wait of a select.
         */
        public void awaitBlockedInSelect() throws InterruptedException {
            awaitStarted();
            RaceSupport.awaitBlockedInSelect(thread);
        }

        public boolean isDone() {
            return result.isDone();
        }

        /** The task's result; fails if it does not finish within {@code ms}. */
        public T get(long ms) throws Exception {
            try {
                return result.get(ms, TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                fail("background task did not finish within " + ms + " ms; stack: "
                        + stackOf(thread));
                return null;
            } catch (ExecutionException e) {
                Throwable cause = e.getCause();
                if (cause instanceof Exception ex) {
                    throw ex;
                }
                if (cause instanceof Error err) {
                    throw err;
                }
                throw e;
            }
        }

        @Override
        public void close() throws InterruptedException {
            if (thread.isAlive()) {
                thread.interrupt();
                thread.join(AWAIT_MS);
            }
        }

        private static String stackOf(Thread t) {
            StringBuilder sb = new StringBuilder();
            for (StackTraceElement e : t.getStackTrace()) {
                sb.append("\n\tat ").append(e);
            }
            return sb.toString();
        }
    }
}
