/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.bench.selectors;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A process's CPU time as {@code /proc/PID/stat} counts it (utime and stime, all its threads),
 * in clock ticks: user and system apart, because a selector moves work between the two (fewer
 * system calls, more bookkeeping in Java) and their sum hides that.
 */
public record CpuTime(long userTicks, long systemTicks) {

    /** The CPU time so far of the process whose {@code stat} file that is ({@code /proc/self/stat} for this one). */
    public static CpuTime read(Path statFile) throws IOException {
        String stat = Files.readString(statFile);
        // The command name (field 2) may hold spaces; the fields after it are plain numbers.
        String[] after = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
        // utime and stime are fields 14 and 15 of the line, 12 and 13 after the name (state is field 3).
        return new CpuTime(Long.parseLong(after[11]), Long.parseLong(after[12]));
    }

    /** The time spent since {@code earlier}. */
    public CpuTime since(CpuTime earlier) {
        return new CpuTime(userTicks - earlier.userTicks, systemTicks - earlier.systemTicks);
    }

    /** The sum of {@code this} and {@code other}. */
    public CpuTime plus(CpuTime other) {
        return new CpuTime(userTicks + other.userTicks, systemTicks + other.systemTicks);
    }

    public double userSeconds() {
        return userTicks / (double) ClockTicks.PER_SECOND;
    }

    public double systemSeconds() {
        return systemTicks / (double) ClockTicks.PER_SECOND;
    }
}
