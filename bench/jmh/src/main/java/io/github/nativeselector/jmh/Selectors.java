package io.github.nativeselector.jmh;

import io.github.nativeselector.NativeSelectorProvider;
import io.github.nativeselector.SelectorStats;
import java.io.IOException;
import java.nio.channels.Selector;
import java.util.Optional;

/** Opens the selector a benchmark's {@code backend} parameter names, and proves it got it. */
final class Selectors {

    /** The values of the {@code backend} parameter. */
    static final String IO_URING = "io_uring";
    static final String EPOLL = "epoll";
    static final String JDK = "jdk";

    private Selectors() {}

    /**
     * A selector on {@code backend} ({@code io_uring}, {@code epoll}, or {@code jdk} for the
     * JDK's built-in selector) with the given batch threshold (ignored by the JDK's selector).
     * Fails unless the selector is what was asked for.
     */
    static Selector open(String backend, int batchThreshold) throws IOException {
        System.setProperty("nativeselector.backend", backend);
        System.setProperty("nativeselector.batchThreshold", Integer.toString(batchThreshold));
        Selector selector = new NativeSelectorProvider().openSelector();
        Optional<SelectorStats> stats = SelectorStats.of(selector);
        String got = stats.map(SelectorStats::backend).orElse(JDK);
        if (!got.equals(backend)) {
            selector.close();
            throw new IllegalStateException("asked for the " + backend + " selector, got " + got
                    + " (" + selector.getClass().getName() + ")");
        }
        return selector;
    }

    /** One line of the selector's counters for the fork's log, or a note that it has none. */
    static String describe(Selector selector) {
        return SelectorStats.of(selector)
                .map(s -> "stats backend=" + s.backend() + " batches=" + s.batches()
                        + " changes=" + s.changesApplied() + " kernel_calls_for_changes=" + s.kernelCallsForChanges()
                        + " polls=" + s.polls() + " polls_without_syscall=" + s.pollsWithoutSyscall()
                        + " ready_events=" + s.readyEvents())
                .orElse("stats: none (" + selector.getClass().getName() + ")");
    }
}
