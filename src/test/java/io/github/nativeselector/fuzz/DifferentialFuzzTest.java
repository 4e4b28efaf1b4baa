/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.fuzz;

import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.fail;

import io.github.nativeselector.fuzz.FuzzLockstep.Divergence;
import io.github.nativeselector.fuzz.FuzzLockstep.Tally;
import io.github.nativeselector.fuzz.FuzzShrinker.Shrunk;
import io.github.nativeselector.support.TestSelectors;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Seeded random programs of selector operations run in lock step against each native selector
 * and the JDK's own, each on its own channels; after every step the outcome (return value,
 * exception class, keys handed to an action) and the visible state (key sets, each key's
 * interest and ready sets, channel registration) must be the same. A divergence is shrunk to a
 * short program and printed as Java with its seed.
 *
 * <p>One thread drives both selectors, so no registration ever changes while a select is in
 * progress: the one intended difference (a change that fills the batch queue reaches a select
 * already in progress) cannot show, and every difference found is a bug. Readiness that
 * travels is settled before the next step (see {@link FuzzEndpoint}).
 *
 * <p>{@code -Dnativeselector.fuzz.programs=N} (default {@value #DEFAULT_PROGRAMS} per selector),
 * {@code -Dnativeselector.fuzz.seed=S} (the first program's seed, the others follow it; default
 * {@value #DEFAULT_SEED}) and {@code -Dnativeselector.fuzz.steps=M} (at most M steps a program,
 * default {@value #DEFAULT_STEPS}) make a longer or a different run.
 */
public class DifferentialFuzzTest {

    static final String PROGRAMS_PROPERTY = "nativeselector.fuzz.programs";
    static final String SEED_PROPERTY = "nativeselector.fuzz.seed";
    static final String STEPS_PROPERTY = "nativeselector.fuzz.steps";
    static final int DEFAULT_PROGRAMS = 300;
    static final long DEFAULT_SEED = 1;
    public static final int DEFAULT_STEPS = 60;

    @ParameterizedTest
    @MethodSource("io.github.nativeselector.support.TestSelectors#natives")
    void behavesAsTheJdkSelectorDoes(TestSelectors tested) {
        int programs = Integer.getInteger(PROGRAMS_PROPERTY, DEFAULT_PROGRAMS);
        long firstSeed = Long.getLong(SEED_PROPERTY, DEFAULT_SEED);
        int maxSteps = Integer.getInteger(STEPS_PROPERTY, DEFAULT_STEPS);
        // Every wait inside is bounded; this bound catches a selector call that never returns.
        Duration bound = Duration.ofSeconds(60 + 2L * programs);
        assertTimeoutPreemptively(bound, () -> run(tested, programs, firstSeed, maxSteps),
                () -> "the fuzz run did not finish within " + bound.toSeconds() + " s");
    }

    private static void run(TestSelectors tested, int programs, long firstSeed, int maxSteps) throws Exception {
        Tally tally = new Tally();
        long start = System.nanoTime();
        for (int i = 0; i < programs; i++) {
            FuzzProgram program = FuzzProgram.generate(firstSeed + i, maxSteps);
            Divergence divergence;
            try {
                divergence = FuzzLockstep.run(program, tested, tally);
            } catch (Exception | AssertionError e) {
                throw new AssertionError("the program of seed " + program.seed() + " could not run on " + tested
                        + " and the JDK's selector: " + e, e);
            }
            if (divergence != null) {
                fail(report(tested, program, divergence));
            }
        }
        System.out.printf("differential fuzz, %s against JDK: %d programs (seeds %d to %d), %d steps, "
                + "%d of them selects (%d counting keys), %d skipped, %d ms, no divergence%n", tested, tally.programs,
                firstSeed, firstSeed + programs - 1, tally.steps, tally.selects, tally.selectsWithKeys, tally.skipped,
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
    }

    private static String report(TestSelectors tested, FuzzProgram program, Divergence divergence) throws Exception {
        Shrunk shrunk = FuzzShrinker.shrink(program, divergence, tested);
        Divergence last = shrunk.divergence();
        boolean reproduced = FuzzLockstep.run(shrunk.program(), tested, new Tally()) != null;
        StringBuilder text = new StringBuilder();
        text.append(tested).append(" differs from the JDK's selector in the program of seed ").append(program.seed())
                .append(" (rerun it alone: -D").append(SEED_PROPERTY).append('=').append(program.seed())
                .append(" -D").append(PROGRAMS_PROPERTY).append("=1 -D").append(STEPS_PROPERTY).append('=')
                .append(Integer.getInteger(STEPS_PROPERTY, DEFAULT_STEPS)).append(").\n")
                .append("Shrunk from ").append(divergence.step() + 1).append(" to ")
                .append(shrunk.program().steps().size()).append(" steps in ").append(shrunk.attempts())
                .append(" reruns; the shrunk program ").append(reproduced ? "diverges again" : "did NOT diverge again")
                .append(" on a rerun. Each line ends with what the JDK's selector returned:\n\n")
                .append("    Selector selector = ").append(tested).append(".open(); // and the JDK's, on other channels\n");
        for (String line : last.transcript()) {
            text.append("    ").append(line).append('\n');
        }
        String column = "%-" + tested.name().length() + "s: ";
        text.append("\nAfter the last step:\n")
                .append("    ").append(String.format(column, "JDK")).append(last.expected()).append('\n')
                .append("    ").append(String.format(column, tested)).append(last.actual()).append('\n');
        return text.toString();
    }
}
