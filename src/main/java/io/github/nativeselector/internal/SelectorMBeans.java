/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.internal;

import io.github.nativeselector.SelectorCounters;
import io.github.nativeselector.SelectorMXBean;
import io.github.nativeselector.SelectorsMXBean;
import java.lang.management.ManagementFactory;
import javax.management.InstanceAlreadyExistsException;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * The MBeans on the platform MBean server: {@code io.github.nativeselector:type=Selector,id=N}
 * per open selector, and {@code io.github.nativeselector:type=Selectors} for all of this copy's,
 * with a {@code loader} key once another copy of the library (another class loader's) holds a
 * name. Loaded only where the runtime has {@code java.management}.
 */
final class SelectorMBeans {

    static final String DOMAIN = "io.github.nativeselector";

    /**
     * What tells this copy's names from another copy's (another class loader's, whose selectors are
     * numbered from 1 too): nothing until a name it asks for is another copy's, then
     * {@code ,loader=<identity hash>} in every name it registers from then on.
     */
    private static volatile String copyKey = "";
    /** The totals' name while they are registered. */
    private static ObjectName totals;

    private SelectorMBeans() {
    }

    /** Registers the selector's MBean; returns its name. */
    static ObjectName register(SelectorRegistry.Entry entry) throws JMException {
        return registerUnique(new SelectorBean(entry), "Selector", ",id=" + entry.id());
    }

    static void unregister(Object name) throws JMException {
        ManagementFactory.getPlatformMBeanServer().unregisterMBean((ObjectName) name);
    }

    /** Registers the totals, unless they are. */
    static synchronized void registerTotals() throws JMException {
        if (totals == null) {
            totals = registerUnique(new TotalsBean(), "Selectors", "");
        }
    }

    /** Unregisters the totals, if they are registered. */
    static synchronized void unregisterTotals() throws JMException {
        ObjectName name = totals;
        totals = null;
        if (name != null) {
            unregister(name);
        }
    }

    private static ObjectName registerUnique(Object bean, String type, String rest) throws JMException {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        String key = copyKey;
        try {
            return server.registerMBean(bean, new ObjectName(DOMAIN + ":type=" + type + key + rest)).getObjectName();
        } catch (InstanceAlreadyExistsException anotherCopys) {
            if (!key.isEmpty()) {
                throw anotherCopys;
            }
            copyKey = ",loader=" + Integer.toHexString(System.identityHashCode(SelectorMBeans.class.getClassLoader()));
            return server.registerMBean(bean, new ObjectName(DOMAIN + ":type=" + type + copyKey + rest)).getObjectName();
        }
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
