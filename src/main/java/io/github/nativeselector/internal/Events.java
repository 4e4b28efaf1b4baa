/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.internal;

/**
 * Readiness bits as the backends report them: Linux poll(2) values on every platform
 * ({@code NS_*} in {@code ns_records.h}, checked by {@link SharedConstants}).
 */
final class Events {

    static final int IN = 0x001;
    static final int OUT = 0x004;
    static final int ERR = 0x008;
    static final int HUP = 0x010;
    static final int NVAL = 0x020;

    private Events() {
    }
}
