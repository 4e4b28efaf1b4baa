/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.contract;

import static io.github.nativeselector.support.ContractChannels.writeFully;
import static io.github.nativeselector.support.ContractSupport.AWAIT_MS;
import static io.github.nativeselector.support.ContractSupport.assertSelectBlocks;
import static io.github.nativeselector.support.ContractSupport.awaitSelected;
import static io.github.nativeselector.support.ContractSupport.millisSince;
import static java.nio.channels.SelectionKey.OP_ACCEPT;
import static java.nio.channels.SelectionKey.OP_READ;
import static java.nio.channels.SelectionKey.OP_WRITE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.github.nativeselector.support.CloseReuseFds;
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
import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code wakeup()}, thread interrupts and {@code close()}: a wakeup is a one-shot latch consumed
 * by the next selection (including {@code selectNow}); an interrupt makes a select return with
 * the interrupt status kept and the selector open; closing (also during a select, from another
 * thread) deregisters every key and completes the close of channels closed while registered.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class WakeupInterruptCloseTest {

    private static final String ALL = ContractSupport.ALL;

    /**
     * Blocking checks: a select(300) that must block waits at least this long. A wakeup or
     * interrupt left behind would end it at once, so a short timeout tells the two apart as well.
     */
    private static final long BLOCK_TIMEOUT_MS = 300;
    private static final long BLOCK_MIN_MS = 240;

    @AfterEach
    void clearInterrupt() {
        Thread.interrupted();
    }

    /** The blocking selects: select(), select(60 s), select(action), select(action, 60 s). */
    private static int blockingSelect(Selector sel, int variant, AtomicInteger actionCalls) throws IOException {
        switch (variant) {
            case 0:
                return sel.select();
            case 1:
                return sel.select(60_000);
            case 2:
                return sel.select(k -> actionCalls.incrementAndGet());
            default:
                return sel.select(k -> actionCalls.incrementAndGet(), 60_000);
        }
    }

    private static final int VARIANTS = 4; // select(), select(60 s), select(action), select(action, 60 s)

    // ------------------------------------------------------------------ wakeup

    @ParameterizedTest
    @MethodSource(ALL)
    void wakeupBeforeSelectMakesTheNextSelectReturnAtOnce(TestSelectors s) throws Exception {
        try (Selector sel = s.open(); PipePair p = PipePair.open()) {
            p.source.configureBlocking(false);
            p.source.register(sel, OP_READ);
            AtomicInteger calls = new AtomicInteger();
            for (int variant = 0; variant < VARIANTS; variant++) {
                assertSame(sel, sel.wakeup());
                long t0 = System.nanoTime();
                assertEquals(0, blockingSelect(sel, variant, calls), "variant " + variant);
                long took = millisSince(t0);
                assertTrue(took < AWAIT_MS, "variant " + variant + " took " + took + " ms");
            }
            assertEquals(0, calls.get());
            assertSelectBlocks(sel, BLOCK_TIMEOUT_MS, BLOCK_MIN_MS);
        }
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void severalWakeupsCountAsOne(TestSelectors s) throws Exception {
        try (Selector sel = s.open(); PipePair p = PipePair.open()) {
            p.source.configureBlocking(false);
            p.source.register(sel, OP_READ);
            sel.wakeup();
            sel.wakeup();
            sel.wakeup();
            assertEquals(0, sel.select());
            assertSelectBlocks(sel, BLOCK_TIMEOUT_MS, BLOCK_MIN_MS);
        }
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void selectNowClearsAPendingWakeup(TestSelectors s) throws Exception {
        try (Selector sel = s.open(); PipePair p = PipePair.open()) {
            p.source.configureBlocking(false);
            p.source.register(sel, OP_READ);
            sel.wakeup();
            Thread.sleep(100);
            assertEquals(0, sel.selectNow());
            assertSelectBlocks(sel, BLOCK_TIMEOUT_MS, BLOCK_MIN_MS);
        }
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void selectNowWithActionClearsAPendingWakeup(TestSelectors s) throws Exception {
        try (Selector sel = s.open(); PipePair p = PipePair.open()) {
            p.source.configureBlocking(false);
            p.source.register(sel, OP_READ);
            sel.wakeup();
            sel.wakeup();
            AtomicInteger calls = new AtomicInteger();
            assertEquals(0, sel.selectNow(k -> calls.incrementAndGet()));
            long t0 = System.nanoTime();
            assertEquals(0, sel.select(k -> calls.incrementAndGet(), BLOCK_TIMEOUT_MS));
            long took = millisSince(t0);
            assertTrue(took >= BLOCK_MIN_MS, "select(action, " + BLOCK_TIMEOUT_MS + ") after selectNow(action) took " + took + " ms");
            assertEquals(0, calls.get());
        }
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void aSelectThatFindsReadyKeysStillConsumesThePendingWakeup(TestSelectors s) throws Exception {
        try (Selector sel = s.open(); PipePair p = PipePair.open()) {
            p.sink.configureBlocking(false);
            SelectionKey key = p.sink.register(sel, OP_WRITE);
            sel.wakeup();
            assertEquals(1, sel.select());
            assertTrue(sel.selectedKeys().contains(key));
            key.interestOps(0);
            sel.selectedKeys().clear();
            assertSelectBlocks(sel, BLOCK_TIMEOUT_MS, BLOCK_MIN_MS);
        }
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void wakeupAfterCloseIsASilentNoOp(TestSelectors s) throws Exception {
        Selector sel = s.open();
        sel.close();
        assertSame(sel, sel.wakeup());
        assertSame(sel, sel.wakeup());
        assertFalse(sel.isOpen());
        sel.close();
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void wakeupFromAnotherThreadEndsABlockingSelect(TestSelectors s) throws Exception {
        try (Selector sel = s.open(); PipePair p = PipePair.open()) {
            p.source.configureBlocking(false);
            p.source.register(sel, OP_READ);
            AtomicInteger calls = new AtomicInteger();
            for (int variant = 0; variant < VARIANTS; variant++) {
                int v = variant;
                try (Background<Integer> bg = Background.start("selector", self -> {
                    self.aboutToBlock();
                    return blockingSelect(sel, v, calls);
                })) {
                    bg.awaitBlockedInSelect();
                    assertFalse(bg.isDone(), "variant " + variant + " returned before the wakeup");
                    long t0 = System.nanoTime();
                    sel.wakeup();
                    assertEquals(0, bg.get(AWAIT_MS), "variant " + variant);
                    assertTrue(millisSince(t0) < AWAIT_MS);
                }
            }
            assertEquals(0, calls.get());
            assertSelectBlocks(sel, BLOCK_TIMEOUT_MS, BLOCK_MIN_MS);
        }
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void wakeupRacingWithSelectIsNeverLost(TestSelectors s) throws Exception {
        int rounds = 300;
        try (Selector sel = s.open(); PipePair p = PipePair.open()) {
            p.source.configureBlocking(false);
            p.source.register(sel, OP_READ);
            CountDownLatch[] entering = new CountDownLatch[rounds];
            for (int i = 0; i < rounds; i++) {
                entering[i] = new CountDownLatch(1);
            }
            try (Background<Integer> bg = Background.start("selector", self -> {
                self.aboutToBlock();
                for (int i = 0; i < rounds; i++) {
                    entering[i].countDown();
                    sel.select(); // returns only thanks to this round's wakeup
                }
                return rounds;
            })) {
                for (int i = 0; i < rounds; i++) {
                    assertTrue(entering[i].await(AWAIT_MS, TimeUnit.MILLISECONDS), "round " + i + " not reached");
                    if (i % 3 == 1) {
                        Thread.yield();
                    } else if (i % 3 == 2) {
                        Thread.sleep(1);
                    }
                    sel.wakeup();
                }
                assertEquals(rounds, bg.get(AWAIT_MS));
            }
        }
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void hugeTimeoutsBlockUntilWokenUp(TestSelectors s) throws Exception {
        try (Selector sel = s.open(); PipePair p = PipePair.open()) {
            p.source.configureBlocking(false);
            SelectionKey key = p.source.register(sel, OP_READ);
            AtomicInteger calls = new AtomicInteger();
            long[] timeouts = {Long.MAX_VALUE, Integer.MAX_VALUE + 1L, Long.MAX_VALUE / 1000};
            for (long timeout : timeouts) {
                for (boolean withAction : new boolean[] {false, true}) {
                    String what = (withAction ? "select(action, " : "select(") + timeout + ")";
                    try (Background<Integer> bg = Background.start("selector", self -> {
                        self.aboutToBlock();
                        return withAction ? sel.select(k -> calls.incrementAndGet(), timeout) : sel.select(timeout);
                    })) {
                        bg.awaitBlockedInSelect();
                        assertFalse(bg.isDone(), what + " returned at once");
                        sel.wakeup();
                        assertEquals(0, bg.get(AWAIT_MS), what);
                    }
                }
            }
            assertEquals(0, calls.get());
            writeFully(p.sink, 1);
            assertEquals(1, sel.select(Long.MAX_VALUE));
            assertTrue(sel.selectedKeys().contains(key));
        }
    }

    // ------------------------------------------------------------------ interrupt

    @ParameterizedTest
    @MethodSource(ALL)
    void interruptBeforeSelectMakesItReturnAndKeepsTheStatus(TestSelectors s) throws Exception {
        try (Selector sel = s.open(); PipePair p = PipePair.open()) {
            p.source.configureBlocking(false);
            SelectionKey key = p.source.register(sel, OP_READ);
            AtomicInteger calls = new AtomicInteger();
            for (int variant = 0; variant < VARIANTS; variant++) {
                Thread.currentThread().interrupt();
                long t0 = System.nanoTime();
                int n = blockingSelect(sel, variant, calls);
                long took = millisSince(t0);
                boolean stillInterrupted = Thread.interrupted();
                assertEquals(0, n, "variant " + variant);
                assertTrue(took < AWAIT_MS, "variant " + variant + " took " + took + " ms");
                assertTrue(stillInterrupted, "interrupt status kept, variant " + variant);
                assertTrue(sel.isOpen());
                assertTrue(key.isValid());
                assertTrue(p.source.isOpen(), "an interrupted select does not close channels");
            }
            assertEquals(0, calls.get());
            assertEquals(0, sel.selectNow());
            assertSelectBlocks(sel, BLOCK_TIMEOUT_MS, BLOCK_MIN_MS);
            writeFully(p.sink, 1);
            assertEquals(1, awaitSelected(sel, key), "selector still works");
        }
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void everySelectReturnsAtOnceWhileTheInterruptStatusIsSet(TestSelectors s) throws Exception {
        try (Selector sel = s.open(); PipePair p = PipePair.open()) {
            p.source.configureBlocking(false);
            p.source.register(sel, OP_READ);
            Thread.currentThread().interrupt();
            try {
                for (int i = 0; i < 3; i++) {
                    long t0 = System.nanoTime();
                    assertEquals(0, sel.select());
                    assertTrue(millisSince(t0) < AWAIT_MS);
                    assertTrue(Thread.currentThread().isInterrupted());
                }
            } finally {
                Thread.interrupted();
            }
            assertSelectBlocks(sel, BLOCK_TIMEOUT_MS, BLOCK_MIN_MS);
        }
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void interruptDuringSelectMakesItReturnAndKeepsTheStatus(TestSelectors s) throws Exception {
        try (Selector sel = s.open(); PipePair p = PipePair.open()) {
            p.source.configureBlocking(false);
            SelectionKey key = p.source.register(sel, OP_READ);
            AtomicInteger calls = new AtomicInteger();
            for (int variant = 0; variant < VARIANTS; variant++) {
                int v = variant;
                try (Background<List<Object>> bg = Background.start("selector", self -> {
                    self.aboutToBlock();
                    int n = blockingSelect(sel, v, calls);
                    boolean interrupted = Thread.interrupted();
                    int after = sel.selectNow();
                    long t0 = System.nanoTime();
                    int timed = sel.select(BLOCK_TIMEOUT_MS);
                    return List.of(n, interrupted, after, timed, millisSince(t0));
                })) {
                    bg.awaitBlockedInSelect();
                    assertFalse(bg.isDone());
                    bg.thread.interrupt();
                    List<Object> r = bg.get(AWAIT_MS + BLOCK_TIMEOUT_MS);
                    assertEquals(0, r.get(0), "variant " + variant + ": select returned 0");
                    assertEquals(true, r.get(1), "variant " + variant + ": interrupt status kept");
                    assertEquals(0, r.get(2), "variant " + variant + ": selectNow afterwards");
                    assertEquals(0, r.get(3), "variant " + variant + ": select(" + BLOCK_TIMEOUT_MS + ") afterwards");
                    assertTrue((Long) r.get(4) >= BLOCK_MIN_MS,
                            "variant " + variant + ": select(" + BLOCK_TIMEOUT_MS + ") after clearing the interrupt took " + r.get(4) + " ms");
                    assertTrue(sel.isOpen());
                    assertTrue(key.isValid());
                    assertTrue(p.source.isOpen());
                }
            }
            assertEquals(0, calls.get());
        }
    }

    // ------------------------------------------------------------------ close

    @ParameterizedTest
    @MethodSource(ALL)
    void closeDuringSelectMakesItReturnPromptly(TestSelectors s) throws Exception {
        AtomicInteger calls = new AtomicInteger();
        for (int variant = 0; variant < VARIANTS; variant++) {
            try (PipePair p = PipePair.open()) {
                p.source.configureBlocking(false);
                Selector sel = s.open();
                SelectionKey key = p.source.register(sel, OP_READ);
                int v = variant;
                try (Background<Integer> bg = Background.start("selector", self -> {
                    self.aboutToBlock();
                    return blockingSelect(sel, v, calls);
                })) {
                    bg.awaitBlockedInSelect();
                    assertFalse(bg.isDone());
                    long t0 = System.nanoTime();
                    sel.close();
                    long closeTook = millisSince(t0);
                    assertTrue(closeTook < AWAIT_MS, "close took " + closeTook + " ms");
                    assertEquals(0, bg.get(AWAIT_MS), "variant " + variant + ": select returns as if woken up");
                    assertTrue(millisSince(t0) < AWAIT_MS);
                } finally {
                    sel.close();
                }
                assertFalse(sel.isOpen());
                assertFalse(key.isValid());
                assertFalse(p.source.isRegistered());
                assertNull(p.source.keyFor(sel));
            }
        }
        assertEquals(0, calls.get());
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void closeIsIdempotent(TestSelectors s) throws Exception {
        try (PipePair p = PipePair.open()) {
            p.sink.configureBlocking(false);
            Selector sel = s.open();
            assertTrue(sel.isOpen());
            SelectionKey key = p.sink.register(sel, OP_WRITE);
            sel.close();
            sel.close();
            assertFalse(sel.isOpen());
            assertFalse(key.isValid());
            sel.close();
            assertFalse(p.sink.isRegistered());
        }
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void closeDeregistersEveryKey(TestSelectors s) throws Exception {
        try (SocketPair inet = SocketPair.open(SocketKind.INET); SocketPair unix = SocketPair.open(SocketKind.UNIX);
                Listener l = Listener.open(SocketKind.INET); DatagramPair d = DatagramPair.open();
                PipePair p = PipePair.open(); Selector next = s.open()) {
            l.channel.configureBlocking(false);
            p.source.configureBlocking(false);
            p.sink.configureBlocking(false);
            List<SelectableChannel> channels = List.of(inet.local, unix.local, l.channel, d.local, p.source, p.sink);
            int[] interest = {OP_READ | OP_WRITE, OP_READ, OP_ACCEPT, 0, OP_READ, OP_WRITE};
            Selector sel = s.open();
            List<SelectionKey> keys = new ArrayList<>();
            for (int i = 0; i < channels.size(); i++) {
                keys.add(channels.get(i).register(sel, interest[i], i));
            }
            assertTrue(sel.select(AWAIT_MS) > 0);
            keys.get(4).cancel(); // cancelled but not yet flushed
            sel.close();
            for (int i = 0; i < channels.size(); i++) {
                SelectableChannel ch = channels.get(i);
                assertFalse(keys.get(i).isValid(), "key " + i);
                assertFalse(ch.isRegistered(), "channel " + i + " still registered");
                assertNull(ch.keyFor(sel), "keyFor, channel " + i);
                assertTrue(ch.isOpen(), "closing the selector leaves channel " + i + " open");
                assertEquals(i, keys.get(i).attachment());
                ch.configureBlocking(true);
                ch.configureBlocking(false);
                ch.register(next, ch.validOps());
            }
            assertEquals(channels.size(), next.keys().size());
            assertTrue(next.select(AWAIT_MS) > 0, "channels work with another selector");
        }
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void closeReleasesAClosedPipeSink(TestSelectors s) throws Exception {
        try (PipePair p = PipePair.open()) {
            p.sink.configureBlocking(false);
            p.source.configureBlocking(false);
            Selector sel = s.open();
            try {
                p.sink.register(sel, OP_WRITE);
                assertEquals(1, sel.select(AWAIT_MS));
                p.sink.close();
                ContractChannels.assertNothingToRead(p.source);
            } finally {
                sel.close();
            }
            ContractChannels.assertEndOfStream(p.source);
        }
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void closeReleasesAClosedPipeSource(TestSelectors s) throws Exception {
        try (PipePair p = PipePair.open()) {
            p.sink.configureBlocking(false);
            p.source.configureBlocking(false);
            Selector sel = s.open();
            try {
                p.source.register(sel, OP_READ);
                assertEquals(0, sel.selectNow());
                p.source.close();
                assertEquals(1, p.sink.write(ContractChannels.bytes(1)), "the reading end is still open");
            } finally {
                sel.close();
            }
            try {
                p.sink.write(ContractChannels.bytes(1));
                fail("write after the reading end was released");
            } catch (IOException expected) {
                // broken pipe
            }
        }
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void closeReleasesAClosedInetSocket(TestSelectors s) throws Exception {
        ClosedChannelReleaseTest.closedSocketIsReleased(s, SocketKind.INET, true);
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void closeReleasesAClosedUnixSocket(TestSelectors s) throws Exception {
        ClosedChannelReleaseTest.closedSocketIsReleased(s, SocketKind.UNIX, true);
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void closeReleasesAClosedServerSocket(TestSelectors s) throws Exception {
        ClosedChannelReleaseTest.closedServerSocketIsReleased(s, true);
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void closeReleasesAClosedDatagramChannel(TestSelectors s) throws Exception {
        ClosedChannelReleaseTest.closedDatagramChannelIsReleased(s, true);
    }

    /**
     * Opening selectors, registering every kind of channel, closing the channels while they are
     * registered and then the selectors leaves no file descriptor behind.
     */
    @ParameterizedTest
    @MethodSource(ALL)
    void noFileDescriptorOutlivesTheSelectorAndItsClosedChannels(TestSelectors s) throws Exception {
        churn(s); // warm-up: class loading and lazily opened JDK resources
        Map<Integer, String> baseline = CloseReuseFds.snapshot();
        for (int i = 0; i < 3; i++) {
            churn(s);
        }
        CloseReuseFds.assertBackToBaseline(baseline, "after closing the selectors and their channels");
    }

    private static void churn(TestSelectors s) throws Exception {
        List<AutoCloseable> fixtures = new ArrayList<>();
        List<Selector> selectors = new ArrayList<>();
        try {
            for (int i = 0; i < 4; i++) {
                selectors.add(s.open());
            }
            Selector sel = selectors.get(0);
            for (int i = 0; i < 5; i++) {
                SocketPair inet = SocketPair.open(SocketKind.INET);
                fixtures.add(inet);
                SocketPair unix = SocketPair.open(SocketKind.UNIX);
                fixtures.add(unix);
                DatagramPair d = DatagramPair.open();
                fixtures.add(d);
                PipePair p = PipePair.open();
                fixtures.add(p);
                Listener l = Listener.open(SocketKind.INET);
                fixtures.add(l);
                p.source.configureBlocking(false);
                p.sink.configureBlocking(false);
                l.channel.configureBlocking(false);
                inet.local.register(sel, OP_READ | OP_WRITE);
                unix.local.register(sel, OP_READ);
                d.local.register(sel, OP_READ);
                p.source.register(sel, OP_READ);
                p.sink.register(sel, OP_WRITE);
                l.channel.register(sel, OP_ACCEPT);
                // the same channels with a second selector, cancelled through the channel close
                inet.local.register(selectors.get(1), OP_WRITE);
                p.sink.register(selectors.get(1), OP_WRITE);
            }
            sel.selectNow();
            selectors.get(1).selectNow();
        } finally {
            for (AutoCloseable f : fixtures) {
                f.close(); // closed while still registered
            }
            selectors.get(1).selectNow(); // one selector flushes its keys, the others just close
            for (Selector sel : selectors) {
                sel.close();
            }
        }
    }
}
