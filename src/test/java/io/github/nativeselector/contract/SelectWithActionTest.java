/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.contract;

import static io.github.nativeselector.support.ContractChannels.readExactly;
import static io.github.nativeselector.support.ContractChannels.writeFully;
import static io.github.nativeselector.support.ContractSupport.AWAIT_MS;
import static io.github.nativeselector.support.ContractSupport.awaitReadyOps;
import static io.github.nativeselector.support.ContractSupport.ops;
import static io.github.nativeselector.support.ContractSupport.witnessReady;
import static java.nio.channels.SelectionKey.OP_CONNECT;
import static java.nio.channels.SelectionKey.OP_READ;
import static java.nio.channels.SelectionKey.OP_WRITE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.nativeselector.support.ContractChannels.PipePair;
import io.github.nativeselector.support.ContractChannels.SocketKind;
import io.github.nativeselector.support.ContractChannels.SocketPair;
import io.github.nativeselector.support.ContractSupport;
import io.github.nativeselector.support.TestSelectors;
import java.io.IOException;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The {@code select(Consumer)} family: the action is handed each ready key and the selected-key
 * set is left alone; timeouts, wakeups, what the action may do to the selector and its keys, and
 * an action that throws.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class SelectWithActionTest {

    private static final String ALL = ContractSupport.ALL;

    @ParameterizedTest
    @MethodSource(ALL)
    void selectWithActionRejectsNullActionAndNegativeTimeout(TestSelectors s) throws Exception {
        try (Selector sel = s.open()) {
            assertThrows(NullPointerException.class, () -> sel.select((Consumer<SelectionKey>) null));
            assertThrows(NullPointerException.class, () -> sel.select(null, 100));
            assertThrows(NullPointerException.class, () -> sel.selectNow(null));
            assertThrows(IllegalArgumentException.class, () -> sel.select(k -> { }, -1));
            assertThrows(IllegalArgumentException.class, () -> sel.select(-1));
            assertTrue(sel.isOpen());
            assertEquals(0, sel.selectNow(k -> { }));
        }
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void selectWithActionConsumesReadyKeysWithoutFillingTheSelectedSet(TestSelectors s) throws Exception {
        try (Selector sel = s.open(); SocketPair readable = SocketPair.open(SocketKind.INET);
                SocketPair idle = SocketPair.open(SocketKind.UNIX); SocketPair connected = SocketPair.open(SocketKind.INET);
                PipePair pipe = PipePair.open()) {
            writeFully(readable.peer, 5);
            witnessReady(readable.local, OP_READ);
            pipe.sink.configureBlocking(false);
            SelectionKey kr = readable.local.register(sel, OP_READ);
            SelectionKey kw = pipe.sink.register(sel, OP_WRITE);
            SelectionKey ki = idle.local.register(sel, OP_READ);
            // writable but only interested in OP_CONNECT: polled ready, but no ready op in the interest set
            SelectionKey kc = connected.local.register(sel, OP_CONNECT);

            List<SelectionKey> seen = new ArrayList<>();
            List<Integer> readyInAction = new ArrayList<>();
            int n = sel.select(k -> {
                seen.add(k);
                readyInAction.add(k.readyOps());
            }, AWAIT_MS);
            assertEquals(2, n, "return value: keys consumed");
            assertEquals(2, seen.size(), "action called once per ready key: " + seen);
            assertEquals(Set.of(kr, kw), new HashSet<>(seen));
            for (int i = 0; i < seen.size(); i++) {
                assertEquals(ops(seen.get(i) == kr ? OP_READ : OP_WRITE), ops(readyInAction.get(i)));
            }
            assertTrue(sel.selectedKeys().isEmpty(), "select(Consumer) does not touch the selected set");
            assertEquals(0, kc.readyOps());
            assertEquals(0, ki.readyOps());

            seen.clear();
            assertEquals(2, sel.selectNow(seen::add), "level-triggered: consumed again");
            assertEquals(Set.of(kr, kw), new HashSet<>(seen));
            seen.clear();
            assertEquals(2, sel.select(seen::add));
            assertEquals(Set.of(kr, kw), new HashSet<>(seen));
            assertTrue(sel.selectedKeys().isEmpty());
        }
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void selectWithActionReplacesReadyOps(TestSelectors s) throws Exception {
        try (Selector sel = s.open(); SocketPair p = SocketPair.open(SocketKind.INET)) {
            writeFully(p.peer, 10);
            SelectionKey key = p.local.register(sel, OP_READ | OP_WRITE);
            awaitReadyOps(sel, key, OP_READ | OP_WRITE);
            assertTrue(sel.selectedKeys().contains(key));
            readExactly(p.local, 10);
            int[] seen = {-1};
            assertEquals(1, sel.selectNow(k -> seen[0] = k.readyOps()));
            assertEquals(ops(OP_WRITE), ops(seen[0]), "ready ops replaced, not OR'ed, before the action runs");
            assertEquals(ops(OP_WRITE), ops(key.readyOps()));
            assertEquals(Set.of(key), sel.selectedKeys(), "the selected set is left as it was");
        }
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void actionClosingTheSelectorMakesSelectThrowClosedSelector(TestSelectors s) throws Exception {
        try (PipePair p = PipePair.open()) {
            p.sink.configureBlocking(false);
            for (int variant = 0; variant < 3; variant++) {
                Selector sel = s.open();
                try {
                    SelectionKey key = p.sink.register(sel, OP_WRITE);
                    AtomicInteger calls = new AtomicInteger();
                    Consumer<SelectionKey> closer = k -> {
                        calls.incrementAndGet();
                        try {
                            k.selector().close();
                        } catch (IOException e) {
                            throw new AssertionError(e);
                        }
                    };
                    int v = variant;
                    assertThrows(ClosedSelectorException.class, () -> {
                        if (v == 0) {
                            sel.select(closer);
                        } else if (v == 1) {
                            sel.select(closer, AWAIT_MS);
                        } else {
                            sel.selectNow(closer);
                        }
                    }, "variant " + variant);
                    assertEquals(1, calls.get());
                    assertFalse(sel.isOpen());
                    assertFalse(key.isValid());
                    assertNull(p.sink.keyFor(sel));
                } finally {
                    sel.close();
                }
            }
            assertFalse(p.sink.isRegistered());
        }
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void reentrantSelectInsideTheActionThrowsIllegalState(TestSelectors s) throws Exception {
        try (Selector sel = s.open(); PipePair p = PipePair.open()) {
            p.sink.configureBlocking(false);
            p.sink.register(sel, OP_WRITE);
            List<Throwable> thrown = new ArrayList<>();
            List<Executable> reentrant = List.of(
                    sel::selectNow,
                    () -> sel.select(100),
                    sel::select,
                    () -> sel.selectNow(k -> { }),
                    () -> sel.select(k -> { }, 100),
                    () -> sel.select(k -> { }));
            int n = sel.select(k -> {
                for (Executable e : reentrant) {
                    try {
                        e.execute();
                        thrown.add(null);
                    } catch (Throwable t) {
                        thrown.add(t);
                    }
                }
            }, AWAIT_MS);
            assertEquals(1, n);
            assertEquals(reentrant.size(), thrown.size());
            for (int i = 0; i < thrown.size(); i++) {
                assertInstanceOf(IllegalStateException.class, thrown.get(i), "reentrant select #" + i);
            }
            assertTrue(sel.isOpen());
            assertEquals(1, sel.selectNow(), "selector usable after the action");
        }
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void wakeupBeforeSelectWithActionReturnsZero(TestSelectors s) throws Exception {
        try (Selector sel = s.open(); PipePair p = PipePair.open()) {
            p.source.configureBlocking(false);
            p.source.register(sel, OP_READ);
            sel.wakeup();
            AtomicInteger calls = new AtomicInteger();
            long t0 = System.nanoTime();
            assertEquals(0, sel.select(k -> calls.incrementAndGet()));
            assertTrue(ContractSupport.millisSince(t0) < AWAIT_MS);
            assertEquals(0, calls.get());
            sel.wakeup();
            assertEquals(0, sel.select(k -> calls.incrementAndGet(), 60_000));
            assertEquals(0, calls.get());
        }
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void selectWithActionAndTimeoutTimesOut(TestSelectors s) throws Exception {
        try (Selector sel = s.open(); PipePair p = PipePair.open()) {
            p.source.configureBlocking(false);
            p.source.register(sel, OP_READ);
            AtomicInteger calls = new AtomicInteger();
            long t0 = System.nanoTime();
            assertEquals(0, sel.select(k -> calls.incrementAndGet(), 500));
            long took = ContractSupport.millisSince(t0);
            assertTrue(took >= 400, "select(action, 500) returned after " + took + " ms");
            assertEquals(0, calls.get());
            assertEquals(0, sel.selectNow(k -> calls.incrementAndGet()));
            assertEquals(0, calls.get());
        }
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void actionMayChangeInterestCancelAndRegister(TestSelectors s) throws Exception {
        try (Selector sel = s.open(); PipePair a = PipePair.open(); PipePair b = PipePair.open();
                PipePair c = PipePair.open()) {
            a.sink.configureBlocking(false);
            b.sink.configureBlocking(false);
            c.sink.configureBlocking(false);
            SelectionKey ka = a.sink.register(sel, OP_WRITE, "a");
            SelectionKey kb = b.sink.register(sel, OP_WRITE, "b");
            SelectionKey[] kc = new SelectionKey[1];
            int n = sel.select(k -> {
                try {
                    if (k == ka) {
                        k.interestOps(0);
                    } else {
                        k.cancel();
                        kc[0] = c.sink.register(sel, OP_WRITE, "c");
                    }
                } catch (IOException e) {
                    throw new AssertionError(e);
                }
            }, AWAIT_MS);
            assertEquals(2, n);
            assertFalse(kb.isValid());
            assertTrue(kc[0].isValid());
            List<Object> seen = new ArrayList<>();
            assertEquals(1, sel.selectNow(k -> seen.add(k.attachment())));
            assertEquals(List.of("c"), seen, "a has interest 0, b is cancelled, c is new");
            assertEquals(Set.of(ka, kc[0]), sel.keys());
        }
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void exceptionFromTheActionPropagatesAndTheSelectorStaysUsable(TestSelectors s) throws Exception {
        try (Selector sel = s.open(); PipePair p = PipePair.open()) {
            p.sink.configureBlocking(false);
            SelectionKey key = p.sink.register(sel, OP_WRITE);
            IllegalStateException boom = new IllegalStateException("boom");
            IllegalStateException thrown = assertThrows(IllegalStateException.class,
                    () -> sel.select(k -> {
                        throw boom;
                    }, AWAIT_MS));
            assertSame(boom, thrown);
            assertTrue(sel.isOpen());
            assertTrue(key.isValid());
            List<SelectionKey> seen = new ArrayList<>();
            assertEquals(1, sel.selectNow(seen::add), "no select left marked in progress");
            assertEquals(List.of(key), seen);
            assertEquals(1, sel.selectNow());
        }
    }
}
