/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.bench.harness;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * A figure of one server against its reference's, round by round: in each round both served,
 * this server's figure divided by the reference's in that same round, oldest round first.
 * Pairing by round cancels what drifts between rounds on a shared machine (other tenants, CPU
 * frequency, the kernel's tables), which the ratio of two medians taken over the rounds keeps;
 * the spread of the rounds' ratios then tells how far the median can be trusted.
 */
record PairedRatio(List<Double> ratios) {

    /** The spread the rounds' ratios may have, as a share of their median, before the row is flagged. */
    static final double AGREEMENT = 0.10;

    /** The ratios of the rounds in which both runs gave the figure; null when no round did. */
    static PairedRatio of(List<RunRecord> mine, List<RunRecord> reference, Function<RunRecord, Double> figure) {
        Map<Integer, Double> theirs = byRound(reference, figure);
        Map<Integer, Double> ours = byRound(mine, figure);
        List<Double> ratios = new ArrayList<>();
        ours.forEach((round, value) -> {
            Double other = theirs.get(round);
            if (other != null && other != 0) {
                ratios.add(value / other);
            }
        });
        return ratios.isEmpty() ? null : new PairedRatio(List.copyOf(ratios));
    }

    private static Map<Integer, Double> byRound(List<RunRecord> runs, Function<RunRecord, Double> figure) {
        Map<Integer, Double> values = new TreeMap<>();
        for (RunRecord run : runs) {
            Double value = figure.apply(run);
            if (value != null && !value.isNaN()) {
                values.put(run.round(), value);
            }
        }
        return values;
    }

    Spread spread() {
        return Spread.of(ratios);
    }

    double median() {
        return spread().median();
    }

    /** Whether the rounds' ratios spread over more than {@link #AGREEMENT} of their median. */
    boolean disagrees() {
        Spread s = spread();
        return s.max() - s.min() > AGREEMENT * Math.abs(s.median());
    }

    /** {@code 0.85-0.97}: the lowest and highest round's ratio. */
    String range() {
        Spread s = spread();
        return format(s.min()) + "-" + format(s.max());
    }

    /** {@code 0.85-0.97 (14% of 0.91)}: the range, and its width as a share of the median when that is not zero. */
    String rangeAgainstMedian() {
        Spread s = spread();
        return range() + (s.median() == 0 ? "" : String.format(Locale.ROOT, " (%.0f%% of %s)",
                100 * (s.max() - s.min()) / Math.abs(s.median()), format(s.median())));
    }

    /** The rounds' ratios, space-separated, oldest round first: {@code 0.91 0.95 0.93}. */
    String perRound() {
        return ratios.stream().map(PairedRatio::format).collect(Collectors.joining(" "));
    }

    /** {@code 0.93 [0.91 0.95 0.93] 0.91-0.95}: the median, every round's ratio, the range. */
    String describe() {
        return format(median()) + " [" + perRound() + "] " + range();
    }

    private static String format(double ratio) {
        return String.format(Locale.ROOT, "%.2f", ratio);
    }
}
