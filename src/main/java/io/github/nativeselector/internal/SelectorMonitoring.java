/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.internal;

import java.lang.System.Logger.Level;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Publishes one selector's counters, from when it is opened until {@link #stop}: in the
 * {@link SelectorRegistry}, as an MBean where the runtime has {@code java.management}, and to the
 * flight recorder where it has {@code jdk.jfr} (a runtime built with jlink may have neither).
 * Publishing never fails a selector: a failure is logged once and the selector works unpublished.
 *
 * <p>What is published for all of this copy's selectors, the totals MBean and the flight recorder
 * listener, is published with the first. Where a class loader that can be unloaded loaded this
 * copy (a web application's, say), it is withdrawn with the last open selector, and published again
 * with the next: the platform MBean server and the recorder would otherwise hold this copy's
 * classes, and that loader with everything it loaded, for the life of the JVM. The system class
 * loader's copy, never unloaded, keeps it and saves the next open the work. {@code PUBLICATION}'s
 * monitor guards it; the registry is changed before it is taken, so that the last to take it
 * decides from the registry as it is.
 */
final class SelectorMonitoring {

    private static final System.Logger LOG = System.getLogger("io.github.nativeselector");
    private static final boolean JMX_PRESENT = ModuleLayer.boot().findModule("java.management").isPresent();
    private static final AtomicBoolean FAILURE_LOGGED = new AtomicBoolean();
    private static final Object PUBLICATION = new Object();
    /** Whether a class loader that can be unloaded, not the system one, loaded this copy. */
    private static final boolean UNLOADABLE_COPY = unloadable(SelectorMonitoring.class.getClassLoader());

    private final SelectorRegistry.Entry entry;
    /** The MBean's name (a javax.management.ObjectName) while it is registered. */
    private final AtomicReference<Object> mbeanName = new AtomicReference<>();

    private SelectorMonitoring(SelectorRegistry.Entry entry) {
        this.entry = entry;
    }

    static SelectorMonitoring start(String backend, int batchThreshold, Counters counters, boolean jmx) {
        SelectorMonitoring monitoring = new SelectorMonitoring(new SelectorRegistry.Entry(backend, batchThreshold, counters));
        SelectorRegistry.add(monitoring.entry);
        publishForAll(jmx);
        if (jmx && JMX_PRESENT) {
            try {
                monitoring.mbeanName.set(SelectorMBeans.register(monitoring.entry));
            } catch (Exception | LinkageError e) {
                logOnce("selector MBean not registered", e);
            }
        }
        return monitoring;
    }

    /** Withdraws the selector; called on close and by the cleaner, so it may run twice. */
    void stop() {
        SelectorRegistry.remove(entry);
        Object name = mbeanName.getAndSet(null);
        if (name != null) {
            try {
                SelectorMBeans.unregister(name);
            } catch (Exception e) {
                logOnce("selector MBean not unregistered", e);
            }
        }
        withdrawForAllIfNoneOpen();
    }

    private static void publishForAll(boolean jmx) {
        synchronized (PUBLICATION) {
            FlightRecording.install();
            if (jmx && JMX_PRESENT) {
                try {
                    SelectorMBeans.registerTotals();
                } catch (Exception e) {
                    logOnce("selector totals MBean not registered", e);
                }
            }
        }
    }

    private static boolean unloadable(ClassLoader loader) {
        return loader != null && loader != ClassLoader.getPlatformClassLoader()
                && loader != ClassLoader.getSystemClassLoader();
    }

    private static void withdrawForAllIfNoneOpen() {
        if (!UNLOADABLE_COPY) {
            return;
        }
        synchronized (PUBLICATION) {
            if (SelectorRegistry.openCount() > 0) {
                return;
            }
            FlightRecording.uninstall();
            if (JMX_PRESENT) {
                try {
                    SelectorMBeans.unregisterTotals();
                } catch (Exception e) {
                    logOnce("selector totals MBean not unregistered", e);
                }
            }
        }
    }

    static void logOnce(String what, Throwable e) {
        if (FAILURE_LOGGED.compareAndSet(false, true)) {
            LOG.log(Level.WARNING, what + ": " + e, e);
        }
    }
}
