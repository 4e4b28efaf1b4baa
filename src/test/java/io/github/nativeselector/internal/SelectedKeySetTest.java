/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.channels.Pipe;
import java.nio.channels.SelectionKey;
import java.util.ArrayList;
import java.util.ConcurrentModificationException;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The selected-key set on its own: an array of keys, each knowing its index, that users may only
 * shrink, and that always iterates its keys in the order they were added.
 */
class SelectedKeySetTest {

    private final SelectedKeySet set = new SelectedKeySet();
    private final Pipe pipe = Pipe.open();
    private int nextNumber;

    SelectedKeySetTest() throws IOException {
    }

    @AfterEach
    void closePipe() throws IOException {
        pipe.source().close();
        pipe.sink().close();
    }

    private List<NativeSelectionKey> selected(int count) {
        List<NativeSelectionKey> keys = unselected(count);
        keys.forEach(set::addSelected);
        return keys;
    }

    /** New keys, each with a number of its own in place of a file descriptor, so that failures read well. */
    private List<NativeSelectionKey> unselected(int count) {
        List<NativeSelectionKey> keys = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            keys.add(new NativeSelectionKey(null, pipe.source(), nextNumber++));
        }
        return keys;
    }

    /** The keys in iteration order. */
    private List<SelectionKey> iterated() {
        List<SelectionKey> keys = new ArrayList<>();
        for (SelectionKey key : set) {
            keys.add(key);
        }
        return keys;
    }

    private void assertIterates(List<? extends SelectionKey> expected) {
        assertEquals(numbers(expected), numbers(iterated()));
    }

    private static List<Integer> numbers(List<? extends SelectionKey> keys) {
        List<Integer> numbers = new ArrayList<>();
        for (SelectionKey key : keys) {
            numbers.add(((NativeSelectionKey) key).fd);
        }
        return numbers;
    }

    @SafeVarargs
    private static <T> List<T> without(List<T> list, T... removed) {
        List<T> copy = new ArrayList<>(list);
        copy.removeAll(List.of(removed));
        return copy;
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

    @Test
    void theUsualLoopServesKeysInTheOrderTheyWereAdded() {
        List<NativeSelectionKey> keys = selected(10);
        List<SelectionKey> served = new ArrayList<>();
        for (Iterator<SelectionKey> it = set.iterator(); it.hasNext(); ) {
            SelectionKey key = it.next();
            it.remove();
            served.add(key);
        }
        assertEquals(numbers(keys), numbers(served));
        assertTrue(set.isEmpty());

        List<NativeSelectionKey> next = selected(5);
        assertEquals(0, next.get(0).selectedIndex, "an emptied set is filled from the front again");
        assertIterates(next);
    }

    @Test
    void keysKeptByTheIteratorStayInOrder() {
        List<NativeSelectionKey> keys = selected(9);
        List<SelectionKey> visited = new ArrayList<>();
        List<SelectionKey> kept = new ArrayList<>();
        int i = 0;
        for (Iterator<SelectionKey> it = set.iterator(); it.hasNext(); i++) {
            SelectionKey key = it.next();
            visited.add(key);
            if (i % 3 != 1) {
                it.remove();
            } else {
                kept.add(key);
            }
        }
        assertEquals(numbers(keys), numbers(visited));
        assertIterates(kept);
        assertEquals(3, set.size());
    }

    @Test
    void removingAMiddleKeyKeepsTheOrderOfTheRestAndOfLaterKeys() {
        List<NativeSelectionKey> keys = selected(5);
        assertTrue(set.remove(keys.get(2)));
        List<NativeSelectionKey> later = unselected(3);
        later.forEach(set::addSelected);
        set.addSelected(keys.get(2));
        List<SelectionKey> expected = new ArrayList<>(without(keys, keys.get(2)));
        expected.addAll(later);
        expected.add(keys.get(2));
        assertIterates(expected);
        assertEquals(8, set.size());
    }

    @Test
    void compactionKeepsTheOrderAndTheIndexes() {
        List<NativeSelectionKey> keys = selected(40);
        List<SelectionKey> expected = new ArrayList<>();
        for (int i = 0; i < keys.size(); i++) {
            if (i % 4 == 0) {
                expected.add(keys.get(i));
            } else {
                assertTrue(set.remove(keys.get(i)));
            }
        }
        assertEquals(10, set.size());
        List<NativeSelectionKey> later = unselected(30);
        later.forEach(set::addSelected);
        expected.addAll(later);
        assertIterates(expected);
        for (int i = 0; i < expected.size(); i++) {
            NativeSelectionKey key = (NativeSelectionKey) expected.get(i);
            assertEquals(i, key.selectedIndex, "compacted in order");
            assertTrue(set.contains(key));
        }
        assertTrue(set.remove(expected.get(5)));
        assertFalse(set.contains(expected.get(5)));
        assertIterates(without(expected, expected.get(5)));
    }

    @Test
    void sizeContainsAndIsEmptyCountOnlyKeys() {
        List<NativeSelectionKey> keys = selected(4);
        set.remove(keys.get(1));
        set.remove(keys.get(3));
        assertEquals(2, set.size());
        assertFalse(set.isEmpty());
        assertFalse(set.contains(keys.get(1)));
        assertFalse(set.contains(keys.get(3)));
        assertTrue(set.contains(keys.get(0)));
        assertTrue(set.contains(keys.get(2)));
        assertEquals(-1, keys.get(1).selectedIndex);
        assertEquals(2, set.toArray().length);
        set.remove(keys.get(0));
        set.remove(keys.get(2));
        assertEquals(0, set.size());
        assertTrue(set.isEmpty());
        assertFalse(set.iterator().hasNext());
    }

    @Test
    void theIteratorStepsOverHolesAtTheFrontAndTheEnd() {
        List<NativeSelectionKey> keys = selected(6);
        for (int i : new int[] {0, 1, 4, 5}) {
            set.remove(keys.get(i));
        }
        Iterator<SelectionKey> it = set.iterator();
        assertTrue(it.hasNext());
        assertTrue(it.hasNext(), "hasNext twice");
        assertSame(keys.get(2), it.next());
        assertSame(keys.get(3), it.next());
        assertFalse(it.hasNext());
        assertThrows(NoSuchElementException.class, it::next);
        it.remove();
        assertIterates(List.of(keys.get(2)));
    }

    @Test
    void removalOutsideTheIteratorIsDetected() {
        List<NativeSelectionKey> keys = selected(3);
        Iterator<SelectionKey> it = set.iterator();
        it.next();
        set.remove(keys.get(2));
        assertThrows(ConcurrentModificationException.class, it::next);
        assertThrows(ConcurrentModificationException.class, it::remove);

        Iterator<SelectionKey> cleared = set.iterator();
        cleared.next();
        set.clear();
        selected(2);
        assertThrows(ConcurrentModificationException.class, cleared::next);
    }

    @Test
    void removeTwiceIsRefusedWhereverTheKeyWas() {
        List<NativeSelectionKey> keys = selected(4);
        set.remove(keys.get(1));
        Iterator<SelectionKey> it = set.iterator();
        assertSame(keys.get(0), it.next());
        assertSame(keys.get(2), it.next());
        it.remove();
        assertThrows(IllegalStateException.class, it::remove);
        assertSame(keys.get(3), it.next());
        it.remove();
        assertThrows(IllegalStateException.class, it::remove);
        assertIterates(List.of(keys.get(0)));
    }

    @Test
    void bulkRemovalsThroughTheIteratorKeepTheOrder() {
        List<NativeSelectionKey> keys = selected(8);
        assertTrue(set.removeIf(k -> keys.indexOf(k) % 2 == 1));
        assertIterates(List.of(keys.get(0), keys.get(2), keys.get(4), keys.get(6)));
        assertTrue(set.retainAll(List.of(keys.get(6), keys.get(0), keys.get(4))));
        assertIterates(List.of(keys.get(0), keys.get(4), keys.get(6)));
        // AbstractSet.removeAll iterates this set when the argument is at least as large, else it
        // removes the argument's keys one by one: both ways are taken here.
        assertTrue(set.removeAll(List.of(keys.get(4), keys.get(1), keys.get(2), keys.get(3))));
        assertIterates(List.of(keys.get(0), keys.get(6)));
        assertTrue(set.removeAll(List.of(keys.get(6))));
        assertIterates(List.of(keys.get(0)));
        assertFalse(set.removeIf(k -> false));
        assertEquals(1, set.size());
    }

    /** Random selects, removals and clears, against a LinkedHashSet that keeps insertion order. */
    @Test
    void behavesAsAnInsertionOrderedSet() {
        Random random = new Random(20_260_101);
        List<NativeSelectionKey> pool = unselected(80);
        Set<NativeSelectionKey> model = new LinkedHashSet<>();
        for (int step = 0; step < 20_000; step++) {
            int op = random.nextInt(100);
            if (op < 50) {
                NativeSelectionKey key = pool.get(random.nextInt(pool.size()));
                if (!model.contains(key)) {
                    set.addSelected(key);
                    model.add(key);
                }
            } else if (op < 80) {
                NativeSelectionKey key = pool.get(random.nextInt(pool.size()));
                assertEquals(model.remove(key), set.remove(key));
            } else if (op < 99) {
                int percent = random.nextInt(101);
                Iterator<NativeSelectionKey> expected = model.iterator();
                for (Iterator<SelectionKey> it = set.iterator(); it.hasNext(); ) {
                    assertSame(expected.next(), it.next());
                    if (random.nextInt(100) < percent) {
                        it.remove();
                        expected.remove();
                    }
                }
                assertFalse(expected.hasNext());
            } else {
                set.clear();
                model.clear();
            }
            assertEquals(numbers(new ArrayList<>(model)), numbers(iterated()), "step " + step);
            assertEquals(model.size(), set.size());
            for (NativeSelectionKey key : pool) {
                assertEquals(model.contains(key), set.contains(key));
            }
        }
    }
}
