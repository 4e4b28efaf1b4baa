/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.internal;

import java.nio.channels.SelectionKey;
import java.util.AbstractSet;
import java.util.Arrays;
import java.util.Collection;
import java.util.ConcurrentModificationException;
import java.util.Iterator;
import java.util.NoSuchElementException;

/**
 * The selected-key set: an array, with each key holding its index, so that adding, finding and
 * removing a key allocate nothing and take constant (amortized) time. Users may remove keys
 * (directly or through an iterator) but not add them: {@link #add} throws, as the JDK's set does.
 *
 * <p>Keys are iterated in the order the selector added them, which is the order the kernel
 * reported them. A removed key therefore leaves a hole instead of having the last key moved into
 * its place: that move would serve the usual loop (take a key, remove it, handle it) in reverse
 * kernel order after its first key, the keys reported early waiting longest.
 * Iteration skips holes; {@link #addSelected} closes them up, keeping the order, once they are
 * half the slots in use, so that a compaction costs at most twice the removals since the last one
 * and the array grows only when keys fill more than half of it.
 *
 * <p>Iterators touch the keys ahead of the program as they reach them, a few dozen slots at a
 * time ({@link NativeSelectionKey#touchForProgram}); the set remembers how far, so that a program
 * that takes a new iterator for each key does not touch the same keys again each time.
 *
 * <p>Locking: not thread-safe. Users synchronize on the set, as {@code Selector.selectedKeys()}
 * says, and the selector adds and removes keys while holding that monitor.
 */
final class SelectedKeySet extends AbstractSet<SelectionKey> {

    private NativeSelectionKey[] keys = new NativeSelectionKey[32];
    /** The slots in use, keys and holes: every slot from here on is null. */
    private int end;
    /** The null slots below {@link #end}, left by removed keys. */
    private int holes;
    private int modCount;
    /** The slot after the last one touched; every slot from here on is untouched since it was filled. */
    private int touchedEnd;
    /** What the touches read, kept only so that their reads are not compiled away. */
    private int touched;

    /** Adds a key that is not in the set, after every key in it. */
    void addSelected(NativeSelectionKey key) {
        if (holes > 0 && holes >= end >> 1) {
            compact();
        }
        if (end == keys.length) {
            keys = Arrays.copyOf(keys, end * 2);
        }
        key.selectedIndex = end;
        keys[end++] = key;
        modCount++;
    }

    /*
     * add(Object) is AbstractCollection's, which throws UnsupportedOperationException for any
     * argument: an override taking SelectionKey would get a bridge method that throws
     * ClassCastException for anything else.
     */

    @Override
    public boolean addAll(Collection<? extends SelectionKey> keys) {
        throw new UnsupportedOperationException("keys are added by select()");
    }

    @Override
    public boolean contains(Object o) {
        return o instanceof NativeSelectionKey key && indexOf(key) >= 0;
    }

    @Override
    public boolean remove(Object o) {
        if (o instanceof NativeSelectionKey key) {
            int index = indexOf(key);
            if (index >= 0) {
                removeAt(index);
                return true;
            }
        }
        return false;
    }

    @Override
    public int size() {
        return end - holes;
    }

    @Override
    public void clear() {
        for (int i = 0; i < end; i++) {
            NativeSelectionKey key = keys[i];
            if (key != null) {
                key.selectedIndex = -1;
                keys[i] = null;
            }
        }
        end = 0;
        holes = 0;
        touchedEnd = 0;
        modCount++;
    }

    @Override
    public Iterator<SelectionKey> iterator() {
        return new Iterator<>() {
            private int cursor;
            private int last = -1;
            private int expectedModCount = modCount;

            /*
             * Stepping over holes here changes nothing that next() returns: only compact() and
             * clear() reuse a slot, and next() reports either as a concurrent modification.
             */
            @Override
            public boolean hasNext() {
                while (cursor < end && keys[cursor] == null) {
                    cursor++;
                }
                return cursor < end;
            }

            @Override
            public SelectionKey next() {
                if (modCount != expectedModCount) {
                    throw new ConcurrentModificationException();
                }
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                if (cursor >= touchedEnd) {
                    touchAhead(cursor);
                }
                last = cursor;
                return keys[cursor++];
            }

            @Override
            public void remove() {
                if (last < 0) {
                    throw new IllegalStateException();
                }
                if (modCount != expectedModCount) {
                    throw new ConcurrentModificationException();
                }
                removeAt(last);
                last = -1;
                expectedModCount = modCount;
            }
        };
    }

    /** Touches the keys in the slots from {@code from} on, up to {@link NativeSelectionKey#TOUCHED_AT_A_TIME} of them. */
    private void touchAhead(int from) {
        int to = Math.min(end, from + NativeSelectionKey.TOUCHED_AT_A_TIME);
        int read = 0;
        for (int i = from; i < to; i++) {
            NativeSelectionKey key = keys[i];
            if (key != null) {
                read += key.touchForProgram();
            }
        }
        touched += read;
        touchedEnd = to;
    }

    private int indexOf(NativeSelectionKey key) {
        int index = key.selectedIndex;
        return index >= 0 && index < end && keys[index] == key ? index : -1;
    }

    /**
     * Leaves a hole where the key was. It never moves another key, so an iterator's position
     * stays valid; once the set is empty the slots are all null and are reused from the front.
     */
    private void removeAt(int index) {
        keys[index].selectedIndex = -1;
        keys[index] = null;
        if (++holes == end) {
            end = 0;
            holes = 0;
            touchedEnd = 0;
        }
        modCount++;
    }

    /** Moves the keys down over the holes, in order. */
    private void compact() {
        int to = 0;
        for (int from = 0; from < end; from++) {
            NativeSelectionKey key = keys[from];
            if (key != null) {
                key.selectedIndex = to;
                keys[to++] = key;
            }
        }
        Arrays.fill(keys, to, end, null);
        end = to;
        holes = 0;
        touchedEnd = 0;
    }
}
