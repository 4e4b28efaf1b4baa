/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.internal;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** Native-ordered direct buffers, and where a direct buffer's memory is (for the native side). */
public final class OffHeap {

    private OffHeap() {
    }

    public static ByteBuffer allocate(int bytes) {
        return ByteBuffer.allocateDirect(bytes).order(ByteOrder.nativeOrder());
    }

    /**
     * The address of a direct buffer's memory, or 0 for a view of a memory segment
     * ({@code MemorySegment.asByteBuffer}): its arena may free that memory while the native side
     * uses it, so such a buffer is read and written through the JDK's own accessors, which fail
     * with IllegalStateException once the arena is closed.
     *
     * @throws IllegalArgumentException if the buffer is not direct
     */
    public static native long address(ByteBuffer buffer);
}
