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

    /** {@return batches of registration changes applied to the kernel} */
    long getBatches();

    /** {@return registration changes applied (adds, modifications and removals)} */
    long getChangesApplied();

    /** {@return system calls those changes took} */
    long getKernelCallsForChanges();

    /** {@return backend polls; each {@code select} makes at least one} */
    long getPolls();

    /**
     * {@return polls that needed no system call (io_uring, with nothing to submit and nothing to
     * wait for)}
     */
    long getPollsWithoutSyscall();

    /** {@return ready channels the kernel reported} */
    long getReadyEvents();

    /** {@return wakeups that had to signal the kernel} */
    long getWakeups();
}
