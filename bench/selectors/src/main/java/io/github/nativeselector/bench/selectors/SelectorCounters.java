package io.github.nativeselector.bench.selectors;

import io.github.nativeselector.SelectorStats;
import java.nio.channels.Selector;
import java.util.List;
import java.util.Optional;

/**
 * native-selector's counters ({@link SelectorStats}) summed over a server's selectors, written
 * as {@code key=value} fields under the names the harness reads ({@link #NAMES}).
 */
public record SelectorCounters(
        String backend,
        long batches,
        long changes,
        long kernelCallsForChanges,
        long polls,
        long pollsWithoutSyscall,
        long readyEvents,
        long wakeups) {

    /** The field names, in the order of the record's counters. */
    public static final List<String> NAMES = List.of("batches", "changes", "kernel_calls_for_changes", "polls",
            "polls_without_syscall", "ready_events", "wakeups");

    /** The sum of the counters of the native selectors among {@code selectors}; empty if there are none. */
    public static Optional<SelectorCounters> of(List<? extends Selector> selectors) {
        SelectorCounters sum = null;
        for (Selector selector : selectors) {
            Optional<SelectorStats> stats = SelectorStats.of(selector);
            if (stats.isEmpty()) {
                continue;
            }
            SelectorStats s = stats.get();
            SelectorCounters one = new SelectorCounters(s.backend(), s.batches(), s.changesApplied(),
                    s.kernelCallsForChanges(), s.polls(), s.pollsWithoutSyscall(), s.readyEvents(), s.wakeups());
            sum = sum == null ? one : sum.plus(one);
        }
        return Optional.ofNullable(sum);
    }

    private SelectorCounters plus(SelectorCounters o) {
        return new SelectorCounters(backend, batches + o.batches, changes + o.changes,
                kernelCallsForChanges + o.kernelCallsForChanges, polls + o.polls,
                pollsWithoutSyscall + o.pollsWithoutSyscall, readyEvents + o.readyEvents, wakeups + o.wakeups);
    }

    /** {@code backend=... batches=... ...}: every counter as a field. */
    public String fields() {
        long[] values = {batches, changes, kernelCallsForChanges, polls, pollsWithoutSyscall, readyEvents, wakeups};
        StringBuilder line = new StringBuilder("backend=").append(backend);
        for (int i = 0; i < values.length; i++) {
            line.append(' ').append(NAMES.get(i)).append('=').append(values[i]);
        }
        return line.toString();
    }
}
