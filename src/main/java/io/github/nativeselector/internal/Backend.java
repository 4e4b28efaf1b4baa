package io.github.nativeselector.internal;

import java.io.IOException;

/**
 * A kernel readiness mechanism, as the selector sees it. Everything else (queues, keys,
 * translation, key sets, locking) is shared by all backends.
 *
 * <p>Callers serialise {@link #apply} and {@link #close} (the change queue's lock), and
 * {@link #poll} and {@link #close} (the selector's lock); {@link #apply} may run on one
 * thread while another is blocked in {@link #poll}. {@link #wakeup} is called under the
 * selector's wakeup lock, never after {@link #close}.
 */
interface Backend {

    /** The name users see in counters and diagnostics, e.g. {@code "epoll"}. */
    String name();

    /**
     * Applies {@code count} {@link ChangeBatch} records at {@code changes}, writing each one's
     * errno into it.
     *
     * @return the kernel calls it took
     */
    int apply(long changes, int count);

    /**
     * Waits up to {@code timeoutMillis} (-1: forever, 0: not at all) and writes up to
     * {@code capacity} {@link ReadyArray} records at {@code ready}.
     *
     * @return the records written, or -1 when a signal interrupted the wait
     */
    int poll(long ready, int capacity, int timeoutMillis) throws IOException;

    /** Makes a {@link #poll} in progress, or the next one, return with the wakeup record. */
    void wakeup() throws IOException;

    /** Releases the kernel object; every registration goes with it. */
    void close();
}
