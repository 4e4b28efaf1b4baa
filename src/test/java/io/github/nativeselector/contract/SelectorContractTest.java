package io.github.nativeselector.contract;

import static io.github.nativeselector.support.ContractChannels.bytes;
import static io.github.nativeselector.support.ContractChannels.readExactly;
import static io.github.nativeselector.support.ContractChannels.writeFully;
import static io.github.nativeselector.support.ContractSupport.AWAIT_MS;
import static io.github.nativeselector.support.ContractSupport.awaitCondition;
import static io.github.nativeselector.support.ContractSupport.awaitReadyOps;
import static io.github.nativeselector.support.ContractSupport.awaitSelected;
import static io.github.nativeselector.support.ContractSupport.ops;
import static io.github.nativeselector.support.ContractSupport.witnessReady;
import static java.nio.channels.SelectionKey.OP_ACCEPT;
import static java.nio.channels.SelectionKey.OP_CONNECT;
import static java.nio.channels.SelectionKey.OP_READ;
import static java.nio.channels.SelectionKey.OP_WRITE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.github.nativeselector.support.ContractChannels;
import io.github.nativeselector.support.ContractChannels.DatagramPair;
import io.github.nativeselector.support.ContractChannels.Listener;
import io.github.nativeselector.support.ContractChannels.PipePair;
import io.github.nativeselector.support.ContractChannels.SocketKind;
import io.github.nativeselector.support.ContractChannels.SocketPair;
import io.github.nativeselector.support.ContractSupport;
import io.github.nativeselector.support.ContractSupport.Background;
import io.github.nativeselector.support.TestSelectors;
import java.io.IOException;
import java.net.BindException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.CancelledKeyException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.DatagramChannel;
import java.nio.channels.IllegalBlockingModeException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
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
 * Registration, interest ops, the select return value, cancelled keys and the
 * {@code select(Consumer)} family, checked against the contract of {@link Selector} and
 * {@link SelectionKey} as the JDK's own selector implements it.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class SelectorContractTest {

    private static final String ALL = ContractSupport.ALL;

    // ------------------------------------------------------------------ register()

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

    // ------------------------------------------------------------------ interestOps

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

    // ------------------------------------------------------------------ select return value

    @ParameterizedTest
    @MethodSource(ALL)
    void selectCountsKeysNewlySelectedOrGainingReadyOps(TestSelectors s) throws Exception {
        try (Selector sel = s.open(); SocketPair p = SocketPair.open(SocketKind.INET)) {
            writeFully(p.peer, 10);
            SelectionKey key = p.local.register(sel, OP_READ);
            assertEquals(1, awaitSelected(sel, key));
            assertEquals(ops(OP_READ), ops(key.readyOps()));

            assertEquals(0, sel.selectNow(), "still selected, no new ready ops");
            assertTrue(sel.selectedKeys().contains(key));
            assertEquals(ops(OP_READ), ops(key.readyOps()));

            key.interestOpsOr(OP_WRITE);
            assertEquals(1, sel.selectNow(), "already selected key gains WRITE");
            assertEquals(ops(OP_READ | OP_WRITE), ops(key.readyOps()));
            assertEquals(1, sel.selectedKeys().size());

            readExactly(p.local, 10);
            assertEquals(0, sel.selectNow(), "nothing new: WRITE was already there");
            assertEquals(ops(OP_READ | OP_WRITE), ops(key.readyOps()),
                    "ready ops of a key left in the selected set are OR'ed, READ stays");

            sel.selectedKeys().remove(key);
            assertEquals(1, sel.selectNow(), "removed key is selected again");
            assertEquals(ops(OP_WRITE), ops(key.readyOps()), "ready ops replaced once the key was removed");
        }
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void selectCountsEveryReadyKey(TestSelectors s) throws Exception {
        try (Selector sel = s.open(); PipePair a = PipePair.open(); PipePair b = PipePair.open();
                PipePair c = PipePair.open()) {
            a.sink.configureBlocking(false);
            b.sink.configureBlocking(false);
            c.source.configureBlocking(false);
            SelectionKey ka = a.sink.register(sel, OP_WRITE);
            SelectionKey kb = b.sink.register(sel, OP_WRITE);
            SelectionKey kc = c.source.register(sel, OP_READ);
            assertEquals(2, sel.select(AWAIT_MS), "two writable sinks");
            assertEquals(Set.of(ka, kb), new HashSet<>(sel.selectedKeys()));
            writeFully(c.sink, 1);
            awaitCondition(() -> {
                try {
                    return sel.selectNow() == 1 && sel.selectedKeys().contains(kc);
                } catch (IOException e) {
                    throw new AssertionError(e);
                }
            }, "source selected with the two sinks still in the selected set");
            assertEquals(Set.of(ka, kb, kc), new HashSet<>(sel.selectedKeys()));
            sel.selectedKeys().clear();
            assertEquals(3, sel.selectNow());
        }
    }

    // ------------------------------------------------------------------ cancelled keys

    @ParameterizedTest
    @MethodSource(ALL)
    void cancelledKeyIsInvalidAndItsOpsThrow(TestSelectors s) throws Exception {
        try (Selector sel = s.open(); SocketPair p = SocketPair.open(SocketKind.INET)) {
            SelectionKey key = p.local.register(sel, OP_READ, "att");
            key.cancel();
            assertFalse(key.isValid());
            List<Executable> calls = List.of(
                    key::interestOps,
                    () -> key.interestOps(OP_WRITE),
                    () -> key.interestOps(0),
                    () -> key.interestOpsOr(OP_WRITE),
                    () -> key.interestOpsAnd(0),
                    key::readyOps,
                    key::isReadable,
                    key::isWritable,
                    key::isConnectable,
                    key::isAcceptable);
            for (int i = 0; i < calls.size(); i++) {
                assertThrows(CancelledKeyException.class, calls.get(i), "call #" + i + " on a cancelled key");
            }
            assertEquals("att", key.attachment());
            assertEquals("att", key.attach("new"));
            assertEquals("new", key.attachment());
            assertSame(p.local, key.channel());
            assertSame(sel, key.selector());
            key.cancel(); // idempotent
            assertFalse(key.isValid());
            sel.selectNow();
            assertThrows(CancelledKeyException.class, key::interestOps, "still cancelled after a select");
            assertThrows(CancelledKeyException.class, key::readyOps);
            assertEquals("new", key.attachment());
        }
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void reRegisteringBeforeTheNextSelectThrowsThenANewKeyAfterIt(TestSelectors s) throws Exception {
        try (Selector sel = s.open(); SocketPair p = SocketPair.open(SocketKind.INET)) {
            writeFully(p.peer, 10);
            SelectionKey key = p.local.register(sel, OP_READ);
            assertEquals(1, awaitSelected(sel, key));
            sel.selectedKeys().clear();
            key.cancel();
            assertThrows(CancelledKeyException.class, () -> p.local.register(sel, OP_READ));
            assertEquals(0, sel.selectNow(), "the cancelled key is not selected");
            assertFalse(p.local.isRegistered());
            assertNull(p.local.keyFor(sel));
            assertFalse(sel.keys().contains(key));

            SelectionKey fresh = p.local.register(sel, OP_READ, "fresh");
            assertNotSame(key, fresh);
            assertTrue(fresh.isValid());
            assertFalse(key.isValid());
            assertSame(fresh, p.local.keyFor(sel));
            assertEquals(Set.of(fresh), sel.keys());
            assertEquals(1, sel.selectNow(), "the new key sees the unread data");
            assertEquals(ops(OP_READ), ops(fresh.readyOps()));
            assertEquals(Set.of(fresh), sel.selectedKeys());
        }
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void cancelledSelectedKeyLeavesBothKeySetsAtTheNextSelect(TestSelectors s) throws Exception {
        try (Selector sel = s.open(); PipePair p = PipePair.open(); PipePair q = PipePair.open()) {
            p.sink.configureBlocking(false);
            q.sink.configureBlocking(false);
            SelectionKey key = p.sink.register(sel, OP_WRITE);
            SelectionKey other = q.sink.register(sel, OP_WRITE);
            assertEquals(2, sel.select(AWAIT_MS));
            key.cancel();
            assertEquals(0, sel.selectNow());
            assertFalse(sel.selectedKeys().contains(key), "cancelled key removed from the selected set");
            assertFalse(sel.keys().contains(key), "cancelled key removed from the key set");
            assertEquals(Set.of(other), sel.selectedKeys());
            assertEquals(Set.of(other), sel.keys());
            assertFalse(p.sink.isRegistered());
            assertNull(p.sink.keyFor(sel));
            assertTrue(q.sink.isRegistered());
        }
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void cancelledKeyLeavesTheKeySetAtATimedSelect(TestSelectors s) throws Exception {
        try (Selector sel = s.open(); PipePair p = PipePair.open()) {
            p.source.configureBlocking(false);
            SelectionKey key = p.source.register(sel, OP_READ);
            writeFully(p.sink, 1);
            key.cancel();
            assertEquals(0, sel.select(200), "cancelled ready key is not selected");
            assertTrue(sel.keys().isEmpty());
            assertTrue(sel.selectedKeys().isEmpty());
            assertFalse(p.source.isRegistered());
        }
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void cancelledKeyLeavesTheKeySetAtASelectWithAction(TestSelectors s) throws Exception {
        try (Selector sel = s.open(); PipePair p = PipePair.open()) {
            p.sink.configureBlocking(false);
            SelectionKey key = p.sink.register(sel, OP_WRITE);
            key.cancel();
            List<SelectionKey> seen = new ArrayList<>();
            assertEquals(0, sel.selectNow(seen::add));
            assertTrue(seen.isEmpty(), "the action does not get a cancelled key");
            assertTrue(sel.keys().isEmpty());
            assertFalse(p.sink.isRegistered());
        }
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void keyCancelledDuringASelectIsDeregisteredWhenThatSelectReturns(TestSelectors s) throws Exception {
        try (Selector sel = s.open(); PipePair p = PipePair.open(); PipePair q = PipePair.open()) {
            p.source.configureBlocking(false);
            p.sink.configureBlocking(false);
            q.source.configureBlocking(false);
            SelectionKey cancelled = p.source.register(sel, OP_READ);
            SelectionKey closed = q.source.register(sel, OP_READ);
            assertEquals(0, sel.selectNow());
            try (Background<Integer> bg = Background.start("selector", self -> {
                self.aboutToBlock();
                return sel.select();
            })) {
                bg.awaitBlockedInSelect();
                cancelled.cancel();
                q.source.close();
                assertFalse(closed.isValid());
                writeFully(p.sink, 1); // the cancelled key's channel becomes ready
                Thread.sleep(100);
                sel.wakeup();
                assertEquals(0, bg.get(AWAIT_MS), "a key cancelled during the select is not selected");
            }
            // no other select in between: the select in progress processed the keys cancelled during it
            assertTrue(sel.selectedKeys().isEmpty());
            assertTrue(sel.keys().isEmpty(), "keys cancelled during the select left the key set when it returned");
            assertFalse(p.source.isRegistered());
            assertFalse(q.source.isRegistered());
            assertThrows(IOException.class, () -> q.sink.write(bytes(1)),
                    "the channel closed during the select was released when it returned");
        }
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void configureBlockingIsAllowedOnceTheKeyIsCancelled(TestSelectors s) throws Exception {
        try (Selector sel = s.open(); SocketPair p = SocketPair.open(SocketKind.UNIX)) {
            SelectionKey key = p.local.register(sel, OP_READ);
            assertThrows(IllegalBlockingModeException.class, () -> p.local.configureBlocking(true));
            key.cancel();
            p.local.configureBlocking(true);
            assertTrue(p.local.isBlocking());
            assertEquals(0, sel.selectNow());
            assertFalse(p.local.isRegistered());
            assertTrue(sel.keys().isEmpty());
            writeFully(p.peer, 3);
            ByteBuffer buf = ByteBuffer.allocate(3);
            while (buf.hasRemaining()) {
                assertTrue(p.local.read(buf) > 0, "blocking read");
            }
            p.local.configureBlocking(false);
            SelectionKey fresh = p.local.register(sel, OP_WRITE);
            assertEquals(1, sel.selectNow());
            assertTrue(fresh.isWritable());
        }
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void configureBlockingAfterASelectFlushedTheCancelledKey(TestSelectors s) throws Exception {
        try (Selector sel = s.open(); DatagramPair d = DatagramPair.open()) {
            SelectionKey key = d.local.register(sel, OP_READ | OP_WRITE);
            assertEquals(1, sel.select(AWAIT_MS));
            key.cancel();
            assertEquals(0, sel.selectNow());
            d.local.configureBlocking(true);
            d.peer.write(bytes(4));
            assertEquals(4, d.local.read(ByteBuffer.allocate(8)), "blocking receive");
        }
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void closingTheChannelCancelsItsKey(TestSelectors s) throws Exception {
        try (Selector sel = s.open(); SocketPair p = SocketPair.open(SocketKind.INET)) {
            SelectionKey key = p.local.register(sel, OP_READ | OP_WRITE);
            assertEquals(1, sel.select(AWAIT_MS));
            p.local.close();
            assertFalse(key.isValid());
            assertThrows(CancelledKeyException.class, key::readyOps);
            assertEquals(0, sel.selectNow());
            assertTrue(sel.keys().isEmpty());
            assertTrue(sel.selectedKeys().isEmpty());
            assertFalse(p.local.isRegistered());
        }
    }

    // A registered channel's close is completed (its fd released) only once every selector has
    // deregistered it, so each test first shows the fd is still open, then that the next
    // select releases it.

    @ParameterizedTest
    @MethodSource(ALL)
    void closedPipeSinkIsReleasedByTheNextSelect(TestSelectors s) throws Exception {
        try (Selector sel = s.open(); PipePair p = PipePair.open()) {
            p.sink.configureBlocking(false);
            p.source.configureBlocking(false);
            p.sink.register(sel, OP_WRITE);
            assertEquals(1, sel.select(AWAIT_MS));
            p.sink.close();
            ContractChannels.assertNothingToRead(p.source);
            sel.selectNow();
            ContractChannels.assertEndOfStream(p.source);
        }
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void closedPipeSourceIsReleasedByTheNextSelect(TestSelectors s) throws Exception {
        try (Selector sel = s.open(); PipePair p = PipePair.open()) {
            p.source.configureBlocking(false);
            p.sink.configureBlocking(false);
            p.source.register(sel, OP_READ);
            assertEquals(0, sel.selectNow());
            p.source.close();
            assertEquals(1, p.sink.write(bytes(1)), "the reading end is still open");
            sel.selectNow();
            assertThrows(IOException.class, () -> p.sink.write(bytes(1)), "broken pipe");
        }
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void closedInetSocketIsReleasedByTheNextSelect(TestSelectors s) throws Exception {
        closedSocketIsReleased(s, SocketKind.INET, false);
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void closedUnixSocketIsReleasedByTheNextSelect(TestSelectors s) throws Exception {
        closedSocketIsReleased(s, SocketKind.UNIX, false);
    }

    /**
     * Closing a registered connected socket only shuts its output down; once the selector lets
     * go, the socket is really closed and the peer's writes fail (reset or broken pipe).
     */
    static void closedSocketIsReleased(TestSelectors s, SocketKind kind, boolean byClosingSelector)
            throws Exception {
        try (Selector sel = s.open(); SocketPair p = SocketPair.open(kind)) {
            writeFully(p.peer, 1); // unread data: the final close resets a TCP connection
            p.local.register(sel, OP_WRITE);
            assertEquals(1, sel.select(AWAIT_MS));
            p.local.close();
            assertEquals(-1, p.peer.read(ByteBuffer.allocate(1)), "output shut down at close");
            writeFully(p.peer, 1); // the socket is not closed yet
            if (byClosingSelector) {
                sel.close();
            } else {
                sel.selectNow();
            }
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(AWAIT_MS);
            while (true) {
                try {
                    writeFully(p.peer, 1);
                } catch (IOException expected) {
                    return;
                }
                if (System.nanoTime() > deadline) {
                    fail("peer can still write " + AWAIT_MS + " ms after the selector let go of the closed socket");
                }
                Thread.sleep(20);
            }
        }
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void closedServerSocketIsReleasedByTheNextSelect(TestSelectors s) throws Exception {
        closedServerSocketIsReleased(s, false);
    }

    static void closedServerSocketIsReleased(TestSelectors s, boolean byClosingSelector) throws Exception {
        try (Selector sel = s.open(); ServerSocketChannel ssc = ServerSocketChannel.open()) {
            ssc.bind(ContractChannels.loopback(0));
            InetSocketAddress address = (InetSocketAddress) ssc.getLocalAddress();
            ssc.configureBlocking(false);
            ssc.register(sel, OP_ACCEPT);
            assertEquals(0, sel.selectNow());
            ssc.close();
            if (byClosingSelector) {
                sel.close();
            } else {
                sel.selectNow();
            }
            assertThrows(ConnectException.class, () -> SocketChannel.open(address).close(),
                    "nothing listens on the port any more");
        }
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void closedDatagramChannelIsReleasedByTheNextSelect(TestSelectors s) throws Exception {
        closedDatagramChannelIsReleased(s, false);
    }

    static void closedDatagramChannelIsReleased(TestSelectors s, boolean byClosingSelector) throws Exception {
        try (Selector sel = s.open(); DatagramChannel dc = DatagramChannel.open()) {
            dc.bind(ContractChannels.loopback(0));
            InetSocketAddress address = (InetSocketAddress) dc.getLocalAddress();
            dc.configureBlocking(false);
            dc.register(sel, OP_READ);
            assertEquals(0, sel.selectNow());
            dc.close();
            try (DatagramChannel probe = DatagramChannel.open()) {
                assertThrows(BindException.class, () -> probe.bind(address), "port still held");
            }
            if (byClosingSelector) {
                sel.close();
            } else {
                sel.selectNow();
            }
            try (DatagramChannel again = DatagramChannel.open()) {
                again.bind(address);
            }
        }
    }

    // ------------------------------------------------------------------ select(Consumer)

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
