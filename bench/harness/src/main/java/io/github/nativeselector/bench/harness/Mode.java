/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.bench.harness;

import java.util.List;

/**
 * The presets. QUICK shows every experiment in a few minutes (rough figures: one round, short
 * windows, little warm-up); FULL is for figures to publish (the paired experiment over 7
 * rounds); SMOKE only proves that every server and experiment still runs (a fraction of a
 * second each, no warm-up; two rounds of the paired experiment, so that its servers serve more
 * than one).
 */
enum Mode {
    QUICK(new Settings(1, 1.0, 0.5, 1.0, List.of(1, 8, 64, 512), 256, List.of(0, 1000, 8000), 16, List.of(1, 4),
            1700, List.of(1, 64, 1000), 64, 64, new Settings.Paired(1, 1000, 16, 8000, List.of(64, 256)))),
    FULL(new Settings(3, 5.0, 2.0, 5.0, List.of(1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024), 256, List.of(0, 1000, 8000), 16,
            List.of(1, 2, 4, 8, 16), 1700, List.of(1, 64, 1000), 64, 64,
            new Settings.Paired(7, 1000, 16, 8000, List.of(64, 256)))),
    SMOKE(new Settings(1, 0.0, 0.0, 0.3, List.of(1), 8, List.of(100), 4, List.of(2), 50, List.of(64), 64, 8,
            new Settings.Paired(2, 64, 4, 100, List.of(8, 16))));

    final Settings settings;

    Mode(Settings settings) {
        this.settings = settings;
    }

    static Mode named(String name) {
        for (Mode mode : values()) {
            if (mode.name().equalsIgnoreCase(name)) {
                return mode;
            }
        }
        throw new IllegalArgumentException("unknown mode '" + name + "'; expected quick, full or smoke");
    }
}
