/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.bench.harness;

import java.util.List;

/**
 * The presets. QUICK shows every experiment in a few minutes (rough figures: one round, short
 * windows, little warm-up); FULL is for figures to publish; SMOKE only proves that every server
 * and experiment still runs (a fraction of a second each, no warm-up).
 */
enum Mode {
    QUICK(new Settings(1, 1.0, 0.5, 1.0, List.of(1, 8, 64, 512), 256, List.of(0, 1000, 8000), 16, List.of(1, 4),
            1700, List.of(1, 64, 1000), 64, 64)),
    FULL(new Settings(3, 5.0, 2.0, 5.0, List.of(1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024), 256, List.of(0, 1000, 8000), 16,
            List.of(1, 2, 4, 8, 16), 1700, List.of(1, 64, 1000), 64, 64)),
    SMOKE(new Settings(1, 0.0, 0.0, 0.3, List.of(1), 8, List.of(100), 4, List.of(2), 50, List.of(64), 64, 8));

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
