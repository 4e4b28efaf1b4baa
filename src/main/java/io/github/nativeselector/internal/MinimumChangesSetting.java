/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.internal;

import java.util.Set;
import jdk.jfr.SettingControl;

/**
 * The {@code minimumChanges} setting of {@link BatchEvent}: batches with fewer changes are left
 * out. By default 16, so a recording shows the batches where batching pays without one event per
 * select; {@code 1} records every batch.
 */
public final class MinimumChangesSetting extends SettingControl {

    static final int DEFAULT = 16;

    private volatile int minimum = DEFAULT;

    /** Of several recordings' values, the smallest: each then gets at least the batches it asked for. */
    @Override
    public String combine(Set<String> values) {
        int smallest = Integer.MAX_VALUE;
        for (String value : values) {
            smallest = Math.min(smallest, parse(value));
        }
        return String.valueOf(smallest == Integer.MAX_VALUE ? DEFAULT : smallest);
    }

    @Override
    public void setValue(String value) {
        minimum = parse(value);
    }

    @Override
    public String getValue() {
        return String.valueOf(minimum);
    }

    int minimum() {
        return minimum;
    }

    private static int parse(String value) {
        try {
            return Math.max(1, Integer.parseInt(value.trim()));
        } catch (NumberFormatException e) {
            return DEFAULT;
        }
    }
}
