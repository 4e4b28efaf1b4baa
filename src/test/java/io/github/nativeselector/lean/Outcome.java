/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.lean;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.Callable;

/**
 * What a call did, as text that can be compared between the JDK's channels and lean ones: the
 * value it returned, or the class and message of what it threw.
 */
final class Outcome {

    private Outcome() {
    }

    static String of(Callable<?> call) {
        try {
            return "returned " + call.call();
        } catch (Exception e) {
            return thrown(e);
        }
    }

    static String thrown(Throwable e) {
        return e.getClass().getName() + ": " + e.getMessage();
    }

    /** A void call's outcome. */
    static String ofRun(Step step) {
        return of(() -> {
            step.run();
            return "normally";
        });
    }

    /**
     * Asserts that {@code actual} is the running JDK's outcome {@code jdk}, or {@code otherRelease}:
     * what another JDK release (17 to 25) does where they differ, since one implementation cannot
     * follow both.
     */
    static void assertJdkOrOtherRelease(String jdk, String otherRelease, String actual, String what) {
        if (!actual.equals(otherRelease)) {
            assertEquals(jdk, actual, what + " (another JDK release: " + otherRelease + ")");
        }
    }

    @FunctionalInterface
    interface Step {
        void run() throws Exception;
    }
}
