/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.channels.Pipe;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The slot table on its own: a token finds the key it was issued to, and nothing once that key is
 * gone, even when its slot holds another key.
 */
class KeyTableTest {

    private final KeyTable table = new KeyTable();
    private final Pipe pipe = Pipe.open();

    KeyTableTest() throws IOException {
    }

    @AfterEach
    void closePipe() throws IOException {
        pipe.source().close();
        pipe.sink().close();
    }

    /** A key of no selector: the table looks only at its slot and generation. */
    private NativeSelectionKey key(int fd) {
        return new NativeSelectionKey(null, pipe.source(), fd);
    }

    @Test
    void aTokenFindsItsKey() {
        NativeSelectionKey a = key(10);
        NativeSelectionKey b = key(11);
        table.add(a);
        table.add(b);
        assertNotEquals(a.slot, b.slot);
        assertSame(a, table.lookup(a.token()));
        assertSame(b, table.lookup(b.token()));
    }

    @Test
    void aRemovedKeyIsNotFoundAndItsSlotIsFreedOnce() {
        NativeSelectionKey a = key(10);
        table.add(a);
        long token = a.token();
        table.remove(a);
        assertNull(table.lookup(token));
        assertEquals(-1, a.slot);
        table.remove(a);
        NativeSelectionKey b = key(11);
        NativeSelectionKey c = key(12);
        table.add(b);
        table.add(c);
        assertNotEquals(b.slot, c.slot, "a second removal freed the slot again");
    }

    @Test
    void aKeyWithASlotKeepsIt() {
        NativeSelectionKey a = key(10);
        table.add(a);
        long token = a.token();
        table.add(a);
        assertEquals(token, a.token());
        assertSame(a, table.lookup(token));
    }

    @Test
    void aReusedSlotHasANewGenerationSoTheOldTokenFindsNothing() {
        NativeSelectionKey old = key(10);
        table.add(old);
        long oldToken = old.token();
        int oldSlot = old.slot;
        table.remove(old);
        NativeSelectionKey next = key(10);
        table.add(next);
        assertEquals(oldSlot, next.slot, "the freed slot is reused");
        assertNotEquals(old.generation, next.generation);
        assertNull(table.lookup(oldToken), "an event for the removed key, its fd number reused");
        assertSame(next, table.lookup(next.token()));
    }

    @Test
    void theTableGrowsAndKeepsEveryKey() {
        List<NativeSelectionKey> keys = new ArrayList<>();
        for (int i = 0; i < 1_000; i++) {
            NativeSelectionKey k = key(i);
            table.add(k);
            keys.add(k);
        }
        Set<Integer> slots = new HashSet<>();
        for (NativeSelectionKey k : keys) {
            assertSame(k, table.lookup(k.token()));
            assertTrue(slots.add(k.slot), "slot " + k.slot + " given twice");
        }
    }

    @Test
    void tokensLeaveTheTopBitClearAndOutOfRangeSlotsFindNothing() {
        NativeSelectionKey a = key(10);
        table.add(a);
        assertTrue(a.token() >= 0, "bit 63 is the backends' own");
        assertEquals(a.slot, (int) a.token());
        assertEquals(a.generation, (int) (a.token() >>> 32));
        assertNull(table.lookup(KeyTable.token(1 << 20, a.generation)));
        assertNull(table.lookup(KeyTable.token(-1, a.generation)));
    }
}
