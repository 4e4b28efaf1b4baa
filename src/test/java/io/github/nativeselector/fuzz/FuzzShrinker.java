/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.fuzz;

import io.github.nativeselector.fuzz.FuzzLockstep.Divergence;
import io.github.nativeselector.support.TestSelectors;
import java.util.ArrayList;
import java.util.List;

/**
 * Makes a diverging program short: cut it after the diverging step, then drop runs of steps
 * (halves, quarters, ... single steps) for as long as what remains still diverges.
 */
final class FuzzShrinker {

    /** Each attempt reruns the program on fresh channels; this bounds the time spent. */
    private static final int MAX_ATTEMPTS = 400;

    /** The shortest program found, and its divergence. */
    record Shrunk(FuzzProgram program, Divergence divergence, int attempts) {
    }

    private FuzzShrinker() {
    }

    static Shrunk shrink(FuzzProgram program, Divergence divergence, TestSelectors tested) throws Exception {
        FuzzLockstep.Tally ignored = new FuzzLockstep.Tally();
        List<FuzzStep> steps = upTo(program.steps(), divergence);
        Divergence last = divergence;
        int attempts = 0;
        int chunk = Math.max(1, steps.size() / 2);
        while (attempts < MAX_ATTEMPTS) {
            boolean dropped = false;
            for (int start = 0; start < steps.size() && attempts < MAX_ATTEMPTS; ) {
                List<FuzzStep> candidate = new ArrayList<>(steps.subList(0, start));
                candidate.addAll(steps.subList(Math.min(steps.size(), start + chunk), steps.size()));
                attempts++;
                Divergence d = candidate.isEmpty() ? null
                        : FuzzLockstep.run(program.withSteps(candidate), tested, ignored);
                if (d != null) {
                    steps = upTo(candidate, d);
                    last = d;
                    dropped = true;
                } else {
                    start += chunk;
                }
            }
            if (!dropped) {
                if (chunk == 1) {
                    break;
                }
                chunk /= 2;
            }
        }
        return new Shrunk(program.withSteps(steps), last, attempts);
    }

    private static List<FuzzStep> upTo(List<FuzzStep> steps, Divergence divergence) {
        return new ArrayList<>(steps.subList(0, divergence.step() + 1));
    }
}
