/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.contract;

import static io.github.nativeselector.support.ContractSupport.AWAIT_MS;
import static io.github.nativeselector.support.ContractSupport.selectUntilSelected;
import static java.nio.channels.SelectionKey.OP_READ;
import static java.nio.channels.SelectionKey.OP_WRITE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.nativeselector.support.ContractChannels.PipePair;
import io.github.nativeselector.support.ContractChannels.SocketKind;
import io.github.nativeselector.support.ContractChannels.SocketPair;
import io.github.nativeselector.support.ContractSupport;
import io.github.nativeselector.support.ContractSupport.Background;
import io.github.nativeselector.support.TestSelectors;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.WritableByteChannel;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The key set and the selected-key set: what may be changed through them, iteration while other
 * threads register and cancel, and both sets (and every selection method) after close.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class KeySetsTest {

    private static final String ALL = ContractSupport.ALL;

    @ParameterizedTest
    @MethodSource(ALL)
    void keySetIsUnmodifiable(TestSelectors s) throws Exception {
        try (Selector sel = s.open(); PipePair p = PipePair.open(); PipePair q = PipePair.open()) {
            p.sink.configureBlocking(false);
            q.sink.configureBlocking(false);
            SelectionKey key = p.sink.register(sel, OP_WRITE);
            SelectionKey other = q.sink.register(sel, OP_WRITE);
            Set<SelectionKey> keys = sel.keys();
            List<Executable> changes = List.of(
                    () -> keys.add(other),
                    () -> keys.add(key),
                    () -> keys.remove(key),
                    () -> keys.addAll(Set.of(key)),
                    () -> keys.removeAll(Set.of(key)),
                    () -> keys.retainAll(Set.of(key)),
                    () -> keys.removeIf(k -> k == key),
                    keys::clear,
                    () -> {
                        Iterator<SelectionKey> it = keys.iterator();
                        it.next();
                        it.remove();
                    });
            for (int i = 0; i < changes.size(); i++) {
                assertThrows(UnsupportedOperationException.class, changes.get(i), "change #" + i);
            }
            assertEquals(Set.of(key, other), keys);
            assertEquals(2, sel.keys().size());
            assertTrue(key.isValid() && other.isValid());
            assertEquals(2, sel.select(AWAIT_MS));
        }
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void keySetFollowsRegistrationAndCancellation(TestSelectors s) throws Exception {
        try (Selector sel = s.open(); PipePair p = PipePair.open(); SocketPair sp = SocketPair.open(SocketKind.UNIX)) {
            assertTrue(sel.keys().isEmpty());
            p.source.configureBlocking(false);
            SelectionKey a = p.source.register(sel, OP_READ);
            SelectionKey b = sp.local.register(sel, 0);
            assertEquals(Set.of(a, b), new HashSet<>(sel.keys()));
            assertTrue(sel.keys().contains(a));
            b.cancel();
            sel.selectNow();
            assertEquals(Set.of(a), new HashSet<>(sel.keys()));
            assertFalse(sel.keys().contains(b));
            p.source.close();
            sel.selectNow();
            assertTrue(sel.keys().isEmpty());
        }
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void iteratingTheKeySetWhileAnotherThreadRegistersNeverThrows(TestSelectors s) throws Exception {
        int pipes = 150;
        List<PipePair> all = new ArrayList<>();
        try (Selector sel = s.open()) {
            for (int i = 0; i < pipes; i++) {
                PipePair p = PipePair.open();
                all.add(p);
                p.sink.configureBlocking(false);
            }
            AtomicBoolean stop = new AtomicBoolean();
            try (Background<Integer> registrar = Background.start("registrar", self -> {
                self.aboutToBlock();
                for (PipePair p : all) {
                    p.sink.register(sel, OP_WRITE, p);
                    Thread.yield();
                }
                return pipes;
            })) {
                int iterations = 0;
                int maxSeen = 0;
                while (!registrar.isDone() || iterations < 10) {
                    int n = 0;
                    for (SelectionKey k : sel.keys()) {
                        assertTrue(k.attachment() instanceof PipePair);
                        n++;
                    }
                    maxSeen = Math.max(maxSeen, n);
                    maxSeen = Math.max(maxSeen, sel.keys().toArray().length);
                    sel.keys().stream().filter(SelectionKey::isValid).count();
                    iterations++;
                }
                assertEquals(pipes, registrar.get(AWAIT_MS));
                assertTrue(maxSeen <= pipes);
            }
            assertEquals(pipes, sel.keys().size());
            assertEquals(pipes, sel.select(AWAIT_MS));

            // and while another thread cancels and selects (removing keys from the set)
            try (Background<Integer> canceller = Background.start("canceller", self -> {
                self.aboutToBlock();
                int i = 0;
                for (SelectionKey k : List.copyOf(sel.keys())) {
                    k.cancel();
                    if (++i % 10 == 0) {
                        sel.selectNow();
                    }
                }
                sel.selectNow();
                return i;
            })) {
                while (!canceller.isDone()) {
                    for (SelectionKey k : sel.keys()) {
                        assertTrue(k.attachment() instanceof PipePair);
                    }
                }
                assertEquals(pipes, canceller.get(AWAIT_MS));
            }
            assertTrue(sel.keys().isEmpty());
        } finally {
            all.forEach(PipePair::close);
        }
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void selectedKeySetAllowsRemovalButNotAddition(TestSelectors s) throws Exception {
        try (Selector sel = s.open(); PipePair a = PipePair.open(); PipePair b = PipePair.open();
                PipePair c = PipePair.open()) {
            a.sink.configureBlocking(false);
            b.sink.configureBlocking(false);
            c.sink.configureBlocking(false);
            SelectionKey ka = a.sink.register(sel, OP_WRITE);
            SelectionKey kb = b.sink.register(sel, OP_WRITE);
            SelectionKey kc = c.sink.register(sel, OP_WRITE);
            assertEquals(3, sel.select(AWAIT_MS));
            Set<SelectionKey> selected = sel.selectedKeys();
            assertEquals(Set.of(ka, kb, kc), new HashSet<>(selected));

            // The contract says UnsupportedOperationException whatever the argument.
            @SuppressWarnings({"unchecked", "rawtypes"})
            Set<Object> raw = (Set) selected;
            assertThrows(UnsupportedOperationException.class, () -> raw.add(new Object()));
            assertThrows(UnsupportedOperationException.class, () -> raw.add(null));
            assertThrows(UnsupportedOperationException.class, () -> raw.addAll(List.of(new Object())));
            assertThrows(UnsupportedOperationException.class, () -> selected.add(ka));
            assertThrows(UnsupportedOperationException.class, () -> selected.addAll(Set.of(ka)));
            assertThrows(UnsupportedOperationException.class, () -> selected.addAll(Set.of()));
            assertEquals(3, selected.size());

            assertTrue(selected.remove(ka));
            assertFalse(selected.remove(ka));
            assertFalse(selected.contains(ka));
            Iterator<SelectionKey> it = selected.iterator();
            SelectionKey first = it.next();
            it.remove();
            assertEquals(1, selected.size());
            assertFalse(selected.contains(first));
            assertEquals(1, sel.selectedKeys().size(), "removal visible through a new view too");
            selected.clear();
            assertTrue(sel.selectedKeys().isEmpty());

            assertEquals(3, sel.selectNow(), "removed keys are selected again");
            assertTrue(sel.selectedKeys().removeIf(k -> k == kb));
            assertEquals(Set.of(ka, kc), new HashSet<>(sel.selectedKeys()));
            assertTrue(sel.selectedKeys().removeAll(Set.of(ka)));
            assertEquals(Set.of(kc), new HashSet<>(sel.selectedKeys()));
            for (SelectionKey k : kb.selector().keys()) {
                assertTrue(k.isValid(), "removing from the selected set does not cancel");
            }
        }
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void iteratorRemovalVisitsEverySelectedKeyOnce(TestSelectors s) throws Exception {
        int n = 12;
        List<PipePair> pipes = new ArrayList<>();
        try (Selector sel = s.open()) {
            Set<SelectionKey> all = new HashSet<>();
            for (int i = 0; i < n; i++) {
                PipePair p = PipePair.open();
                pipes.add(p);
                p.sink.configureBlocking(false);
                all.add(p.sink.register(sel, OP_WRITE, i));
            }
            assertEquals(n, sel.select(AWAIT_MS));
            // remove the keys with an even attachment while iterating
            List<SelectionKey> visited = new ArrayList<>();
            Set<SelectionKey> kept = new HashSet<>();
            for (Iterator<SelectionKey> it = sel.selectedKeys().iterator(); it.hasNext(); ) {
                SelectionKey k = it.next();
                visited.add(k);
                if ((Integer) k.attachment() % 2 == 0) {
                    it.remove();
                } else {
                    kept.add(k);
                }
            }
            assertEquals(n, visited.size(), "keys visited");
            assertEquals(all, new HashSet<>(visited), "every key visited once");
            assertEquals(kept, new HashSet<>(sel.selectedKeys()));
            assertEquals(n / 2, sel.selectedKeys().size());

            // the usual loop: take each key and remove it
            assertEquals(n / 2, sel.selectNow(), "the removed half is selected again");
            visited.clear();
            for (Iterator<SelectionKey> it = sel.selectedKeys().iterator(); it.hasNext(); ) {
                visited.add(it.next());
                it.remove();
            }
            assertEquals(n, visited.size());
            assertEquals(all, new HashSet<>(visited));
            assertTrue(sel.selectedKeys().isEmpty());
            Iterator<SelectionKey> empty = sel.selectedKeys().iterator();
            assertFalse(empty.hasNext());
            assertThrows(java.util.NoSuchElementException.class, empty::next);
        } finally {
            pipes.forEach(PipePair::close);
        }
    }

    /**
     * Pipes and loopback sockets made readable one select after another, so that each select
     * adds one key: the usual loop (take a key, remove it, handle it) visits every selected key
     * once, and on the native selectors in the order the keys were selected. The JDK's set is a
     * HashSet, whose order is its own, so for it only the visits are counted.
     */
    @ParameterizedTest
    @MethodSource(ALL)
    void theUsualLoopVisitsEachSelectedKeyOnceInTheOrderTheyWereSelected(TestSelectors s) throws Exception {
        int n = 8;
        List<AutoCloseable> resources = new ArrayList<>();
        try (Selector sel = s.open()) {
            List<SelectionKey> keys = new ArrayList<>();
            List<WritableByteChannel> writers = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                if (i % 2 == 0) {
                    PipePair p = PipePair.open();
                    resources.add(p);
                    p.source.configureBlocking(false);
                    keys.add(p.source.register(sel, OP_READ, i));
                    writers.add(p.sink);
                } else {
                    SocketPair sp = SocketPair.open(SocketKind.INET);
                    resources.add(sp);
                    keys.add(sp.local.register(sel, OP_READ, i));
                    writers.add(sp.peer);
                }
            }
            // Not in registration order, so that only the order of selection can explain a match.
            List<Integer> readiness = List.of(5, 2, 7, 0, 3, 6, 1, 4);
            List<SelectionKey> selected = new ArrayList<>();
            for (int i : readiness) {
                assertEquals(1, writers.get(i).write(ByteBuffer.wrap(new byte[] {1})));
                selectUntilSelected(sel, keys.get(i));
                selected.add(keys.get(i));
                assertEquals(selected.size(), sel.selectedKeys().size());
            }
            List<SelectionKey> visited = takeEach(sel.selectedKeys());
            assertEquals(n, visited.size(), "keys visited");
            assertEquals(Set.copyOf(keys), new HashSet<>(visited), "every key visited once");
            if (s.isNative()) {
                assertEquals(attachments(selected), attachments(visited), "visited in the order selected");
            }

            // Every key at once, in the kernel's order; then one taken out and selected again.
            selectUntilSelected(sel, keys.toArray(new SelectionKey[0]));
            List<SelectionKey> order = new ArrayList<>(sel.selectedKeys());
            assertEquals(order, new ArrayList<>(sel.selectedKeys()), "iterating does not reorder");
            SelectionKey middle = order.get(n / 2);
            assertTrue(sel.selectedKeys().remove(middle));
            selectUntilSelected(sel, middle);
            order.remove(middle);
            order.add(middle);
            visited = takeEach(sel.selectedKeys());
            assertEquals(n, visited.size(), "keys visited");
            assertEquals(Set.copyOf(keys), new HashSet<>(visited), "every key visited once");
            if (s.isNative()) {
                assertEquals(attachments(order), attachments(visited), "a key selected again comes last");
            }
        } finally {
            for (AutoCloseable resource : resources) {
                resource.close();
            }
        }
    }

    /** The usual loop: each key taken and removed; returns them in the order they came. */
    private static List<SelectionKey> takeEach(Set<SelectionKey> selected) {
        List<SelectionKey> taken = new ArrayList<>();
        for (Iterator<SelectionKey> it = selected.iterator(); it.hasNext(); ) {
            taken.add(it.next());
            it.remove();
        }
        assertTrue(selected.isEmpty());
        return taken;
    }

    private static List<Object> attachments(List<SelectionKey> keys) {
        List<Object> attachments = new ArrayList<>();
        for (SelectionKey key : keys) {
            attachments.add(key.attachment());
        }
        return attachments;
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void keysAreNotAddedToTheSelectedSetWhenNothingIsReady(TestSelectors s) throws Exception {
        try (Selector sel = s.open(); SocketPair p = SocketPair.open(SocketKind.INET)) {
            SelectionKey key = p.local.register(sel, OP_READ);
            assertEquals(0, sel.selectNow());
            assertEquals(0, sel.select(100));
            assertTrue(sel.selectedKeys().isEmpty());
            assertEquals(Set.of(key), new HashSet<>(sel.keys()));
        }
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void afterCloseTheSetsAndEverySelectThrowClosedSelector(TestSelectors s) throws Exception {
        try (PipePair p = PipePair.open(); PipePair q = PipePair.open()) {
            p.sink.configureBlocking(false);
            q.sink.configureBlocking(false);
            Selector sel = s.open();
            SelectionKey key = p.sink.register(sel, OP_WRITE);
            assertEquals(1, sel.select(AWAIT_MS));
            sel.close();
            assertFalse(sel.isOpen());
            Consumer<SelectionKey> none = k -> { };
            List<Executable> calls = List.of(
                    sel::keys,
                    sel::selectedKeys,
                    sel::select,
                    () -> sel.select(100),
                    sel::selectNow,
                    () -> sel.select(none),
                    () -> sel.select(none, 100),
                    () -> sel.selectNow(none),
                    () -> q.sink.register(sel, OP_WRITE),
                    () -> p.sink.register(sel, OP_WRITE));
            for (int i = 0; i < calls.size(); i++) {
                assertThrows(ClosedSelectorException.class, calls.get(i), "call #" + i + " after close");
            }
            assertFalse(key.isValid());
            assertFalse(q.sink.isRegistered());
            assertFalse(p.sink.isRegistered());
            assertNull(q.sink.keyFor(sel));
            assertSame(sel, sel.wakeup());
            sel.close();
            assertFalse(sel.isOpen());
        }
    }
}
