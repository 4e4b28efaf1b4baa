/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.bench.harness;

/**
 * A process's CPU time as {@code /proc/PID/stat} counts it (utime and stime, all its threads),
 * in clock ticks: user and system apart, because a selector moves work between the two (fewer
 * system calls, more bookkeeping in Java) and their sum hides that.
 */
record CpuTime(long userTicks, long systemTicks) {

    /** The time spent since {@code earlier}. */
    CpuTime since(CpuTime earlier) {
        return new CpuTime(userTicks - earlier.userTicks, systemTicks - earlier.systemTicks);
    }

    double userSeconds() {
        return userTicks / (double) ClockTicks.PER_SECOND;
    }

    double systemSeconds() {
        return systemTicks / (double) ClockTicks.PER_SECOND;
    }
}
