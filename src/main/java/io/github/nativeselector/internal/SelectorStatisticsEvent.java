/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.internal;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.Period;
import jdk.jfr.StackTrace;

/** Every open native selector's counters since it was opened, one event per selector each period. */
@Name("io.github.nativeselector.SelectorStatistics")
@Label("Selector Statistics")
@Category({"Java Application", "Native Selector"})
@Description("The counters of one open native selector since it was opened")
@Period("5 s")
@StackTrace(false)
final class SelectorStatisticsEvent extends Event {

    @Label("Selector Id")
    @Description("As in the MBean's name, io.github.nativeselector:type=Selector,id=N")
    long selectorId;

    @Label("Backend")
    String backend;

    @Label("Batch Threshold")
    int batchThreshold;

    @Label("Batches")
    long batches;

    @Label("Changes Applied")
    long changesApplied;

    @Label("Kernel Calls for Changes")
    long kernelCallsForChanges;

    @Label("Polls")
    long polls;

    @Label("Polls without System Call")
    long pollsWithoutSyscall;

    @Label("Ready Events")
    long readyEvents;

    @Label("Wakeups")
    long wakeups;

    /** The periodic hook: one event per open selector. */
    static void emitAll() {
        for (SelectorRegistry.Entry entry : SelectorRegistry.open()) {
            CounterSnapshot stats = entry.stats();
            SelectorStatisticsEvent event = new SelectorStatisticsEvent();
            event.selectorId = entry.id();
            event.backend = entry.backend();
            event.batchThreshold = entry.batchThreshold();
            event.batches = stats.batches();
            event.changesApplied = stats.changesApplied();
            event.kernelCallsForChanges = stats.kernelCallsForChanges();
            event.polls = stats.polls();
            event.pollsWithoutSyscall = stats.pollsWithoutSyscall();
            event.readyEvents = stats.readyEvents();
            event.wakeups = stats.wakeups();
            event.commit();
        }
    }
}
