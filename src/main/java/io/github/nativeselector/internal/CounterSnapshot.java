/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.internal;

import java.nio.channels.Selector;
import java.util.Optional;

/**
 * One reading of a selector's counters, or their sums over selectors: what the MBeans, the flight
 * recorder and the public {@code SelectorStats} are made from. {@link #of} is the public package's
 * way to a selector's counters. It needs no registered accessor: this package is exported to
 * nobody (module-info.java), so its public methods are the module's own. And nothing here names
 * {@code SelectorStats}, so that record and the selector do not depend on each other.
 *
 * @param backend the kernel mechanism behind the selector, or {@code "all"} for sums
 */
public record CounterSnapshot(
        String backend,
        long batches,
        long changesApplied,
        long kernelCallsForChanges,
        long polls,
        long pollsWithoutSyscall,
        long readyEvents,
        long wakeups) {

    /** The counters of {@code selector}, or empty when it is not a native selector. */
    public static Optional<CounterSnapshot> of(Selector selector) {
        return selector instanceof NativeSelector ns ? Optional.of(ns.counterSnapshot()) : Optional.empty();
    }

    /** These counters plus {@code other}'s, under this snapshot's backend. */
    CounterSnapshot plus(CounterSnapshot other) {
        return new CounterSnapshot(backend,
                batches + other.batches,
                changesApplied + other.changesApplied,
                kernelCallsForChanges + other.kernelCallsForChanges,
                polls + other.polls,
                pollsWithoutSyscall + other.pollsWithoutSyscall,
                readyEvents + other.readyEvents,
                wakeups + other.wakeups);
    }
}
