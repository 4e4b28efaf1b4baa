/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.internal;

import java.nio.ByteBuffer;

/**
 * The reused off-heap array a poll writes ready channels into, as {@code struct ns_ready}
 * records ({@code src/main/native/share/ns_records.h}, whose layout {@link SharedConstants}
 * checks). Read by the selector thread only.
 */
final class ReadyArray {

    /** The token of the wakeup record: no key has it. */
    static final long WAKEUP_TOKEN = -1L;

    /** {@code struct ns_ready}: its size and its fields' offsets. */
    static final int RECORD_SIZE = 16;
    static final int TOKEN = 0;
    static final int EVENTS = 8;

    private final ByteBuffer records;
    private final long address;
    private final int capacity;

    ReadyArray(int capacity) {
        this.capacity = capacity;
        records = OffHeap.allocate(capacity * RECORD_SIZE);
        address = OffHeap.address(records);
    }

    long address() {
        return address;
    }

    int capacity() {
        return capacity;
    }

    long token(int i) {
        return records.getLong(i * RECORD_SIZE + TOKEN);
    }

    int events(int i) {
        return records.getInt(i * RECORD_SIZE + EVENTS);
    }
}
