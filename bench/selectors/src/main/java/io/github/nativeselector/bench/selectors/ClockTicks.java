/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.bench.selectors;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

/** The unit of the CPU times in {@code /proc/PID/stat}: sysconf(_SC_CLK_TCK), asked of getconf. */
final class ClockTicks {

    static final long PER_SECOND = read();

    private ClockTicks() {}

    private static long read() {
        try {
            Process getconf = new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
            String text = new String(getconf.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (getconf.waitFor() == 0) {
                return Long.parseLong(text);
            }
            throw new IllegalStateException("getconf CLK_TCK failed: " + text);
        } catch (IOException | NumberFormatException e) {
            throw new IllegalStateException("cannot learn the clock tick of /proc/PID/stat (getconf CLK_TCK): " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
