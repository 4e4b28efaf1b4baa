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
 * costs about 0.1 s, so it waits for the recorder, which most JVMs never start.
 */
final class FlightRecorderHooks implements FlightRecorderListener {

    private final Set<Long> running = new HashSet<>();

    private FlightRecorderHooks() {
    }

    static void install() {
        FlightRecorder.addListener(new FlightRecorderHooks());
    }

    @Override
    public void recorderInitialized(FlightRecorder recorder) {
        FlightRecorder.addPeriodicEvent(SelectorStatisticsEvent.class, SelectorStatisticsEvent::emitAll);
        // Recordings that were running before this listener was added.
        for (Recording recording : recorder.getRecordings()) {
            recordingStateChanged(recording);
        }
    }

    @Override
    public synchronized void recordingStateChanged(Recording recording) {
        if (recording.getState() == RecordingState.RUNNING) {
            running.add(recording.getId());
        } else {
            running.remove(recording.getId());
        }
        FlightRecording.setActive(!running.isEmpty());
    }
}
