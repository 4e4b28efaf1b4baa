/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.internal;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The open native selectors and the summed counters of the closed ones: what the MBeans and the
 * flight recorder's periodic event read. It holds each selector's {@link Counters}, never the
 * selector, so a selector nobody closed still becomes unreachable, and its cleaner removes it here.
 */
final class SelectorRegistry {

    /** One open selector as monitoring sees it. */
    record Entry(String backend, int batchThreshold, Counters counters) {

        long id() {
            return counters.id();
        }

        CounterSnapshot stats() {
            return counters.snapshot(backend);
        }
    }

    private static final String ALL_BACKENDS = "all";

    private static final Map<Long, Entry> OPEN = new LinkedHashMap<>();
    private static CounterSnapshot closedTotals = new CounterSnapshot(ALL_BACKENDS, 0, 0, 0, 0, 0, 0, 0);
    private static long opened;

    private SelectorRegistry() {
    }

    static synchronized void add(Entry entry) {
        OPEN.put(entry.id(), entry);
        opened++;
    }

    /** Moves the selector's counters into the closed selectors' totals; a second call does nothing. */
    static synchronized void remove(Entry entry) {
        if (OPEN.remove(entry.id()) != null) {
            closedTotals = closedTotals.plus(entry.stats());
        }
    }

    static synchronized List<Entry> open() {
        return new ArrayList<>(OPEN.values());
    }

    static synchronized int openCount() {
        return OPEN.size();
    }

    static synchronized long openedCount() {
        return opened;
    }

    /** The counters of every selector ever opened, with backend {@code "all"}. */
    static synchronized CounterSnapshot totals() {
        CounterSnapshot totals = closedTotals;
        for (Entry entry : OPEN.values()) {
            totals = totals.plus(entry.stats());
        }
        return totals;
    }
}
