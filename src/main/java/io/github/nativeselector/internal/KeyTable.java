/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;

/**
 * Slot to key, as an array. A key's token, which the kernel hands back with each event, is its
 * slot and the slot's generation: a slot is reused only with a new generation, so an event for
 * a key that is gone (its fd perhaps closed and reused) finds no key.
 *
 * <p>A key has a slot from the first change of it that goes into a batch to the moment it is
 * out of the kernel again, cancelled: a key that never reaches the kernel (registered and
 * cancelled between two selects) never takes one.
 *
 * <p>Locking: {@link #add} and {@link #remove} run under the {@link ChangeQueue}'s monitor, the
 * only place slots are given and freed, so the table needs no lock of its own. {@link #lookup}
 * takes none: it reads the published array and its entries with acquire semantics.
 */
final class KeyTable {

    /** The token bit no key's token has, free for a backend's own requests ({@code ns_records.h}). */
    static final long BACKEND_TOKEN_BIT = 1L << 63;

    private static final VarHandle ENTRY = MethodHandles.arrayElementVarHandle(NativeSelectionKey[].class);

    private volatile NativeSelectionKey[] keys = new NativeSelectionKey[64];
    private int[] generations = new int[64];
    private int[] freeSlots = new int[64];
    private int freeCount;
    private int used;

    /** Gives the key a slot and a generation, and makes it findable by its token, unless it has a slot. */
    void add(NativeSelectionKey key) {
        if (key.slot >= 0) {
            return;
        }
        int slot;
        if (freeCount > 0) {
            slot = freeSlots[--freeCount];
        } else {
            if (used == keys.length) {
                grow();
            }
            slot = used++;
        }
        key.slot = slot;
        // The generation is a token's upper half, without BACKEND_TOKEN_BIT.
        key.generation = ++generations[slot] & (int) (~BACKEND_TOKEN_BIT >>> 32);
        ENTRY.setRelease(keys, slot, key);
    }

    /** Frees the key's slot, if it has one: its token finds nothing from now on. */
    void remove(NativeSelectionKey key) {
        int slot = key.slot;
        if (slot < 0) {
            return;
        }
        ENTRY.setRelease(keys, slot, null);
        if (freeCount == freeSlots.length) {
            freeSlots = Arrays.copyOf(freeSlots, freeCount * 2);
        }
        freeSlots[freeCount++] = slot;
        key.slot = -1;
    }

    /** The key the token was issued to, if it is still in the table. */
    NativeSelectionKey lookup(long token) {
        int slot = (int) token;
        NativeSelectionKey[] current = keys;
        if (slot < 0 || slot >= current.length) {
            return null;
        }
        NativeSelectionKey key = (NativeSelectionKey) ENTRY.getAcquire(current, slot);
        return key != null && key.generation == (int) (token >>> 32) ? key : null;
    }

    static long token(int slot, int generation) {
        return ((long) generation << 32) | (slot & 0xFFFF_FFFFL);
    }

    private void grow() {
        int capacity = keys.length * 2;
        generations = Arrays.copyOf(generations, capacity);
        keys = Arrays.copyOf(keys, capacity);
    }
}
