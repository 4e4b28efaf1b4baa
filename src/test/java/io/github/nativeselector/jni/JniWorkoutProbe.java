/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.jni;

import io.github.nativeselector.fuzz.DifferentialFuzzTest;
import io.github.nativeselector.fuzz.FuzzLockstep;
import io.github.nativeselector.fuzz.FuzzProgram;
import io.github.nativeselector.races.SelectorStress;
import io.github.nativeselector.races.StressChannel;
import io.github.nativeselector.support.TestSelectors;
import java.nio.channels.Selector;
import java.util.List;

/**
 * Child-JVM main for {@link CheckJniTest}: drives every selector through the JNI entry points
 * the library has (opening, registration batches, waits, wakeups, the JDK channels' fd and
 * kill(), closing), by way of differential fuzz programs and a short stress run, and prints
 * what it did. Divergences and stress findings are counted, not judged: their own tests do that.
 */
public final class JniWorkoutProbe {

    private JniWorkoutProbe() {
    }

    /** @param args the number of fuzz programs per selector, then the stress time per selector in ms */
    public static void main(String[] args) throws Exception {
        int programs = Integer.parseInt(args[0]);
        long stressMillis = Long.parseLong(args[1]);
        for (TestSelectors selectors : TestSelectors.all().toList()) {
            FuzzLockstep.Tally tally = new FuzzLockstep.Tally();
            int divergent = 0;
            for (int seed = 1; seed <= programs; seed++) {
                if (FuzzLockstep.run(FuzzProgram.generate(seed, DifferentialFuzzTest.DEFAULT_STEPS), selectors,
                        tally) != null) {
                    divergent++;
                }
            }
            System.out.println(selectors + ".fuzz=" + tally.programs + " programs, " + tally.steps + " steps, "
                    + divergent + " divergent");
            Selector selector = selectors.open();
            SelectorStress stress = new SelectorStress(selector);
            List<String> problems;
            try {
                problems = stress.run(stressMillis, selectors.ordinal());
            } finally {
                selector.close();
                stress.channels().forEach(StressChannel::close);
            }
            System.out.println(selectors + ".stress=" + stress.selects.get() + " selects, "
                    + stress.mutations.get() + " operations, " + problems.size() + " problems");
        }
        System.out.flush();
    }
}
