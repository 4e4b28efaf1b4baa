/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector;

import io.github.nativeselector.internal.CounterSnapshot;
import java.nio.channels.Selector;
import java.util.Optional;

/**
 * What one native selector has done since it was opened: a snapshot of its counters.
 *
 * @param backend the kernel mechanism behind the selector, e.g. {@code "epoll"}
 * @param batches batches of registration changes applied to the kernel
 * @param changesApplied registration changes applied (adds, modifications and removals)
 * @param kernelCallsForChanges system calls those changes took
 * @param polls backend polls (each {@code select} makes at least one)
 * @param pollsWithoutSyscall polls that needed no system call (io_uring, when there was nothing
 *     to submit and nothing to wait for)
 * @param readyEvents ready channels the kernel reported
 * @param wakeups {@link Selector#wakeup()} calls that had to signal the kernel; repeated
 *     wakeups before the next select count once
 */
public record SelectorStats(
        String backend,
        long batches,
        long changesApplied,
        long kernelCallsForChanges,
        long polls,
        long pollsWithoutSyscall,
        long readyEvents,
        long wakeups) {

    /**
     * {@return the counters of {@code selector}, or empty when it is not a native selector (for
     * example the JDK's built-in selector, chosen by {@code -Dnativeselector.backend=jdk} or as a
     * fallback)}
     *
     * @param selector any selector
     */
    public static Optional<SelectorStats> of(Selector selector) {
        return CounterSnapshot.of(selector).map(SelectorStats::from);
    }

    private static SelectorStats from(CounterSnapshot snapshot) {
        return new SelectorStats(snapshot.backend(),
                snapshot.batches(),
                snapshot.changesApplied(),
                snapshot.kernelCallsForChanges(),
                snapshot.polls(),
                snapshot.pollsWithoutSyscall(),
                snapshot.readyEvents(),
                snapshot.wakeups());
    }

    /**
     * {@return these counters plus {@code other}'s, under this snapshot's backend: totals over
     * selectors}
     *
     * @param other the counters to add
     */
    public SelectorStats plus(SelectorStats other) {
        return new SelectorStats(backend,
                batches + other.batches,
                changesApplied + other.changesApplied,
                kernelCallsForChanges + other.kernelCallsForChanges,
                polls + other.polls,
                pollsWithoutSyscall + other.pollsWithoutSyscall,
                readyEvents + other.readyEvents,
                wakeups + other.wakeups);
    }
}
