/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.internal;

import java.io.IOException;
import java.util.Optional;

/**
 * A kernel readiness mechanism, as the selector sees it. Everything else (queues, keys,
 * translation, key sets, locking) is shared by all backends.
 *
 * <p>Callers serialise {@link #apply} and {@link #close} (the change queue's lock), and
 * {@link #poll} and {@link #close} (the selector's lock); {@link #apply} runs on one thread
 * while another is blocked in {@link #poll} only if {@link #appliesDuringPoll}. {@link #wakeup}
 * is called under the selector's wakeup lock or the change queue's lock, never after
 * {@link #close}.
 */
interface Backend {

    /** The name users see in counters and diagnostics, e.g. {@code "epoll"}. */
    String name();

    /**
     * Whether {@link #apply} may run while another thread is in {@link #poll}. When not, a flush
     * from another thread during a poll is handed to the polling thread ({@link ChangeQueue}).
     */
    boolean appliesDuringPoll();

    /** Set in {@link #poll}'s result when it made no system call ({@code NS_POLLED_WITHOUT_SYSCALL}). */
    int POLLED_WITHOUT_SYSCALL = 0x4000_0000;

    /**
     * Applies {@code count} {@link ChangeBatch} records at {@code changes}, writing each one's
     * errno into it.
     *
     * @param sync whether the kernel must hold the changes when this returns (a flush from a
     *     thread other than the selector's, and every removal: an fd may be closed right after);
     *     otherwise a backend may keep them for the {@link #poll} that follows on this thread
     * @return the kernel calls it took
     */
    int apply(long changes, int count, boolean sync) throws IOException;

    /**
     * Waits up to {@code timeoutMillis} (-1: forever, 0: not at all) and writes up to
     * {@code capacity} {@link ReadyArray} records at {@code ready}.
     *
     * @return the records written, with {@link #POLLED_WITHOUT_SYSCALL} set when no system call
     *     was needed, or -1 when a signal interrupted the wait
     */
    int poll(long ready, int capacity, int timeoutMillis) throws IOException;

    /**
     * Whether {@link #apply} goes through an io_uring ring of the backend's own, in words for
     * diagnostics ("on", or "off" and why); empty for a backend that has no such ring.
     */
    default Optional<String> ringState() {
        return Optional.empty();
    }

    /** Makes a {@link #poll} in progress, or the next one, return with the wakeup record. */
    void wakeup() throws IOException;

    /**
     * Releases the kernel object; every registration goes with it. Called once: by the selector's
     * close, or by a cleaner thread once the selector is unreachable and nothing else can use it.
     */
    void close();
}
