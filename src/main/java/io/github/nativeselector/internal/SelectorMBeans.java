package io.github.nativeselector.internal;

import io.github.nativeselector.SelectorMXBean;
import io.github.nativeselector.SelectorsMXBean;
import java.lang.management.ManagementFactory;
import javax.management.InstanceAlreadyExistsException;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * The MBeans on the platform MBean server: {@code io.github.nativeselector:type=Selector,id=N}
 * per open selector, and {@code io.github.nativeselector:type=Selectors} for all of them. Loaded
 * only where the runtime has {@code java.management}.
 */
final class SelectorMBeans {

    static final String DOMAIN = "io.github.nativeselector";

    private static boolean totalsRegistered;

    private SelectorMBeans() {
    }

    /** Registers the selector's MBean (and the totals, the first time); returns its name. */
    static ObjectName register(SelectorRegistry.Entry entry) throws JMException {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        registerTotals(server);
        ObjectName name = new ObjectName(DOMAIN + ":type=Selector,id=" + entry.id());
        server.registerMBean(new SelectorBean(entry), name);
        return name;
    }

    static void unregister(Object name) throws JMException {
        ManagementFactory.getPlatformMBeanServer().unregisterMBean((ObjectName) name);
    }

    private static synchronized void registerTotals(MBeanServer server) throws JMException {
        if (totalsRegistered) {
            return;
        }
        try {
            server.registerMBean(new TotalsBean(), new ObjectName(DOMAIN + ":type=Selectors"));
        } catch (InstanceAlreadyExistsException anotherCopy) {
            // Another copy of this library (another class loader) publishes its own selectors' totals.
        }
        totalsRegistered = true;
    }

    /** Reads one selector's counters; holds them, not the selector. */
    private static final class SelectorBean implements SelectorMXBean {
        private final SelectorRegistry.Entry entry;

        SelectorBean(SelectorRegistry.Entry entry) {
            this.entry = entry;
        }

        @Override
        public String getBackend() {
            return entry.backend();
        }

        @Override
        public int getBatchThreshold() {
            return entry.batchThreshold();
        }

        @Override
        public long getBatches() {
            return entry.stats().batches();
        }

        @Override
        public long getChangesApplied() {
            return entry.stats().changesApplied();
        }

        @Override
        public long getKernelCallsForChanges() {
            return entry.stats().kernelCallsForChanges();
        }

        @Override
        public long getPolls() {
            return entry.stats().polls();
        }

        @Override
        public long getPollsWithoutSyscall() {
            return entry.stats().pollsWithoutSyscall();
        }

        @Override
        public long getReadyEvents() {
            return entry.stats().readyEvents();
        }

        @Override
        public long getWakeups() {
            return entry.stats().wakeups();
        }
    }

    /** Reads the registry's totals. */
    private static final class TotalsBean implements SelectorsMXBean {

        @Override
        public int getOpenSelectors() {
            return SelectorRegistry.openCount();
        }

        @Override
        public long getSelectorsOpened() {
            return SelectorRegistry.openedCount();
        }

        @Override
        public long getBatches() {
            return SelectorRegistry.totals().batches();
        }

        @Override
        public long getChangesApplied() {
            return SelectorRegistry.totals().changesApplied();
        }

        @Override
        public long getKernelCallsForChanges() {
            return SelectorRegistry.totals().kernelCallsForChanges();
        }

        @Override
        public long getPolls() {
            return SelectorRegistry.totals().polls();
        }

        @Override
        public long getPollsWithoutSyscall() {
            return SelectorRegistry.totals().pollsWithoutSyscall();
        }

        @Override
        public long getReadyEvents() {
            return SelectorRegistry.totals().readyEvents();
        }

        @Override
        public long getWakeups() {
            return SelectorRegistry.totals().wakeups();
        }
    }
}
