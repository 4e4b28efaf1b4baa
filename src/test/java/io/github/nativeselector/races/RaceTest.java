/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.races;

import static io.github.nativeselector.support.CloseReuseFds.assertBackToBaseline;
import static io.github.nativeselector.support.CloseReuseFds.snapshot;
import static io.github.nativeselector.support.RaceSupport.BOUND_SECONDS;
import static io.github.nativeselector.support.RaceSupport.acquire;
import static io.github.nativeselector.support.RaceSupport.awaitBlockedInSelect;
import static io.github.nativeselector.support.RaceSupport.callWithin;
import static io.github.nativeselector.support.RaceSupport.joinWithin;
import static io.github.nativeselector.support.RaceSupport.runWithin;
import static io.github.nativeselector.support.RaceSupport.stackOf;
import static io.github.nativeselector.support.RaceSupport.start;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.github.nativeselector.support.CloseReuseFds;
import io.github.nativeselector.support.ContractChannels;
import io.github.nativeselector.support.ContractSupport;
import io.github.nativeselector.support.TestSelectors;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.CancelledKeyException;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.Pipe;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Threads racing a selector: wakeup, interrupt and close during a blocking select, registration
 * during a select and during close, and interest changes and cancels during selects. Every wait
 * is bounded; a bound that is hit fails the test with the stuck thread's stack.
 */
class RaceTest {

    /**
     * {@code register} returns a key another thread cancelled meanwhile: the native selectors do,
     * and the JDK's from 21 on (JDK 17's selector throws CancelledKeyException there, which
     * OpenJDK fixed after 17).
     */
    @ParameterizedTest
    @MethodSource("io.github.nativeselector.support.TestSelectors#all")
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void registerWhileAnotherThreadCancelsThroughTheKeySet(TestSelectors selectors) throws Exception {
        assumeTrue(selectors.isNative() || Runtime.version().feature() >= 21,
                "JDK " + Runtime.version().feature() + "'s own selector throws CancelledKeyException from a "
                + "register() whose key another thread cancels meanwhile (OpenJDK fixed it after 17)");
        int rounds = 20_000;
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicBoolean done = new AtomicBoolean();
        try (Selector selector = selectors.open(); ContractChannels.PipePair pipe = ContractChannels.PipePair.open()) {
            pipe.source.configureBlocking(false);
            Thread canceller = start("canceller", failure, () -> {
                while (!done.get()) {
                    for (SelectionKey key : selector.keys()) {
                        key.cancel();
                    }
                }
            });
            try {
                for (int i = 0; i < rounds && failure.get() == null; i++) {
                    SelectionKey key = pipe.source.register(selector, SelectionKey.OP_READ);
                    assertTrue(key.channel() == pipe.source && key.selector() == selector);
                    key.cancel();
                    // The canceller may still be between invalidating the key and queuing it.
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(BOUND_SECONDS);
                    do {
                        selector.selectNow();
                    } while (pipe.source.isRegistered() && System.nanoTime() < deadline);
                    if (pipe.source.isRegistered()) {
                        fail("round " + i + ": the channel of a cancelled key was still registered after selecting for "
                                + BOUND_SECONDS + " s");
                    }
                }
            } finally {
                done.set(true);
                joinWithin(canceller, "the canceller");
            }
        }
        if (failure.get() != null) {
            fail(failure.get());
        }
    }

    @ParameterizedTest
    @MethodSource("io.github.nativeselector.support.TestSelectors#all")
    @Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void wakeupDuringSelectIsNeverLost(TestSelectors selectors) throws Exception {
        int rounds = 1000;
        try (Selector selector = selectors.open(); IdlePipe idle = new IdlePipe(selector)) {
            Semaphore entering = new Semaphore(0);
            Semaphore returned = new Semaphore(0);
            AtomicIntegerArray results = new AtomicIntegerArray(rounds);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread selecting = start("selecting", failure, () -> {
                for (int i = 0; i < rounds; i++) {
                    entering.release();
                    results.set(i, selector.select());
                    returned.release();
                }
            });
            for (int i = 0; i < rounds; i++) {
                acquire(entering, selecting, failure, "selector thread before round " + i);
                switch (i % 4) {
                    case 0 -> awaitBlockedInSelect(selecting);
                    case 1 -> LockSupport.parkNanos(ThreadLocalRandom.current().nextInt(50_000));
                    default -> {
                        // At once: the wakeup may come before the select starts, and must then end it.
                    }
                }
                selector.wakeup();
                acquire(returned, selecting, failure, "round " + i + ": select() after wakeup() (lost wakeup)");
            }
            joinWithin(selecting, "selecting thread");
            assertNull(failure.get(), () -> "selecting thread failed: " + stackOf(failure.get()));
            for (int i = 0; i < rounds; i++) {
                assertEquals(0, results.get(i), "round " + i + ": select() woken up returns 0");
            }
        }
    }

    @ParameterizedTest
    @MethodSource("io.github.nativeselector.support.TestSelectors#all")
    @Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void interruptDuringSelect(TestSelectors selectors) throws Exception {
        int rounds = 300;
        try (Selector selector = selectors.open(); IdlePipe idle = new IdlePipe(selector)) {
            Semaphore entering = new Semaphore(0);
            Semaphore returned = new Semaphore(0);
            AtomicIntegerArray results = new AtomicIntegerArray(rounds);
            AtomicIntegerArray interrupted = new AtomicIntegerArray(rounds);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread selecting = start("selecting", failure, () -> {
                for (int i = 0; i < rounds; i++) {
                    entering.release();
                    results.set(i, selector.select());
                    interrupted.set(i, Thread.interrupted() ? 1 : 0);
                    returned.release();
                }
            });
            for (int i = 0; i < rounds; i++) {
                acquire(entering, selecting, failure, "selector thread before round " + i);
                if (i % 2 == 0) {
                    awaitBlockedInSelect(selecting);
                } else {
                    LockSupport.parkNanos(ThreadLocalRandom.current().nextInt(50_000));
                }
                selecting.interrupt();
                acquire(returned, selecting, failure, "round " + i + ": select() after interrupt()");
                assertEquals(1, interrupted.get(i), "round " + i + ": interrupt status after select()");
                assertEquals(0, results.get(i), "round " + i + ": select() interrupted returns 0");
                assertTrue(selector.isOpen(), "round " + i + ": an interrupt must not close the selector");
            }
            joinWithin(selecting, "selecting thread");
            assertNull(failure.get(), () -> "selecting thread failed: " + stackOf(failure.get()));
            // The selector still works, with nothing selected and its key intact.
            assertEquals(0, selector.selectNow());
            assertTrue(idle.key.isValid());
        }
    }

    @ParameterizedTest
    @MethodSource("io.github.nativeselector.support.TestSelectors#all")
    @Timeout(value = 40, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void closeDuringSelect(TestSelectors selectors) throws Exception {
        int rounds = 150;
        Pipe pipe = Pipe.open();
        try (Pipe.SourceChannel source = pipe.source(); Pipe.SinkChannel sink = pipe.sink()) {
            source.configureBlocking(false);
            closeDuringSelectRound(selectors, source, -1); // warm-up, before the baseline
            Map<Integer, String> baseline = snapshot();
            for (int i = 0; i < rounds; i++) {
                closeDuringSelectRound(selectors, source, i);
            }
            assertBackToBaseline(baseline, rounds + " selectors closed during select()");
        }
    }

    private static void closeDuringSelectRound(TestSelectors selectors, Pipe.SourceChannel source, int round)
            throws Exception {
        Selector selector = selectors.open();
        Thread selecting = null;
        try {
            SelectionKey key = source.register(selector, SelectionKey.OP_READ);
            Semaphore entering = new Semaphore(0);
            Semaphore done = new Semaphore(0);
            AtomicReference<String> outcome = new AtomicReference<>();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            selecting = start("selecting", failure, () -> {
                entering.release();
                try {
                    selector.select();
                    outcome.set("returned");
                } catch (ClosedSelectorException e) {
                    outcome.set("closed");
                } finally {
                    done.release();
                }
            });
            acquire(entering, selecting, failure, "round " + round + ": selector thread start");
            switch (Math.floorMod(round, 3)) {
                case 0 -> awaitBlockedInSelect(selecting);
                case 1 -> LockSupport.parkNanos(ThreadLocalRandom.current().nextInt(100_000));
                default -> {
                }
            }
            runWithin("round " + round + ": close() during select()", selector::close);
            acquire(done, selecting, failure, "round " + round + ": select() after close()");
            joinWithin(selecting, "selecting thread");
            assertNull(failure.get(), () -> "round " + round + ": select() threw " + stackOf(failure.get()));
            assertTrue(outcome.get() != null, "round " + round);
            assertFalse(key.isValid(), "round " + round + ": key valid after its selector closed");
            assertNull(source.keyFor(selector), "round " + round);
            assertFalse(source.isRegistered(), "round " + round);
        } finally {
            // A round that failed leaves neither the selector open nor its thread in select().
            ContractChannels.closeQuietly(selector);
            if (selecting != null) {
                selecting.interrupt();
            }
        }
    }

    /**
     * A key cancelled, and another key's channel closed, while the selector thread is blocked in
     * {@code select()}: when that select returns (woken up), both keys are gone from the key set,
     * both channels are deregistered, and the closed channel's fd is released.
     */
    @ParameterizedTest
    @MethodSource("io.github.nativeselector.support.TestSelectors#all")
    @Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void cancelAndCloseDuringSelect(TestSelectors selectors) throws Exception {
        try (Selector selector = selectors.open(); ServerSocketChannel server = ContractChannels.openServer()) {
            for (int round = 0; round < 10; round++) {
                String name = "round " + round;
                Pipe pipe = Pipe.open();
                Map<Integer, String> before = snapshot();
                SocketChannel client = SocketChannel.open(server.getLocalAddress());
                Map<Integer, String> after = snapshot();
                String clientFile = after.get(CloseReuseFds.singleOpened(before, after));
                try (SocketChannel peer = server.accept(); Pipe.SourceChannel source = pipe.source();
                        Pipe.SinkChannel sink = pipe.sink()) {
                    source.configureBlocking(false);
                    client.configureBlocking(false);
                    SelectionKey cancelled = source.register(selector, SelectionKey.OP_READ, "cancelled");
                    SelectionKey closed = client.register(selector, SelectionKey.OP_READ, "closed");
                    if (round % 2 == 0) {
                        assertEquals(0, selector.selectNow(), name); // applied before the blocking select
                    }
                    Semaphore done = new Semaphore(0);
                    AtomicInteger selected = new AtomicInteger(-1);
                    AtomicReference<Throwable> failure = new AtomicReference<>();
                    Thread selecting = start("selecting", failure, () -> {
                        try {
                            selected.set(selector.select());
                        } finally {
                            done.release();
                        }
                    });
                    awaitBlockedInSelect(selecting);
                    cancelled.cancel();
                    client.close();
                    selector.wakeup();
                    acquire(done, selecting, failure, name + ": select() after wakeup()");
                    joinWithin(selecting, name);
                    assertNull(failure.get(), () -> stackOf(failure.get()));
                    assertEquals(0, selected.get(), name + ": select()'s result");
                    for (SelectionKey key : List.of(cancelled, closed)) {
                        String what = name + ", key " + key.attachment() + " during select()";
                        assertFalse(selector.keys().contains(key), what + ": still in keys() after that select");
                        assertFalse(selector.selectedKeys().contains(key), what + ": selected");
                        assertFalse(key.channel().isRegistered(), what + ": channel still registered");
                        assertNull(key.channel().keyFor(selector), what);
                    }
                    assertEquals(0, CloseReuseFds.count(clientFile),
                            name + ": the channel closed during select() still has its fd after that select");
                    source.configureBlocking(true); // possible once no key is registered
                }
            }
        }
    }

    /**
     * A channel registered from another thread while the selector thread is blocked in
     * {@code select()} with nothing ready: {@code register} returns without waiting for the
     * select, and the channel's readiness is reported by the next select after a wakeup. With
     * a threshold of 1 the registering thread applies the change itself, so the blocked select
     * reports it with no wakeup at all.
     */
    @ParameterizedTest
    @MethodSource("io.github.nativeselector.support.TestSelectors#all")
    @Timeout(value = 40, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void registerDuringSelect(TestSelectors selectors) throws Exception {
        boolean appliedByRegisteringThread = selectors.isNative() && selectors.batchThreshold() == 1;
        int rounds = 20;
        try (Selector selector = selectors.open(); IdlePipe idle = new IdlePipe(selector)) {
            for (int round = 0; round < rounds; round++) {
                String name = "round " + round;
                Pipe pipe = Pipe.open();
                try (Pipe.SourceChannel source = pipe.source(); Pipe.SinkChannel sink = pipe.sink()) {
                    source.configureBlocking(false);
                    sink.write(ByteBuffer.wrap(new byte[] {1})); // readable before it is registered

                    Semaphore done = new Semaphore(0);
                    AtomicInteger selected = new AtomicInteger(-1);
                    AtomicReference<Throwable> failure = new AtomicReference<>();
                    Thread selecting = start("selecting", failure, () -> {
                        try {
                            selected.set(selector.select());
                        } finally {
                            done.release();
                        }
                    });
                    awaitBlockedInSelect(selecting);

                    Integer attachment = round;
                    SelectionKey key = callWithin(TimeUnit.SECONDS.toMillis(BOUND_SECONDS),
                            name + ": register() during a blocking select()",
                            () -> source.register(selector, SelectionKey.OP_READ, attachment));

                    if (appliedByRegisteringThread) {
                        if (!done.tryAcquire(BOUND_SECONDS, TimeUnit.SECONDS)) {
                            selector.wakeup();
                            fail(name + ": with a threshold of 1 the blocked select() must report the channel"
                                    + " registered during it, without a wakeup; still blocked after "
                                    + BOUND_SECONDS + " s");
                        }
                        assertNull(failure.get(), () -> stackOf(failure.get()));
                        assertEquals(1, selected.get(), name + ": the blocked select()'s result");
                    } else {
                        selector.wakeup();
                        acquire(done, selecting, failure, name + ": select() after wakeup()");
                        if (!selector.selectedKeys().contains(key)) {
                            assertEquals(0, selected.get(), name + ": the woken select()'s result");
                            // The next select reports it; if it did not, this would wait the full timeout.
                            assertEquals(1, selector.select(BOUND_SECONDS * 1000),
                                    name + ": the select() after the wakeup must report the new channel");
                        }
                    }
                    joinWithin(selecting, "selecting thread");
                    assertEquals(Set.of(key), selector.selectedKeys(), name + ": selected keys");
                    assertEquals(SelectionKey.OP_READ, key.readyOps(), name + ": readyOps");
                    selector.selectedKeys().clear();
                }
                assertEquals(0, selector.selectNow(), name + ": after closing the pipe");
                assertEquals(Set.of(idle.key), selector.keys(), name);
            }
        }
    }

    /**
     * Threads register new channels in a loop, and close some of them, while one thread selects
     * and another closes the selector: each register() succeeds or throws
     * ClosedSelectorException, nothing deadlocks, no channel keeps a valid key to the closed
     * selector, and once every channel is closed the fds are back to what they were.
     */
    @ParameterizedTest
    @MethodSource("io.github.nativeselector.support.TestSelectors#all")
    @Timeout(value = 40, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void closeWhileRegistering(TestSelectors selectors) throws Exception {
        closeWhileRegisteringRound(selectors, 0); // warm-up, before the baseline
        Map<Integer, String> baseline = snapshot();
        for (int round = 1; round <= 60; round++) {
            closeWhileRegisteringRound(selectors, round);
        }
        assertBackToBaseline(baseline, "after closing the selectors and every channel");
    }

    private static void closeWhileRegisteringRound(TestSelectors selectors, int round) throws Exception {
        int registrars = 6;
        int prepared = 400;
        Selector selector = selectors.open();
        List<Pipe> pipes = Collections.synchronizedList(new ArrayList<>());
        List<Throwable> unexpected = Collections.synchronizedList(new ArrayList<>());
        AtomicInteger registered = new AtomicInteger();
        AtomicInteger refused = new AtomicInteger();
        AtomicInteger selects = new AtomicInteger();
        CountDownLatch ready = new CountDownLatch(registrars);
        CountDownLatch go = new CountDownLatch(1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(BOUND_SECONDS);

        List<Thread> threads = new ArrayList<>();
        Thread closing = null;
        try {
            for (int t = 0; t < registrars; t++) {
                threads.add(start("registering-" + t, failure, () -> {
                    try (Selector primer = TestSelectors.JDK.open()) {
                        // Channels made beforehand, so that registrations follow each other closely.
                        // Three more than prepared, for registrations once the selector is closed.
                        List<Pipe> mine = new ArrayList<>();
                        for (int i = 0; i < prepared + 3; i++) {
                            mine.add(newPrimedPipe(primer, pipes));
                        }
                        ready.countDown();
                        go.await();
                        int afterClose = 0;
                        for (int n = 0; afterClose < 3; n++) {
                            while (n >= prepared && selector.isOpen()) {
                                if (System.nanoTime() > giveUp) {
                                    unexpected.add(new AssertionError("the selector was never closed"));
                                    return;
                                }
                                Thread.yield();
                            }
                            if (n == mine.size()) {
                                unexpected.add(new AssertionError("register() succeeded on a closed selector"));
                                return;
                            }
                            Pipe pipe = mine.get(n);
                            try {
                                pipe.source().register(selector, SelectionKey.OP_READ);
                                pipe.sink().register(selector, SelectionKey.OP_WRITE);
                                registered.incrementAndGet();
                            } catch (ClosedSelectorException e) {
                                refused.incrementAndGet();
                                afterClose++;
                            } catch (Throwable e) {
                                unexpected.add(e);
                                return;
                            }
                            if (n % 8 == 1 && n < prepared) {
                                // Closed while registered: the selector (its select or its close) releases the fds.
                                pipe.source().close();
                                pipe.sink().close();
                            }
                        }
                    }
                }));
            }
            threads.add(start("selecting", failure, () -> {
                go.await();
                for (;;) {
                    try {
                        selector.select(10);
                        Set<SelectionKey> selected = selector.selectedKeys();
                        // close() on another thread removes keys from this set: the set's monitor guards it.
                        synchronized (selected) {
                            selected.clear();
                        }
                        selects.incrementAndGet();
                    } catch (ClosedSelectorException e) {
                        return;
                    } catch (Throwable e) {
                        unexpected.add(e);
                        return;
                    }
                }
            }));
            // Closes while registrations are in full flow: once a fifth of the prepared channels are registered.
            closing = start("closing", failure, () -> {
                go.await();
                while (registered.get() < registrars * prepared / 5) {
                    if (System.nanoTime() > giveUp) {
                        unexpected.add(new AssertionError("registrations do not progress"));
                        break;
                    }
                    Thread.onSpinWait();
                }
                selector.close();
            });
            assertTrue(ready.await(BOUND_SECONDS, TimeUnit.SECONDS), () -> "round " + round + ": channels not prepared: "
                    + stackOf(failure.get()));
            go.countDown();
            joinWithin(closing, "round " + round + ": close() while threads register");
            for (Thread thread : threads) {
                joinWithin(thread, "round " + round);
            }
            assertNull(failure.get(), () -> stackOf(failure.get()));
            if (!unexpected.isEmpty()) {
                fail("round " + round + ": " + unexpected.size() + " unexpected exceptions, the first: "
                        + stackOf(unexpected.get(0)));
            }
            assertTrue(registered.get() > 0, "round " + round + ": no registration succeeded before the close");
            assertEquals(3 * registrars, refused.get(), "round " + round + ": refusals after the close");
            for (Pipe pipe : List.copyOf(pipes)) {
                for (SelectableChannel channel : List.of(pipe.source(), pipe.sink())) {
                    SelectionKey key = channel.keyFor(selector);
                    assertTrue(key == null || !key.isValid(),
                            () -> "round " + round + ": " + channel + " keeps a valid key to the closed selector");
                    assertFalse(channel.isRegistered(), () -> "round " + round + ": " + channel + " still registered");
                }
            }
        } finally {
            // A round that failed leaves no thread waiting or registering, and nothing open.
            go.countDown();
            ContractChannels.closeQuietly(selector);
            if (closing != null) {
                threads.add(closing);
            }
            long joinUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(BOUND_SECONDS);
            for (Thread thread : threads) {
                thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(joinUntil - System.nanoTime())));
            }
            for (Pipe pipe : List.copyOf(pipes)) {
                ContractChannels.closeQuietly(pipe.source());
                ContractChannels.closeQuietly(pipe.sink());
            }
        }
    }

    /**
     * Threads change interest sets (interestOps, interestOpsOr, interestOpsAnd), cancel keys and
     * re-register while one thread selects: the mutators see no exception but
     * CancelledKeyException, the selecting thread none at all, nothing deadlocks, and at the end
     * each readable channel with interest OP_READ is selected with readyOps OP_READ.
     */
    @ParameterizedTest
    @MethodSource("io.github.nativeselector.support.TestSelectors#all")
    @Timeout(value = 40, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void interestChangesAndCancelsDuringSelects(TestSelectors selectors) throws Exception {
        int channelCount = 8;
        int mutatorCount = 3;
        long runNanos = TimeUnit.MILLISECONDS.toNanos(1500);
        int[] interestSets = {0, SelectionKey.OP_READ, SelectionKey.OP_WRITE,
            SelectionKey.OP_READ | SelectionKey.OP_WRITE, SelectionKey.OP_CONNECT,
            SelectionKey.OP_READ | SelectionKey.OP_CONNECT};
        int[] masks = {0, SelectionKey.OP_READ, SelectionKey.OP_WRITE, ~SelectionKey.OP_READ,
            ~SelectionKey.OP_WRITE, -1};

        List<SocketChannel> clients = new ArrayList<>();
        List<SocketChannel> peers = new ArrayList<>();
        try (Selector selector = selectors.open(); ServerSocketChannel server = ContractChannels.openServer()) {
            AtomicReferenceArray<SelectionKey> keys = new AtomicReferenceArray<>(channelCount);
            for (int i = 0; i < channelCount; i++) {
                SocketChannel client = SocketChannel.open(server.getLocalAddress());
                clients.add(client);
                peers.add(server.accept());
                client.configureBlocking(false);
                peers.get(i).write(ByteBuffer.wrap(new byte[] {1})); // each client stays readable
                keys.set(i, client.register(selector, SelectionKey.OP_READ, i));
            }

            AtomicReference<Throwable> failure = new AtomicReference<>();
            List<Throwable> unexpected = Collections.synchronizedList(new ArrayList<>());
            AtomicInteger operations = new AtomicInteger();
            AtomicInteger cancelled = new AtomicInteger();
            AtomicInteger selects = new AtomicInteger();
            CountDownLatch go = new CountDownLatch(1);
            AtomicBoolean stop = new AtomicBoolean();

            Thread selecting = start("selecting", failure, () -> {
                go.await();
                while (!stop.get()) {
                    selector.select(10);
                    for (SelectionKey key : selector.selectedKeys()) {
                        try {
                            int ready = key.readyOps();
                            if ((ready & ~key.channel().validOps()) != 0) {
                                unexpected.add(new AssertionError("readyOps " + ready + " outside validOps"));
                            }
                        } catch (CancelledKeyException e) {
                            // cancelled by a mutator since the select: allowed
                        }
                    }
                    selector.selectedKeys().clear();
                    selects.incrementAndGet();
                }
            });
            List<Thread> mutators = new ArrayList<>();
            for (int m = 0; m < mutatorCount; m++) {
                mutators.add(start("mutator-" + m, failure, () -> {
                    go.await();
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    long deadline = System.nanoTime() + runNanos;
                    while (System.nanoTime() < deadline) {
                        int i = random.nextInt(channelCount);
                        SelectionKey key = keys.get(i);
                        int dice = random.nextInt(100);
                        try {
                            if (dice < 30) {
                                key.interestOps(interestSets[random.nextInt(interestSets.length)]);
                            } else if (dice < 60) {
                                key.interestOpsOr(random.nextBoolean() ? SelectionKey.OP_READ : SelectionKey.OP_WRITE);
                            } else if (dice < 90) {
                                key.interestOpsAnd(masks[random.nextInt(masks.length)]);
                            } else if (dice < 97) {
                                if (!key.isValid()) {
                                    // Throws CancelledKeyException until a select has deregistered the old key.
                                    keys.set(i, clients.get(i).register(selector, SelectionKey.OP_READ, i));
                                } else {
                                    key.interestOps();
                                }
                            } else {
                                key.cancel();
                                cancelled.incrementAndGet();
                            }
                            operations.incrementAndGet();
                        } catch (CancelledKeyException e) {
                            operations.incrementAndGet();
                        } catch (Throwable e) {
                            unexpected.add(e);
                            return;
                        }
                    }
                }));
            }
            go.countDown();
            for (Thread mutator : mutators) {
                mutator.join(runNanos / 1_000_000 + BOUND_SECONDS * 1000);
                if (mutator.isAlive()) {
                    stop.set(true);
                    selector.wakeup();
                    fail(mutator.getName() + " still running (deadlock?):\n" + stackOf(mutator)
                            + "\nselecting thread:\n" + stackOf(selecting));
                }
            }
            stop.set(true);
            selector.wakeup();
            joinWithin(selecting, "selecting thread");
            assertNull(failure.get(), () -> stackOf(failure.get()));
            if (!unexpected.isEmpty()) {
                fail(unexpected.size() + " unexpected exceptions, the first: " + stackOf(unexpected.get(0)));
            }
            assertTrue(operations.get() > 1000, () -> "only " + operations.get() + " operations");
            assertTrue(selects.get() > 0, "the selecting thread never selected");

            // Final interest OP_READ on every (readable) channel: select reports each one.
            selector.selectNow(); // deregisters the cancelled keys
            List<SelectionKey> finalKeys = new ArrayList<>();
            for (int i = 0; i < channelCount; i++) {
                SocketChannel client = clients.get(i);
                SelectionKey key = client.keyFor(selector);
                if (key == null) {
                    key = client.register(selector, SelectionKey.OP_READ, i);
                } else {
                    key.interestOps(SelectionKey.OP_READ);
                }
                finalKeys.add(key);
            }
            assertEquals(new HashSet<>(finalKeys), selector.keys(), "one key per channel");
            selector.selectedKeys().clear();
            ContractSupport.selectUntilSelected(selector, finalKeys.toArray(new SelectionKey[0]));
            for (SelectionKey key : finalKeys) {
                assertEquals(SelectionKey.OP_READ, key.readyOps(), () -> "channel " + key.attachment() + " readyOps");
            }
        } finally {
            for (SocketChannel channel : clients) {
                channel.close();
            }
            for (SocketChannel channel : peers) {
                channel.close();
            }
        }
    }

    /**
     * Registers both ends with another selector and deregisters them again, so that each
     * channel has its key array. JDK 17's AbstractSelectableChannel.removeKey throws
     * NullPointerException for a channel that never had a key (fixed in later JDKs), which a
     * selector closed during a channel's first registration runs into, the JDK's own included.
     */
    private static Pipe newPrimedPipe(Selector primer, List<Pipe> pipes) throws IOException {
        Pipe pipe = Pipe.open();
        pipes.add(pipe);
        pipe.source().configureBlocking(false);
        pipe.sink().configureBlocking(false);
        pipe.source().register(primer, SelectionKey.OP_READ).cancel();
        pipe.sink().register(primer, SelectionKey.OP_WRITE).cancel();
        primer.selectNow();
        return pipe;
    }

    /** A pipe whose read end is registered for OP_READ and never readable. */
    private static final class IdlePipe implements AutoCloseable {
        final Pipe pipe;
        final SelectionKey key;

        IdlePipe(Selector selector) throws IOException {
            pipe = Pipe.open();
            pipe.source().configureBlocking(false);
            key = pipe.source().register(selector, SelectionKey.OP_READ, "idle");
        }

        @Override
        public void close() throws IOException {
            pipe.source().close();
            pipe.sink().close();
        }
    }
}
