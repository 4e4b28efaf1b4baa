/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.internal;

/**
 * The gate to the flight recorder, free of {@code jdk.jfr} types so that it loads in a runtime
 * without that module. {@link #isActive()} is one volatile read: the flush path asks it before
 * it builds an event, so batches cost nothing extra while no recording runs.
 */
final class FlightRecording {

    private static final boolean PRESENT = ModuleLayer.boot().findModule("jdk.jfr").isPresent();

    private static volatile boolean active;
    /** The listener while installed (a FlightRecorderHooks, typed Object so that this class loads without jdk.jfr). */
    private static Object hooks;
    private static boolean refused;

    private FlightRecording() {
    }

    /**
     * Listens for the flight recorder until {@link #uninstall}; the periodic event is added when it
     * starts. A recorder that refused once (a security manager without the permission) is not
     * asked again.
     */
    static synchronized void install() {
        if (hooks != null || refused || !PRESENT) {
            return;
        }
        try {
            hooks = FlightRecorderHooks.install();
        } catch (RuntimeException | LinkageError e) {
            refused = true;
            SelectorMonitoring.logOnce("flight recorder events unavailable", e);
        }
    }

    /**
     * Stops listening, and takes the periodic event away: the recorder's lists would otherwise
     * keep this copy's classes, and the class loader that loaded them, for good.
     */
    static synchronized void uninstall() {
        if (hooks == null) {
            return;
        }
        try {
            ((FlightRecorderHooks) hooks).uninstall();
        } catch (RuntimeException | LinkageError e) {
            SelectorMonitoring.logOnce("flight recorder events not withdrawn", e);
        }
        hooks = null;
        active = false;
    }

    /** Whether a recording is running. */
    static boolean isActive() {
        return active;
    }

    static void setActive(boolean running) {
        active = running;
    }

    /** Records the batch if the recording wants it (enabled, and at least its minimum size). */
    static void batchApplied(long selectorId, int changes, int kernelCalls) {
        BatchEvent.emit(selectorId, changes, kernelCalls);
    }
}
