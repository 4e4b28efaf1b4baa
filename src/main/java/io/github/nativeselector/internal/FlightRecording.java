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
    private static boolean installed;

    private FlightRecording() {
    }

    /** Listens for the flight recorder, once per JVM; the periodic event is added when it starts. */
    static synchronized void install() {
        if (installed || !PRESENT) {
            return;
        }
        installed = true;
        try {
            FlightRecorderHooks.install();
        } catch (RuntimeException | LinkageError e) {
            SelectorMonitoring.logOnce("flight recorder events unavailable", e);
        }
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
