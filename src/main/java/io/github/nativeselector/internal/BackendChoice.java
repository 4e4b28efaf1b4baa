/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.internal;

/** The values of {@code -Dnativeselector.backend}. */
public enum BackendChoice {
    /** The native backend of this platform (epoll on Linux, pollset on AIX); the JDK's selector if it cannot start. */
    AUTO("auto"),
    /** Linux epoll; failing to start is an error. */
    EPOLL("epoll"),
    /** Linux io_uring; failing to start (blocked, too old a kernel) is an error that says why. */
    IO_URING("io_uring"),
    /** AIX's pollset; on Linux, only in the test build of the library (the AIX API over poll(2), to test the backend). */
    POLLSET("pollset"),
    /** The JDK's built-in selector. */
    JDK("jdk");

    private final String propertyValue;

    BackendChoice(String propertyValue) {
        this.propertyValue = propertyValue;
    }

    public String propertyValue() {
        return propertyValue;
    }
}
