/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.bench.harness;

import java.util.List;

/**
 * One load the generator puts on a server: {@code rr} (long-lived connections, request and
 * reply) or {@code crr} (a new connection per request, closed after the reply), with
 * {@code connections} active at once, {@code idle} more held open and never used, requests of
 * {@code size} bytes, replies of {@code reply} bytes, and {@code thinkMicros} between a reply and
 * the next request on a connection.
 */
record Workload(String label, String mode, int connections, int idle, int size, int reply, int thinkMicros) {

    private static final String CONNECTION_PER_REQUEST = "crr";

    /** Echo: requests of {@code size} bytes answered by themselves on {@code connections} long-lived connections. */
    static Workload echo(int connections, int size) {
        return new Workload("echo-" + connections + (size == 64 ? "" : "x" + size), "rr", connections, 0, size, size, 0);
    }

    /** Echo on {@code active} connections while {@code idle} more are open and silent. */
    static Workload echoWithIdle(int active, int idle) {
        return new Workload("idle-" + idle, "rr", active, idle, 64, 64, 0);
    }

    /** Connect, send 64 bytes, read an 8 KiB reply, close; {@code connections} at a time. */
    static Workload connectRequestClose(int connections) {
        return new Workload("crr-" + connections, CONNECTION_PER_REQUEST, connections, 0, 64, 8192, 0);
    }

    /** Whether every request comes on a connection of its own (crr): each one a registration and a cancel. */
    boolean isChurn() {
        return mode.equals(CONNECTION_PER_REQUEST);
    }

    /** The load generator's options for this workload. */
    List<String> loadgenArguments(int port, double warmupSeconds, double measuredSeconds) {
        return List.of("--port", Integer.toString(port), "--mode", mode,
                "--connections", Integer.toString(connections), "--idle", Integer.toString(idle),
                "--size", Integer.toString(size), "--reply", Integer.toString(reply),
                "--think-us", Integer.toString(thinkMicros),
                "--warmup", Double.toString(warmupSeconds), "--seconds", Double.toString(measuredSeconds));
    }
}
