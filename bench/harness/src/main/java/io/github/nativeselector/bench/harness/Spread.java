/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.bench.harness;

import java.util.List;

/**
 * The median, minimum and maximum of some figures: a JMH cell's measured iterations, a load
 * figure over the rounds, the paired ratios of the rounds.
 */
record Spread(double median, double min, double max, int samples) {

    /** The spread of {@code values}, of which there must be at least one. */
    static Spread of(List<Double> values) {
        double[] v = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        int n = v.length;
        return new Spread(n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2, v[0], v[n - 1], n);
    }
}
