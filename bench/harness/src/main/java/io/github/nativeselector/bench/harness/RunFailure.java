/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.bench.harness;

/** A run that cannot give figures; {@link #status()} is what the results say instead. */
final class RunFailure extends Exception {
    private static final long serialVersionUID = 1L;

    private final boolean unavailable;

    private RunFailure(String message, boolean unavailable) {
        super(message);
        this.unavailable = unavailable;
    }

    /** The server cannot start here (a backend missing, a JDK too old): not an error of the harness. */
    static RunFailure unavailable(String reason) {
        return new RunFailure(reason, true);
    }

    static RunFailure failed(String reason) {
        return new RunFailure(reason, false);
    }

    boolean isUnavailable() {
        return unavailable;
    }

    String status() {
        return (unavailable ? "unavailable: " : "failed: ") + getMessage();
    }
}
