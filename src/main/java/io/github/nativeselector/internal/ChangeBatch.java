/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.internal;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * One batch of registration changes in off-heap memory, as {@code struct ns_change} records
 * ({@code src/main/native/share/ns_records.h}, whose layout {@link SharedConstants} checks), handed
 * to the backend in one call. The key behind each record is kept beside it, so the outcome can be
 * written back to the key.
 *
 * <p>Not thread-safe: owned by {@link ChangeQueue}, used under its lock.
 */
final class ChangeBatch {

    /** {@code enum ns_change_op}. */
    static final int OP_ADD = 1;
    static final int OP_MOD = 2;
    static final int OP_DEL = 3;

    /**
     * A key's {@code registeredEvents} after a batch holding its change failed as a whole: what
     * the kernel holds is not known, so the next change to the key is sent whatever it is (every
     * backend takes an add of a registered fd, and a modification of an absent one).
     */
    static final int UNKNOWN_EVENTS = -1;

    /**
     * A key's {@code registeredEvents} once a modification to no events reached the kernel: the
     * backend may keep the fd registered, reporting nothing (epoll's costs half an add and a
     * remove), so the key's cancellation still removes it.
     */
    static final int PARKED = 1 << 30;

    /** {@code struct ns_change}: its size and its fields' offsets. */
    static final int RECORD_SIZE = 24;
    static final int TOKEN = 0;
    static final int FD = 8;
    static final int EVENTS = 12;
    static final int OP = 16;
    static final int ERROR = 20;

    private final ByteBuffer records;
    private final long address;
    private final NativeSelectionKey[] keys;
    private int size;

    ChangeBatch(int capacity) {
        records = OffHeap.allocate(capacity * RECORD_SIZE);
        address = OffHeap.address(records);
        keys = new NativeSelectionKey[capacity];
    }

    boolean isFull() {
        return size == keys.length;
    }

    void add(NativeSelectionKey key, int op, int events) {
        int at = size * RECORD_SIZE;
        records.putLong(at + TOKEN, key.token());
        records.putInt(at + FD, key.fd);
        records.putInt(at + EVENTS, events);
        records.putInt(at + OP, op);
        records.putInt(at + ERROR, 0);
        keys[size++] = key;
    }

    /**
     * Applies the batch and records on each key the events the kernel now has for it. A change
     * the kernel refused leaves its key as the kernel has it. A batch the backend could not apply
     * at all leaves its keys' kernel state unknown: they are marked so and handed back to
     * {@code queue}, which sends their changes again with its next flush. The batch is empty
     * afterwards whatever happened.
     *
     * @return the first failure (the others suppressed in it), or null when every change was applied
     */
    IOException apply(Backend backend, Counters counters, boolean sync, ChangeQueue queue) {
        if (size == 0) {
            return null;
        }
        int count = size;
        size = 0;
        int calls;
        try {
            calls = backend.apply(address, count, sync);
        } catch (IOException e) {
            for (int i = 0; i < count; i++) {
                NativeSelectionKey key = keys[i];
                keys[i] = null;
                key.registeredEvents = UNKNOWN_EVENTS;
                queue.requeue(key);
            }
            return e;
        }
        counters.batchApplied(count, calls);
        IOException failure = null;
        for (int i = 0; i < count; i++) {
            NativeSelectionKey key = keys[i];
            keys[i] = null;
            int at = i * RECORD_SIZE;
            int error = records.getInt(at + ERROR);
            if (error == 0) {
                key.registeredEvents = registeredAfter(records.getInt(at + OP), records.getInt(at + EVENTS));
            } else {
                failure = ChangeQueue.firstOf(failure, new IOException(backend.name() + ": "
                        + opName(records.getInt(at + OP)) + " of fd " + key.fd + " failed: "
                        + Errno.describe(error) + " (errno " + error + ")"));
            }
        }
        return failure;
    }

    /** What the kernel holds for a key once a change of {@code op} to {@code events} was applied. */
    static int registeredAfter(int op, int events) {
        return op == OP_DEL ? 0 : events == 0 ? PARKED : events;
    }

    /**
     * The change that brings a key whose kernel holds {@code registered} to {@code events}, or 0
     * when none is needed. No events is a modification, which a backend may make by parking the fd.
     */
    static int opFor(int events, int registered) {
        if (events == (registered == PARKED ? 0 : registered)) {
            return 0;
        }
        return registered == 0 ? OP_ADD : OP_MOD;
    }

    private static String opName(int op) {
        return switch (op) {
            case OP_ADD -> "add";
            case OP_MOD -> "modify";
            default -> "delete";
        };
    }
}
