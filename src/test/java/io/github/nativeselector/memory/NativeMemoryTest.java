/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.nativeselector.support.InstallChild;
import io.github.nativeselector.support.TestSelectors;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Native memory does not grow with use: {@link NativeMemoryProbe} churns thousands of
 * selectors and half a million registrations in a child JVM whose heap is fixed and touched up
 * front and whose JIT stops at C1 (so neither grows the resident set once warm). The resident
 * anonymous memory is sampled every {@value #SAMPLE_EVERY} rounds; the first interval is not
 * judged (a one-time step, the JVM settling, is no leak; a leak grows every round), and over
 * the {@value #JUDGED_ROUNDS} rounds after it the memory must grow by at most
 * {@value #BOUND_KB} kB: a leak of about 640 bytes per selector or 9 bytes per registration
 * crosses that.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class NativeMemoryTest {

    static final int WARM_UP_ROUNDS = 200;
    static final int ROUNDS = 500;
    static final int SAMPLE_EVERY = 100;
    static final int JUDGED_ROUNDS = ROUNDS - SAMPLE_EVERY;
    static final long BOUND_KB = 4 * 1024;

    @ParameterizedTest
    @MethodSource("io.github.nativeselector.support.TestSelectors#natives")
    void residentMemoryStaysFlatUnderChurn(TestSelectors selectors) throws Exception {
        InstallChild.Result child = InstallChild.run(
                List.of("-Xms48m", "-Xmx48m", "-XX:+AlwaysPreTouch", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"),
                NativeMemoryProbe.class, selectors.name(), String.valueOf(WARM_UP_ROUNDS), String.valueOf(ROUNDS),
                String.valueOf(SAMPLE_EVERY));
        assertEquals(0, child.exitCode(), child::toString);
        String rss = child.value("rss");
        assertTrue(rss != null && rss.matches("\\d+(,\\d+)*"), child::toString);
        long[] samples = Arrays.stream(rss.split(",")).mapToLong(Long::parseLong).toArray();
        assertEquals(ROUNDS / SAMPLE_EVERY + 1, samples.length, child::toString);
        long growth = samples[samples.length - 1] - samples[1];
        System.out.printf("native memory, %s: RssAnon %s kB every %d rounds (%s registrations in all), grew %d kB"
                + " over the last %d rounds%n", selectors, rss, SAMPLE_EVERY, child.value("registrations"), growth,
                JUDGED_ROUNDS);
        assertTrue(growth <= BOUND_KB, () -> "RssAnon grew by " + growth + " kB over the last " + JUDGED_ROUNDS
                + " rounds (samples every " + SAMPLE_EVERY + " rounds: " + rss + " kB)");
    }
}
