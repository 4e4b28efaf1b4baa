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
 * removing a key allocate nothing and take constant time. Users may remove keys (directly or
 * through an iterator) but not add them: {@link #add} throws, as the JDK's set does.
 *
 * <p>Not thread-safe: users synchronize on the set, as {@code Selector.selectedKeys()} says,
 * and the selector adds keys while holding that monitor.
 */
final class SelectedKeySet extends AbstractSet<SelectionKey> {

    private NativeSelectionKey[] keys = new NativeSelectionKey[32];
    private int size;
    private int modCount;

    /** Adds a key that is not in the set. */
    void addSelected(NativeSelectionKey key) {
        if (size == keys.length) {
            keys = Arrays.copyOf(keys, size * 2);
        }
        key.selectedIndex = size;
        keys[size++] = key;
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
        return size;
    }

    @Override
    public void clear() {
        for (int i = 0; i < size; i++) {
            keys[i].selectedIndex = -1;
            keys[i] = null;
        }
        size = 0;
        modCount++;
    }

    @Override
    public Iterator<SelectionKey> iterator() {
        return new Iterator<>() {
            private int cursor;
            private int last = -1;
            private int expectedModCount = modCount;

            @Override
            public boolean hasNext() {
                return cursor < size;
            }

            @Override
            public SelectionKey next() {
                if (modCount != expectedModCount) {
                    throw new ConcurrentModificationException();
                }
                if (cursor >= size) {
                    throw new NoSuchElementException();
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
                // The last key moves into the hole; step back so it is visited.
                removeAt(last);
                cursor = last;
                last = -1;
                expectedModCount = modCount;
            }
        };
    }

    private int indexOf(NativeSelectionKey key) {
        int index = key.selectedIndex;
        return index >= 0 && index < size && keys[index] == key ? index : -1;
    }

    private void removeAt(int index) {
        keys[index].selectedIndex = -1;
        int last = --size;
        if (index != last) {
            keys[index] = keys[last];
            keys[index].selectedIndex = index;
        }
        keys[last] = null;
        modCount++;
    }
}
