/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.install;

import io.github.nativeselector.SelectorsMXBean;
import java.lang.management.ManagementFactory;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import javax.management.JMX;
import javax.management.ObjectName;

/**
 * The totals MBean ({@code io.github.nativeselector:type=Selectors}, with a {@code loader} key when
 * a class loader of the application's own loaded the library) as a child JVM prints it, in one
 * {@code totals=} line, and as a test reads that line back.
 */
final class SelectorTotals {

    private SelectorTotals() {
    }

    /** Prints {@code totals=selectorsOpened=N readyEvents=N ...}, or {@code totals=absent}. */
    static void print() throws Exception {
        print("totals");
    }

    /** Prints the counters as {@code print()} does, under {@code key} (one line per phase of a probe). */
    static void print(String key) throws Exception {
        Set<ObjectName> names = ManagementFactory.getPlatformMBeanServer()
                .queryNames(new ObjectName("io.github.nativeselector:type=Selectors,*"), null);
        if (names.size() != 1) {
            System.out.println(key + "=" + (names.isEmpty() ? "absent" : "several " + names));
            return;
        }
        ObjectName name = names.iterator().next();
        SelectorsMXBean totals = JMX.newMXBeanProxy(ManagementFactory.getPlatformMBeanServer(), name,
                SelectorsMXBean.class);
        System.out.println(key + "=selectorsOpened=" + totals.getSelectorsOpened()
                + " polls=" + totals.getPolls()
                + " readyEvents=" + totals.getReadyEvents()
                + " changesApplied=" + totals.getChangesApplied());
    }

    /** The counters of a {@code totals=} line's value. */
    static Map<String, Long> parse(String value) {
        Map<String, Long> counters = new LinkedHashMap<>();
        if (value == null || value.equals("absent")) {
            return counters;
        }
        for (String field : value.split(" ")) {
            String[] pair = field.split("=", 2);
            counters.put(pair[0], Long.parseLong(pair[1]));
        }
        return counters;
    }
}
