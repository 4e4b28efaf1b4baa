/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.internal;

import java.util.HashSet;
import java.util.Set;
import jdk.jfr.FlightRecorder;
import jdk.jfr.FlightRecorderListener;
import jdk.jfr.Recording;
import jdk.jfr.RecordingState;

/**
 * Follows the flight recorder: once it starts, adds the periodic {@link SelectorStatisticsEvent};
 * while a recording runs, opens {@link FlightRecording}'s gate. Registering the periodic event
 * costs about 0.1 s, so it waits for the recorder, which most JVMs never start. Installed while a
 * native selector of this copy of the library is open. The instance's monitor guards its fields,
 * and is never held while the recorder is called.
 */
final class FlightRecorderHooks implements FlightRecorderListener {

    private final Set<Long> running = new HashSet<>();
    /** The periodic event's hook, the one instance that removePeriodicEvent is given back. */
    private final Runnable emitStatistics = SelectorStatisticsEvent::emitAll;
    private boolean periodicAdded;
    private boolean removed;

    private FlightRecorderHooks() {
    }

    static FlightRecorderHooks install() {
        FlightRecorderHooks hooks = new FlightRecorderHooks();
        FlightRecorder.addListener(hooks);
        return hooks;
    }

    /**
     * Removes the listener and the periodic event; a recorder that starts later adds nothing. The
     * recorder is called without this monitor: it calls {@link #recorderInitialized} holding a
     * lock of its own, which removeListener takes too.
     */
    void uninstall() {
        boolean added;
        synchronized (this) {
            removed = true;
            added = periodicAdded;
            periodicAdded = false;
        }
        FlightRecorder.removeListener(this);
        if (added) {
            FlightRecorder.removePeriodicEvent(emitStatistics);
        }
    }

    @Override
    public synchronized void recorderInitialized(FlightRecorder recorder) {
        if (removed) {
            return;
        }
        FlightRecorder.addPeriodicEvent(SelectorStatisticsEvent.class, emitStatistics);
        periodicAdded = true;
        // Recordings that were running before this listener was added.
        for (Recording recording : recorder.getRecordings()) {
            recordingStateChanged(recording);
        }
    }

    @Override
    public synchronized void recordingStateChanged(Recording recording) {
        if (removed) {
            return;
        }
        if (recording.getState() == RecordingState.RUNNING) {
            running.add(recording.getId());
        } else {
            running.remove(recording.getId());
        }
        FlightRecording.setActive(!running.isEmpty());
    }
}
