/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector;

/**
 * One open native selector, registered as {@code io.github.nativeselector:type=Selector,id=N}
 * (N is the selector's id, as its flight-recorder events carry it) from the moment it is opened
 * until it is closed, or collected unclosed. {@code -Dnativeselector.jmx=false} leaves it out.
 */
public interface SelectorMXBean extends SelectorCounters {

    /** {@return the kernel mechanism behind the selector, e.g. {@code epoll}} */
    String getBackend();

    /** {@return queued registration changes that are flushed at once} */
    int getBatchThreshold();
}
