/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.support;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.management.LockInfo;
import java.lang.management.ManagementFactory;
import java.lang.management.MonitorInfo;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/** Threads for race tests, and bounded waits that fail with the stuck thread's stack. */
public final class RaceSupport {

    /** The bound on every wait that should end at once. */
    public static final long BOUND_SECONDS = 5;

    private RaceSupport() {
    }

    @FunctionalInterface
    public interface Body {
        void run() throws Exception;
    }

    public static Thread start(String name, AtomicReference<Throwable> failure, Body body) {
        Thread thread = new Thread(() -> {
            try {
                body.run();
            } catch (Throwable e) {
                failure.compareAndSet(null, e);
            }
        }, name);
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    /** Waits until the thread is inside the kernel wait of a select (a native poll or wait frame on top). */
    public static void awaitBlockedInSelect(Thread thread) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(BOUND_SECONDS);
        for (;;) {
            StackTraceElement[] stack = thread.getStackTrace();
            if (isKernelWaitOfASelect(stack)) {
                return;
            }
            if (!thread.isAlive() || System.nanoTime() > deadline) {
                fail("the selecting thread never blocked in select() (alive: " + thread.isAlive() + "):\n"
                        + format(stack));
            }
            LockSupport.parkNanos(20_000);
        }
    }

    /** Whether the thread is inside the kernel wait of a select now. */
    public static boolean isBlockedInSelect(Thread thread) {
        return isKernelWaitOfASelect(thread.getStackTrace());
    }

    private static boolean isKernelWaitOfASelect(StackTraceElement[] stack) {
        return stack.length > 0 && stack[0].isNativeMethod()
                && (stack[0].getClassName().toLowerCase(Locale.ROOT).contains("poll")
                        || stack[0].getClassName().endsWith("Backend"))
                && (stack[0].getMethodName().equals("wait") || stack[0].getMethodName().equals("poll"));
    }

    public static void acquire(Semaphore semaphore, Thread thread, AtomicReference<Throwable> failure, String what)
            throws InterruptedException {
        if (!semaphore.tryAcquire(BOUND_SECONDS, TimeUnit.SECONDS)) {
            fail(what + ": nothing after " + BOUND_SECONDS + " s; " + thread.getName()
                    + (failure.get() != null ? " failed: " + stackOf(failure.get()) : " is at:\n" + stackOf(thread)));
        }
    }

    public static void joinWithin(Thread thread, String what) throws InterruptedException {
        thread.join(TimeUnit.SECONDS.toMillis(BOUND_SECONDS));
        if (thread.isAlive()) {
            fail(what + ": " + thread.getName() + " still running after " + BOUND_SECONDS + " s:\n" + stackOf(thread));
        }
    }

    /** Runs the action on its own thread and fails if it takes longer than five seconds. */
    public static void runWithin(String what, Body action) throws Exception {
        callWithin(TimeUnit.SECONDS.toMillis(BOUND_SECONDS), what, () -> {
            action.run();
            return null;
        });
    }

    /** Calls on its own thread and fails if the call takes longer than {@code millis}. */
    public static <T> T callWithin(long millis, String what, Callable<T> call) throws Exception {
        FutureTask<T> task = new FutureTask<>(call);
        Thread thread = new Thread(task, "bounded call");
        thread.setDaemon(true);
        thread.start();
        try {
            return task.get(millis, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            String stack = stackOf(thread);
            fail(what + ": did not return within " + millis + " ms; it is at:\n" + stack);
            throw e;
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Exception cause) {
                throw cause;
            }
            throw e;
        }
    }

    public static String stackOf(Thread thread) {
        return format(thread.getStackTrace());
    }

    public static String format(StackTraceElement[] stack) {
        StringBuilder text = new StringBuilder();
        for (StackTraceElement element : stack) {
            text.append("\tat ").append(element).append('\n');
        }
        return text.toString();
    }

    /** Every thread's full stack, with the locks each holds and waits for, and any deadlock the JVM finds. */
    public static String allThreads() {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        StringBuilder text = new StringBuilder();
        long[] deadlocked = threads.findDeadlockedThreads();
        if (deadlocked != null) {
            text.append("deadlocked thread ids: ").append(Arrays.toString(deadlocked)).append('\n');
        }
        for (ThreadInfo info : threads.dumpAllThreads(true, true)) {
            text.append('"').append(info.getThreadName()).append("\" ").append(info.getThreadState());
            if (info.getLockName() != null) {
                text.append(" on ").append(info.getLockName());
            }
            if (info.getLockOwnerName() != null) {
                text.append(" owned by \"").append(info.getLockOwnerName()).append('"');
            }
            text.append('\n').append(format(info.getStackTrace()));
            for (MonitorInfo monitor : info.getLockedMonitors()) {
                text.append("\t  holds ").append(monitor).append(" (locked at depth ")
                        .append(monitor.getLockedStackDepth()).append(")\n");
            }
            for (LockInfo lock : info.getLockedSynchronizers()) {
                text.append("\t  holds ").append(lock).append('\n');
            }
        }
        return text.toString();
    }

    public static String stackOf(Throwable e) {
        if (e == null) {
            return "null";
        }
        StringWriter text = new StringWriter();
        e.printStackTrace(new PrintWriter(text));
        return text.toString();
    }
}
