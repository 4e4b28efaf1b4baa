/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.races;

import static io.github.nativeselector.support.ContractChannels.writeFully;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.github.nativeselector.support.CloseReuseFds;
import io.github.nativeselector.support.ContractChannels.PipePair;
import io.github.nativeselector.support.ContractSupport;
import io.github.nativeselector.support.RaceSupport;
import io.github.nativeselector.support.TestSelectors;
import java.io.IOException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Each selector under {@link SelectorStress} for a few seconds
 * ({@code -Dnativeselector.stress.seconds=N} for longer): no exception the specification does
 * not allow, no lost wakeup, no deadlock; afterwards the selector still selects, and once it
 * and every channel are closed the process has exactly the file descriptors it had before.
 */
class SelectorStressTest {

    static final String SECONDS_PROPERTY = "nativeselector.stress.seconds";
    static final int DEFAULT_SECONDS = 2;

    /** A first, short run loads classes and whatever the JDK opens once, before the fds are counted. */
    private static final long WARM_UP_MILLIS = 300;

    @ParameterizedTest
    @MethodSource(ContractSupport.ALL)
    void concurrentUseLosesNothingAndLeaksNothing(TestSelectors selectors) {
        long seconds = Long.getLong(SECONDS_PROPERTY, DEFAULT_SECONDS);
        // Every wait inside is bounded; this bound catches a close() that never returns.
        Duration bound = Duration.ofSeconds(60 + seconds);
        assertTimeoutPreemptively(bound, () -> {
            runAndClose(selectors, WARM_UP_MILLIS, false);
            Map<Integer, String> baseline = CloseReuseFds.snapshot();
            SelectorStress stress = runAndClose(selectors, seconds * 1000, true);
            CloseReuseFds.assertBackToBaseline(baseline, "after " + stress.channelsOpened.get()
                    + " channels were opened and closed and the selector was closed");
            System.out.printf("stress, %s: %d s, %d selects, %d keys handled, %d channels opened and closed, "
                    + "%d registration changes and channel operations, %d refused (allowed exceptions), "
                    + "%d wakeups checked, %d interrupts seen, %d fds before and after%n", selectors, seconds,
                    stress.selects.get(), stress.keysHandled.get(), stress.channelsOpened.get(),
                    stress.mutations.get(), stress.refusals.get(), stress.wakeupsChecked.get(),
                    stress.interruptsSeen.get(), baseline.size());
        }, () -> "the stress run did not finish within " + bound.toSeconds() + " s:\n" + RaceSupport.allThreads());
    }

    private static SelectorStress runAndClose(TestSelectors selectors, long millis, boolean requireWakeupCheck)
            throws Exception {
        Selector selector = selectors.open();
        SelectorStress stress = new SelectorStress(selector);
        try {
            List<String> problems = stress.run(millis, selectors.ordinal());
            if (!problems.isEmpty()) {
                fail(problems.size() + " problems; the first:\n" + problems.get(0));
            }
            assertTrue(stress.selects.get() > 0, "the load never got going: no select in " + millis + " ms");
            // One wakeup check may wait 200 ms for an untimed select on a cold JIT and a loaded CPU:
            // more than the warm-up, which is there for what it opens, can be sure to give it.
            if (requireWakeupCheck) {
                assertTrue(stress.wakeupsChecked.get() > 0, "no wakeup was checked in " + millis + " ms ("
                        + stress.selects.get() + " selects)");
            }
            assertStillSelects(selector);
        } finally {
            selector.close();
            for (StressChannel channel : stress.channels()) {
                channel.close();
            }
        }
        return stress;
    }

    private static void assertStillSelects(Selector selector) throws IOException {
        try (PipePair pipe = PipePair.open()) {
            pipe.source.configureBlocking(false);
            SelectionKey key = pipe.source.register(selector, SelectionKey.OP_READ);
            writeFully(pipe.sink, 1);
            ContractSupport.awaitSelected(selector, key);
            assertEquals(SelectionKey.OP_READ, key.readyOps());
        }
    }
}
