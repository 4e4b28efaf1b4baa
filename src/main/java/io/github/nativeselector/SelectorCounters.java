/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector;

/**
 * The counters a native selector keeps, as JMX attributes; {@link SelectorStats} tells what each
 * one counts. Each only grows.
 */
public interface SelectorCounters {

    /** Batches of registration changes applied to the kernel. */
    long getBatches();

    /** Registration changes applied (adds, modifications and removals). */
    long getChangesApplied();

    /** System calls those changes took. */
    long getKernelCallsForChanges();

    /** Backend polls; each {@code select} makes at least one. */
    long getPolls();

    /** Polls that needed no system call (io_uring, with nothing to submit and nothing to wait for). */
    long getPollsWithoutSyscall();

    /** Ready channels the kernel reported. */
    long getReadyEvents();

    /** Wakeups that had to signal the kernel. */
    long getWakeups();
}
