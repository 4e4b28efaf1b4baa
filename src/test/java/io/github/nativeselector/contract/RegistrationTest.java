/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.contract;

import static io.github.nativeselector.support.ContractChannels.writeFully;
import static io.github.nativeselector.support.ContractSupport.AWAIT_MS;
import static io.github.nativeselector.support.ContractSupport.ops;
import static io.github.nativeselector.support.ContractSupport.witnessReady;
import static java.nio.channels.SelectionKey.OP_ACCEPT;
import static java.nio.channels.SelectionKey.OP_CONNECT;
import static java.nio.channels.SelectionKey.OP_READ;
import static java.nio.channels.SelectionKey.OP_WRITE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.github.nativeselector.support.ContractChannels.DatagramPair;
import io.github.nativeselector.support.ContractChannels.Listener;
import io.github.nativeselector.support.ContractChannels.PipePair;
import io.github.nativeselector.support.ContractChannels.SocketKind;
import io.github.nativeselector.support.ContractChannels.SocketPair;
import io.github.nativeselector.support.ContractSupport;
import io.github.nativeselector.support.ContractSupport.Background;
import io.github.nativeselector.support.TestSelectors;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.IllegalBlockingModeException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code register()} and the interest set: what they refuse, the key they give, and when a change
 * takes effect (at the next select, never waiting for a select in progress), checked against the
 * contract of {@link Selector} and {@link SelectionKey} as the JDK's own selector implements it.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class RegistrationTest {

    private static final String ALL = ContractSupport.ALL;

    @ParameterizedTest
    @MethodSource(ALL)
    void registerRejectsOpsOutsideValidOps(TestSelectors s) throws Exception {
        try (Selector sel = s.open(); PipePair p = PipePair.open(); SocketPair sp = SocketPair.open(SocketKind.INET)) {
            p.source.configureBlocking(false);
            p.sink.configureBlocking(false);
            assertThrows(IllegalArgumentException.class, () -> p.source.register(sel, OP_WRITE));
            assertThrows(IllegalArgumentException.class, () -> p.sink.register(sel, OP_READ));
            assertThrows(IllegalArgumentException.class, () -> p.source.register(sel, -1));
            assertThrows(IllegalArgumentException.class, () -> sp.local.register(sel, OP_ACCEPT));
            assertThrows(IllegalArgumentException.class, () -> sp.local.register(sel, 1 << 7));
            assertFalse(p.source.isRegistered());
            assertFalse(sp.local.isRegistered());
            assertTrue(sel.keys().isEmpty());
            assertEquals(0, sel.selectNow());
        }
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void registerRejectsBlockingChannel(TestSelectors s) throws Exception {
        try (Selector sel = s.open(); PipePair p = PipePair.open()) {
            assertTrue(p.source.isBlocking());
            assertThrows(IllegalBlockingModeException.class, () -> p.source.register(sel, OP_READ));
            assertFalse(p.source.isRegistered());
            assertTrue(sel.keys().isEmpty());
        }
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void registerRejectsClosedChannel(TestSelectors s) throws Exception {
        try (Selector sel = s.open(); PipePair p = PipePair.open()) {
            p.source.configureBlocking(false);
            p.source.close();
            assertThrows(ClosedChannelException.class, () -> p.source.register(sel, OP_READ));
            assertTrue(sel.keys().isEmpty());
        }
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void registerReturnsAValidKeyWithTheAttachment(TestSelectors s) throws Exception {
        try (Selector sel = s.open(); SocketPair p = SocketPair.open(SocketKind.INET)) {
            Object att = new Object();
            SelectionKey key = p.local.register(sel, OP_READ, att);
            assertTrue(key.isValid());
            assertSame(att, key.attachment());
            assertSame(p.local, key.channel());
            assertSame(sel, key.selector());
            assertEquals(OP_READ, key.interestOps());
            assertTrue(p.local.isRegistered());
            assertSame(key, p.local.keyFor(sel));
            assertTrue(sel.keys().contains(key));
            assertEquals(1, sel.keys().size());
            assertTrue(sel.selectedKeys().isEmpty());
            Object att2 = "second";
            assertSame(att, key.attach(att2));
            assertSame(att2, key.attachment());
            assertSame(att2, key.attach(null));
            assertNull(key.attachment());
            SelectionKey noAtt = p.peer.configureBlocking(false).register(sel, OP_WRITE);
            assertNull(noAtt.attachment());
            assertEquals(2, sel.keys().size());
        }
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void registerEveryChannelType(TestSelectors s) throws Exception {
        try (Selector sel = s.open(); SocketPair inet = SocketPair.open(SocketKind.INET);
                SocketPair unix = SocketPair.open(SocketKind.UNIX); Listener l = Listener.open(SocketKind.INET);
                DatagramPair d = DatagramPair.open(); PipePair p = PipePair.open()) {
            l.channel.configureBlocking(false);
            p.source.configureBlocking(false);
            p.sink.configureBlocking(false);
            SelectionKey[] keys = {
                inet.local.register(sel, OP_WRITE, "inet"),
                unix.local.register(sel, OP_WRITE, "unix"),
                l.channel.register(sel, OP_ACCEPT, "server"),
                d.local.register(sel, OP_WRITE, "datagram"),
                p.source.register(sel, OP_READ, "source"),
                p.sink.register(sel, OP_WRITE, "sink"),
            };
            assertEquals(6, sel.keys().size());
            assertEquals(4, sel.select(AWAIT_MS), "the four writable channels");
            Set<Object> selected = new HashSet<>();
            sel.selectedKeys().forEach(k -> selected.add(k.attachment()));
            assertEquals(Set.of("inet", "unix", "datagram", "sink"), selected);
            for (SelectionKey k : keys) {
                assertTrue(k.isValid());
            }
        }
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void registeringTwiceReturnsTheSameKeyWithNewOpsAndAttachment(TestSelectors s) throws Exception {
        try (Selector sel = s.open(); SocketPair p = SocketPair.open(SocketKind.INET)) {
            SelectionKey key = p.local.register(sel, OP_READ, "first");
            assertEquals(0, sel.selectNow(), "nothing to read");
            SelectionKey again = p.local.register(sel, OP_WRITE, "second");
            assertSame(key, again);
            assertEquals(OP_WRITE, key.interestOps());
            assertEquals("second", key.attachment());
            assertEquals(1, sel.keys().size());
            assertEquals(1, sel.selectNow(), "the new interest takes effect at the next select");
            assertEquals(ops(OP_WRITE), ops(key.readyOps()));
            assertSame(key, p.local.register(sel, OP_READ | OP_WRITE));
            assertNull(key.attachment(), "register without attachment replaces it with null");
        }
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void registerWithNoInterestThenInterestOpsTakesEffect(TestSelectors s) throws Exception {
        try (Selector sel = s.open(); PipePair p = PipePair.open()) {
            p.sink.configureBlocking(false);
            SelectionKey key = p.sink.register(sel, 0);
            assertEquals(0, key.interestOps());
            assertEquals(0, sel.selectNow());
            key.interestOps(OP_WRITE);
            assertEquals(1, sel.selectNow());
            assertEquals(ops(OP_WRITE), ops(key.readyOps()));
        }
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void registerDuringASelectInProgressTakesEffectAtTheNextSelect(TestSelectors s) throws Exception {
        try (Selector sel = s.open(); PipePair p = PipePair.open()) {
            p.sink.configureBlocking(false);
            SelectionKey[] key = new SelectionKey[1];
            assertSeenOnlyByTheNextSelect(s, sel, () -> key[0] = p.sink.register(sel, OP_WRITE), 1, "register");
            assertEquals(Set.of(key[0]), sel.selectedKeys());
            assertEquals(ops(OP_WRITE), ops(key[0].readyOps()));
        }
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void manyRegistrationsDuringASelectInProgressTakeEffectAtTheNextSelect(TestSelectors s) throws Exception {
        List<PipePair> pipes = new ArrayList<>();
        try (Selector sel = s.open()) {
            for (int i = 0; i < MANY; i++) {
                PipePair p = PipePair.open();
                pipes.add(p);
                p.sink.configureBlocking(false);
            }
            assertSeenOnlyByTheNextSelect(s, sel, () -> {
                for (PipePair p : pipes) {
                    p.sink.register(sel, OP_WRITE);
                }
            }, MANY, MANY + " registrations");
        } finally {
            pipes.forEach(PipePair::close);
        }
    }

    /** More changes than a batch of registration changes holds. */
    private static final int MANY = 150;

    @FunctionalInterface
    private interface Change {
        void apply() throws Exception;
    }

    /**
     * Applies {@code change} while another thread is blocked in {@code select()}: the change
     * must not wait for that select. On the JDK's selector, and on a native one while the
     * changes stay below its batch threshold, it has no effect on that select (it keeps
     * blocking, and returns 0 with nothing selected once woken up) and is seen by the next
     * select, which returns {@code expected}. Changes that fill a native selector's queue are
     * applied at once (README, "Semantics"): the select in progress then returns by itself with
     * keys the changes made ready, and it and the next select together count {@code expected}.
     */
    private static void assertSeenOnlyByTheNextSelect(TestSelectors s, Selector sel, Change change, int expected,
            String what) throws Exception {
        boolean appliedAtOnce = s.isNative() && expected >= s.batchThreshold();
        int selectedInProgress;
        try (Background<Integer> bg = Background.start("selector", self -> {
            self.aboutToBlock();
            return sel.select();
        })) {
            bg.awaitBlockedInSelect();
            assertFalse(bg.isDone(), "select returned before the " + what);
            // A change that waited for the select in progress would hang here, until the class's timeout.
            change.apply();
            if (appliedAtOnce) {
                selectedInProgress = bg.get(AWAIT_MS);
                assertTrue(selectedInProgress > 0, what + " filled the queue: the select in progress sees it");
                assertEquals(selectedInProgress, sel.selectedKeys().size());
            } else {
                // Not a wait for an event: a window in which a select the change reached would return
                // by itself, to say so plainly; the woken select's answer below catches it either way.
                Thread.sleep(300);
                if (bg.isDone()) {
                    Integer n = bg.get(0);
                    fail(what + " during a select in progress must have no effect upon that select, but the select "
                            + "returned " + n + " with " + sel.selectedKeys().size() + " selected key(s)");
                }
                sel.wakeup();
                assertEquals(0, bg.get(AWAIT_MS), "the select in progress, once woken up, selected nothing");
                assertTrue(sel.selectedKeys().isEmpty(), "selected keys after the woken select");
                selectedInProgress = 0;
            }
        }
        assertEquals(expected, selectedInProgress + sel.selectNow(), "the next select sees the rest of the " + what);
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void interestOpsSettersReturnTheOldValues(TestSelectors s) throws Exception {
        try (Selector sel = s.open(); SocketPair p = SocketPair.open(SocketKind.INET)) {
            SelectionKey key = p.local.register(sel, OP_READ);
            assertEquals(OP_READ, key.interestOpsOr(OP_WRITE));
            assertEquals(OP_READ | OP_WRITE, key.interestOps());
            assertEquals(OP_READ | OP_WRITE, key.interestOpsOr(OP_WRITE));
            assertEquals(OP_READ | OP_WRITE, key.interestOpsAnd(OP_WRITE | OP_CONNECT));
            assertEquals(OP_WRITE, key.interestOps());
            assertSame(key, key.interestOps(OP_CONNECT));
            assertEquals(OP_CONNECT, key.interestOps());
            assertEquals(OP_CONNECT, key.interestOpsAnd(0));
            assertEquals(0, key.interestOps());
            assertEquals(0, key.interestOpsOr(0));
            assertEquals(0, key.interestOps());
        }
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void interestOpsRejectsBitsOutsideValidOps(TestSelectors s) throws Exception {
        try (Selector sel = s.open(); SocketPair sp = SocketPair.open(SocketKind.INET); PipePair p = PipePair.open();
                Listener l = Listener.open(SocketKind.INET)) {
            SelectionKey sock = sp.local.register(sel, OP_READ);
            p.source.configureBlocking(false);
            SelectionKey source = p.source.register(sel, OP_READ);
            l.channel.configureBlocking(false);
            SelectionKey server = l.channel.register(sel, OP_ACCEPT);

            assertThrows(IllegalArgumentException.class, () -> sock.interestOps(OP_ACCEPT));
            assertThrows(IllegalArgumentException.class, () -> sock.interestOps(-1));
            assertThrows(IllegalArgumentException.class, () -> sock.interestOpsOr(OP_ACCEPT));
            assertThrows(IllegalArgumentException.class, () -> sock.interestOpsOr(1 << 9));
            assertThrows(IllegalArgumentException.class, () -> source.interestOps(OP_WRITE));
            assertThrows(IllegalArgumentException.class, () -> source.interestOpsOr(OP_WRITE));
            assertThrows(IllegalArgumentException.class, () -> server.interestOps(OP_READ));
            assertThrows(IllegalArgumentException.class, () -> server.interestOpsOr(OP_CONNECT));
            assertEquals(OP_READ, sock.interestOps(), "unchanged after IllegalArgumentException");
            assertEquals(OP_READ, source.interestOps());
            assertEquals(OP_ACCEPT, server.interestOps());
            assertTrue(sock.isValid() && source.isValid() && server.isValid());
        }
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void interestOpsAndNeverThrowsIllegalArgument(TestSelectors s) throws Exception {
        try (Selector sel = s.open(); SocketPair sp = SocketPair.open(SocketKind.INET); PipePair p = PipePair.open()) {
            SelectionKey sock = sp.local.register(sel, OP_READ | OP_WRITE);
            assertEquals(OP_READ | OP_WRITE, sock.interestOpsAnd(~0));
            assertEquals(OP_READ | OP_WRITE, sock.interestOps());
            assertEquals(OP_READ | OP_WRITE, sock.interestOpsAnd(OP_ACCEPT | OP_READ | (1 << 12)));
            assertEquals(OP_READ, sock.interestOps());
            assertEquals(OP_READ, sock.interestOpsAnd(OP_ACCEPT));
            assertEquals(0, sock.interestOps());
            p.source.configureBlocking(false);
            SelectionKey source = p.source.register(sel, OP_READ);
            assertEquals(OP_READ, source.interestOpsAnd(OP_WRITE));
            assertEquals(0, source.interestOps());
            assertEquals(0, source.interestOpsAnd(-1));
        }
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void interestChangesTakeEffectAtTheNextSelect(TestSelectors s) throws Exception {
        try (Selector sel = s.open(); SocketPair p = SocketPair.open(SocketKind.INET)) {
            writeFully(p.peer, 10);
            witnessReady(p.local, OP_READ);
            SelectionKey key = p.local.register(sel, 0);
            assertEquals(0, sel.selectNow(), "interest 0");
            key.interestOpsOr(OP_READ);
            assertEquals(1, sel.selectNow(), "interestOpsOr(READ)");
            assertEquals(ops(OP_READ), ops(key.readyOps()));
            key.interestOpsAnd(~OP_READ);
            sel.selectedKeys().clear();
            assertEquals(0, sel.selectNow(), "interestOpsAnd(~READ)");
            key.interestOps(OP_READ | OP_WRITE);
            assertEquals(1, sel.selectNow(), "interestOps(READ|WRITE)");
            assertEquals(ops(OP_READ | OP_WRITE), ops(key.readyOps()));
            key.interestOps(0);
            sel.selectedKeys().clear();
            assertEquals(0, sel.selectNow(), "interestOps(0)");
            // several changes between two selects: only the last one counts
            key.interestOps(OP_WRITE);
            key.interestOps(0);
            key.interestOps(OP_READ);
            assertEquals(1, sel.selectNow(), "interestOps(WRITE), (0), (READ) between two selects");
            assertEquals(ops(OP_READ), ops(key.readyOps()));
            key.interestOps(0);
            key.interestOps(OP_WRITE);
            key.interestOps(0);
            sel.selectedKeys().clear();
            assertEquals(0, sel.selectNow(), "changed and changed back to 0");
        }
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void interestOpsDuringASelectInProgressTakesEffectAtTheNextSelect(TestSelectors s) throws Exception {
        try (Selector sel = s.open(); PipePair p = PipePair.open()) {
            p.sink.configureBlocking(false);
            SelectionKey key = p.sink.register(sel, 0);
            assertEquals(0, sel.selectNow());
            assertSeenOnlyByTheNextSelect(s, sel, () -> key.interestOps(OP_WRITE), 1, "interestOps(OP_WRITE)");
            assertEquals(ops(OP_WRITE), ops(key.readyOps()));
        }
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void interestOpsOrDuringASelectInProgressTakesEffectAtTheNextSelect(TestSelectors s) throws Exception {
        try (Selector sel = s.open(); SocketPair p = SocketPair.open(SocketKind.UNIX)) {
            SelectionKey key = p.local.register(sel, OP_READ);
            assertEquals(0, sel.selectNow());
            assertSeenOnlyByTheNextSelect(s, sel, () -> key.interestOpsOr(OP_WRITE), 1, "interestOpsOr(OP_WRITE)");
            assertEquals(ops(OP_WRITE), ops(key.readyOps()));
        }
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void manyInterestChangesDuringASelectInProgressTakeEffectAtTheNextSelect(TestSelectors s) throws Exception {
        List<PipePair> pipes = new ArrayList<>();
        try (Selector sel = s.open()) {
            List<SelectionKey> keys = new ArrayList<>();
            for (int i = 0; i < MANY; i++) {
                PipePair p = PipePair.open();
                pipes.add(p);
                p.sink.configureBlocking(false);
                keys.add(p.sink.register(sel, 0));
            }
            assertEquals(0, sel.selectNow());
            assertSeenOnlyByTheNextSelect(s, sel, () -> {
                for (SelectionKey k : keys) {
                    k.interestOps(OP_WRITE);
                }
            }, MANY, MANY + " interestOps(OP_WRITE) calls");
        } finally {
            pipes.forEach(PipePair::close);
        }
    }
}
