/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.bench.selectors;

import io.github.nativeselector.SelectorStats;
import java.nio.channels.Selector;
import java.util.List;
import java.util.Optional;

/**
 * native-selector's counters ({@link SelectorStats}) summed over a server's selectors, written
 * as {@code key=value} fields under the names the harness reads ({@link #NAMES}).
 */
public final class SelectorStatsFields {

    /** The field names, in the order of {@link SelectorStats}'s counters. */
    public static final List<String> NAMES = List.of("batches", "changes", "kernel_calls_for_changes", "polls",
            "polls_without_syscall", "ready_events", "wakeups");

    private SelectorStatsFields() {
    }

    /** The sum of the counters of the native selectors among {@code selectors}; empty if there are none. */
    public static Optional<SelectorStats> of(List<? extends Selector> selectors) {
        return selectors.stream().map(SelectorStats::of).flatMap(Optional::stream).reduce(SelectorStats::plus);
    }

    /** {@code backend=... batches=... ...}: every counter as a field. */
    public static String fields(SelectorStats stats) {
        long[] values = {stats.batches(), stats.changesApplied(), stats.kernelCallsForChanges(), stats.polls(),
            stats.pollsWithoutSyscall(), stats.readyEvents(), stats.wakeups()};
        StringBuilder line = new StringBuilder("backend=").append(stats.backend());
        for (int i = 0; i < values.length; i++) {
            line.append(' ').append(NAMES.get(i)).append('=').append(values[i]);
        }
        return line.toString();
    }
}
