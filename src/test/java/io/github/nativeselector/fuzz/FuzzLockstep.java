/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.fuzz;

import io.github.nativeselector.fuzz.FuzzWorld.Observation;
import io.github.nativeselector.support.TestSelectors;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs a fuzz program against the JDK's selector and a selector under test, step by step, each
 * on its own channels, and stops at the first step whose outcome or resulting state differs.
 */
public final class FuzzLockstep {

    /** Where two runs of a program parted: the step, both observations, and the program up to it as Java. */
    record Divergence(int step, Observation expected, Observation actual, List<String> transcript) {
    }

    /** What a run did, for the summary. */
    public static final class Tally {
        public long programs;
        public long steps;
        long selects;
        /** Selects whose result (in the JDK's selector) counted at least one key. */
        long selectsWithKeys;
        long skipped;
    }

    private FuzzLockstep() {
    }

    /** The first divergence, or null when the two selectors agree on every step. */
    public static Divergence run(FuzzProgram program, TestSelectors tested, Tally tally) throws Exception {
        try (FuzzWorld reference = new FuzzWorld(TestSelectors.JDK); FuzzWorld candidate = new FuzzWorld(tested)) {
            List<String> transcript = new ArrayList<>();
            tally.programs++;
            for (int i = 0; i < program.steps().size(); i++) {
                FuzzStep step = program.steps().get(i);
                String line = reference.describe(step);
                Observation expected = reference.execute(step);
                Observation actual = observe(candidate, step);
                tally.steps++;
                if (step.op().selects()) {
                    tally.selects++;
                    tally.selectsWithKeys += expected.result().matches("-> [1-9].*") ? 1 : 0;
                }
                tally.skipped += expected.result().equals("skip") ? 1 : 0;
                transcript.add(line + padding(line) + "// " + expected.result());
                if (!expected.equals(actual)) {
                    return new Divergence(i, expected, actual, transcript);
                }
            }
            return null;
        }
    }

    /**
     * The tested world's observation; a harness check failing there (say, data the JDK's selector
     * never sees arrive on a channel the tested selector released) is a divergence too.
     */
    private static Observation observe(FuzzWorld candidate, FuzzStep step) throws Exception {
        try {
            return candidate.execute(step);
        } catch (AssertionError e) {
            return new Observation("harness check failed: " + e.getMessage(), "unknown");
        }
    }

    private static String padding(String line) {
        return " ".repeat(Math.max(1, 72 - line.length()));
    }
}
