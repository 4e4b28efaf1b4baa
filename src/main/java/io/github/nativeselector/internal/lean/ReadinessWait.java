/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.internal.lean;

import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.net.SocketTimeoutException;
import java.util.concurrent.TimeUnit;

/**
 * How an operation in blocking mode waits for its socket, which is non-blocking in the kernel:
 * a platform thread in {@code poll(2)} on the one descriptor; a virtual thread parked until
 * {@link VirtualThreadPoller} sees the descriptor ready, so that it never holds its carrier.
 *
 * <p>Every wait may end early (a signal, another thread's event on the same descriptor, a close,
 * an interrupt): callers try their operation again and wait again with what is left of their time.
 */
final class ReadinessWait {

    /** {@code Thread.isVirtual()}, which JDK 17 lacks; null there. */
    private static final MethodHandle IS_VIRTUAL = isVirtualHandle();

    private ReadinessWait() {
    }

    /** Waits, without a time limit, until {@code fd} may be ready for {@code events}. */
    static void await(int fd, int events) throws IOException {
        if (onVirtualThread()) {
            VirtualThreadPoller.get().await(fd, events, 0);
        } else {
            Sockets.poll(fd, events, -1);
        }
    }

    /**
     * Waits until {@code fd} may be ready for {@code events}: without a time limit when
     * {@code nanos} is 0 or less, else for what is left of {@code nanos} since {@code start}
     * (System.nanoTime), failing with SocketTimeoutException({@code timeoutMessage}) once none is.
     */
    static void await(int fd, int events, long nanos, long start, String timeoutMessage) throws IOException {
        if (nanos <= 0) {
            await(fd, events);
            return;
        }
        long remaining = nanos - (System.nanoTime() - start);
        if (remaining <= 0) {
            throw new SocketTimeoutException(timeoutMessage);
        }
        if (onVirtualThread()) {
            VirtualThreadPoller.get().await(fd, events, remaining);
        } else {
            Sockets.poll(fd, events, roundUpToMillis(remaining));
        }
    }

    /** Never 0 for a wait of less than a millisecond, which would spin instead of waiting. */
    private static int roundUpToMillis(long nanos) {
        long millis = TimeUnit.NANOSECONDS.toMillis(nanos);
        if (TimeUnit.MILLISECONDS.toNanos(millis) < nanos) {
            millis++;
        }
        return (int) Math.min(millis, Integer.MAX_VALUE);
    }

    /** Whether the current thread is a virtual thread; never on JDK 17. */
    static boolean onVirtualThread() {
        if (IS_VIRTUAL == null) {
            return false;
        }
        try {
            return (boolean) IS_VIRTUAL.invokeExact(Thread.currentThread());
        } catch (Throwable e) {
            throw new IllegalStateException("Thread.isVirtual failed", e);
        }
    }

    private static MethodHandle isVirtualHandle() {
        try {
            MethodType type = MethodType.methodType(boolean.class);
            return MethodHandles.publicLookup().findVirtual(Thread.class, "isVirtual", type);
        } catch (NoSuchMethodException | IllegalAccessException e) {
            return null;
        }
    }
}
