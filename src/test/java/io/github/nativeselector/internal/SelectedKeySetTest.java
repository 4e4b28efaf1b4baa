/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.channels.Pipe;
import java.nio.channels.SelectionKey;
import java.util.ArrayList;
import java.util.ConcurrentModificationException;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The selected-key set on its own: an array of keys, each knowing its index, that users may only shrink. */
class SelectedKeySetTest {

    private final SelectedKeySet set = new SelectedKeySet();
    private final Pipe pipe = Pipe.open();

    SelectedKeySetTest() throws IOException {
    }

    @AfterEach
    void closePipe() throws IOException {
        pipe.source().close();
        pipe.sink().close();
    }

    private List<NativeSelectionKey> selected(int count) {
        List<NativeSelectionKey> keys = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            NativeSelectionKey key = new NativeSelectionKey(null, pipe.source(), i);
            set.addSelected(key);
            keys.add(key);
        }
        return keys;
    }

    @Test
    void holdsWhatWasSelectedAndGrows() {
        List<NativeSelectionKey> keys = selected(100);
        assertEquals(100, set.size());
        assertEquals(new HashSet<>(keys), new HashSet<>(set));
        for (NativeSelectionKey key : keys) {
            assertTrue(set.contains(key));
        }
        NativeSelectionKey elsewhere = new NativeSelectionKey(null, pipe.source(), 1_000);
        new SelectedKeySet().addSelected(elsewhere);
        assertEquals(0, elsewhere.selectedIndex);
        assertFalse(set.contains(elsewhere), "a key at the same index of another set");
        assertFalse(set.contains("not a key"));
    }

    @Test
    void usersMayRemoveButNotAdd() {
        NativeSelectionKey key = selected(1).get(0);
        assertThrows(UnsupportedOperationException.class, () -> set.add(key));
        assertThrows(UnsupportedOperationException.class, () -> set.addAll(List.of(key)));
        assertTrue(set.remove(key));
        assertFalse(set.remove(key));
        assertFalse(set.remove("not a key"));
        assertTrue(set.isEmpty());
        assertEquals(-1, key.selectedIndex);
    }

    @Test
    void removingThroughTheIteratorVisitsEveryKeyOnce() {
        List<NativeSelectionKey> keys = selected(7);
        List<SelectionKey> visited = new ArrayList<>();
        Set<SelectionKey> kept = new HashSet<>();
        int i = 0;
        for (Iterator<SelectionKey> it = set.iterator(); it.hasNext(); i++) {
            SelectionKey key = it.next();
            visited.add(key);
            if (i % 2 == 0) {
                it.remove();
            } else {
                kept.add(key);
            }
        }
        assertEquals(new HashSet<>(keys), new HashSet<>(visited));
        assertEquals(keys.size(), visited.size(), "a key moved into a removed key's place is visited once");
        assertEquals(kept, new HashSet<>(set));
    }

    @Test
    void theIteratorRefusesWhatTheContractRefuses() {
        selected(2);
        Iterator<SelectionKey> it = set.iterator();
        assertThrows(IllegalStateException.class, it::remove, "remove before next");
        it.next();
        it.remove();
        assertThrows(IllegalStateException.class, it::remove, "remove twice");
        it.next();
        assertThrows(NoSuchElementException.class, it::next);
    }

    @Test
    void aSelectAddingKeysDuringIterationIsDetected() {
        selected(2);
        Iterator<SelectionKey> it = set.iterator();
        it.next();
        set.addSelected(new NativeSelectionKey(null, pipe.source(), 99));
        assertThrows(ConcurrentModificationException.class, it::next);
    }

    @Test
    void clearForgetsEveryIndexSoKeysCanBeSelectedAgain() {
        List<NativeSelectionKey> keys = selected(3);
        set.clear();
        assertTrue(set.isEmpty());
        for (NativeSelectionKey key : keys) {
            assertEquals(-1, key.selectedIndex);
            assertFalse(set.contains(key));
        }
        set.addSelected(keys.get(2));
        assertEquals(Set.of(keys.get(2)), new HashSet<>(set));
    }
}
