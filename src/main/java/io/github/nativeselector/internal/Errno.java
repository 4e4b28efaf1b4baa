/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.internal;

/** The text of an errno, for errors the native side reports per record rather than by throwing. */
final class Errno {

    private Errno() {
    }

    static native String describe(int errno);
}
