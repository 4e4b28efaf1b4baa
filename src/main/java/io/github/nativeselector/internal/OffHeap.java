/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.internal;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** Native-ordered direct buffers whose address the native side is given once. */
final class OffHeap {

    private OffHeap() {
    }

    static ByteBuffer allocate(int bytes) {
        return ByteBuffer.allocateDirect(bytes).order(ByteOrder.nativeOrder());
    }

    static native long address(ByteBuffer buffer);
}
