/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.contract;

import static io.github.nativeselector.support.ContractChannels.bytes;
import static io.github.nativeselector.support.ContractChannels.writeFully;
import static io.github.nativeselector.support.ContractSupport.AWAIT_MS;
import static io.github.nativeselector.support.ContractSupport.awaitSelected;
import static io.github.nativeselector.support.ContractSupport.ops;
import static java.nio.channels.SelectionKey.OP_READ;
import static java.nio.channels.SelectionKey.OP_WRITE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.nativeselector.support.ContractChannels.DatagramPair;
import io.github.nativeselector.support.ContractChannels.PipePair;
import io.github.nativeselector.support.ContractChannels.SocketKind;
import io.github.nativeselector.support.ContractChannels.SocketPair;
import io.github.nativeselector.support.ContractSupport;
import io.github.nativeselector.support.ContractSupport.Background;
import io.github.nativeselector.support.TestSelectors;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.CancelledKeyException;
import java.nio.channels.IllegalBlockingModeException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Cancelled keys: invalid at once, out of both key sets after the next select of any form (or
 * when the select in progress returns), and their channel free to change blocking mode and to
 * register again once deregistered; closing a channel cancels its key.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class CancelledKeyTest {

    private static final String ALL = ContractSupport.ALL;

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
                // Not a wait for an event: time for that readiness to end the select by itself, where
                // the backend still polls the channel. A select the wakeup ends first must give the
                // same answer, so nothing below depends on which ended it.
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
}
