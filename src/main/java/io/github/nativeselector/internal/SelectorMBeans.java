/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.internal;

import io.github.nativeselector.SelectorCounters;
import io.github.nativeselector.SelectorMXBean;
import io.github.nativeselector.SelectorsMXBean;
import java.lang.management.ManagementFactory;
import javax.management.JMException;
import javax.management.ObjectName;

/**
 * The MBeans on the platform MBean server: {@code io.github.nativeselector:type=Selector,id=N}
 * per open selector, and {@code io.github.nativeselector:type=Selectors} for all of them, with a
 * {@code loader} key in a copy of the library that another class loader than the system one
 * loaded. Loaded only where the runtime has {@code java.management}.
 */
final class SelectorMBeans {

    static final String DOMAIN = "io.github.nativeselector";

    /**
     * What tells this copy's names from another copy's: nothing for the system class loader's
     * copy; {@code ,loader=<identity hash>} for a copy that another loader loaded, whose selectors
     * would otherwise be numbered from 1 under the same names.
     */
    private static final String COPY = SelectorMonitoring.UNLOADABLE_COPY
            ? ",loader=" + Integer.toHexString(System.identityHashCode(SelectorMBeans.class.getClassLoader())) : "";
    private static final String TOTALS = DOMAIN + ":type=Selectors" + COPY;

    private SelectorMBeans() {
    }

    /** Registers the selector's MBean; returns its name. */
    static ObjectName register(SelectorRegistry.Entry entry) throws JMException {
        ObjectName name = new ObjectName(DOMAIN + ":type=Selector" + COPY + ",id=" + entry.id());
        ManagementFactory.getPlatformMBeanServer().registerMBean(new SelectorBean(entry), name);
        return name;
    }

    static void unregister(Object name) throws JMException {
        ManagementFactory.getPlatformMBeanServer().unregisterMBean((ObjectName) name);
    }

    static void registerTotals() throws JMException {
        ManagementFactory.getPlatformMBeanServer().registerMBean(new TotalsBean(), new ObjectName(TOTALS));
    }

    static void unregisterTotals() throws JMException {
        ManagementFactory.getPlatformMBeanServer().unregisterMBean(new ObjectName(TOTALS));
    }

    /** The counters as attributes, read from one snapshot source. */
    private abstract static class CountersBean implements SelectorCounters {

        abstract CounterSnapshot stats();

        @Override
        public long getBatches() {
            return stats().batches();
        }

        @Override
        public long getChangesApplied() {
            return stats().changesApplied();
        }

        @Override
        public long getKernelCallsForChanges() {
            return stats().kernelCallsForChanges();
        }

        @Override
        public long getPolls() {
            return stats().polls();
        }

        @Override
        public long getPollsWithoutSyscall() {
            return stats().pollsWithoutSyscall();
        }

        @Override
        public long getReadyEvents() {
            return stats().readyEvents();
        }

        @Override
        public long getWakeups() {
            return stats().wakeups();
        }
    }

    /** Reads one selector's counters; holds them, not the selector. */
    private static final class SelectorBean extends CountersBean implements SelectorMXBean {
        private final SelectorRegistry.Entry entry;

        SelectorBean(SelectorRegistry.Entry entry) {
            this.entry = entry;
        }

        @Override
        CounterSnapshot stats() {
            return entry.stats();
        }

        @Override
        public String getBackend() {
            return entry.backend();
        }

        @Override
        public int getBatchThreshold() {
            return entry.batchThreshold();
        }
    }

    /** Reads the registry's totals. */
    private static final class TotalsBean extends CountersBean implements SelectorsMXBean {

        @Override
        CounterSnapshot stats() {
            return SelectorRegistry.totals();
        }

        @Override
        public int getOpenSelectors() {
            return SelectorRegistry.openCount();
        }

        @Override
        public long getSelectorsOpened() {
            return SelectorRegistry.openedCount();
        }
    }
}
