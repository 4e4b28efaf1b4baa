/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.batching;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.nativeselector.SelectorStats;
import io.github.nativeselector.internal.BackendChoice;
import io.github.nativeselector.internal.Config;
import io.github.nativeselector.support.RaceSupport;
import io.github.nativeselector.support.TestSelectors;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Pipe;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * When registration changes reach the kernel, observed through the selector's counters, on the
 * backends whose kernel calls can be counted exactly: epoll makes one {@code epoll_ctl} per change
 * below 8 changes and one {@code io_uring_enter} per 64 from 8 on (the suite runs where io_uring
 * does), pollset one {@code pollset_ctl} per batch.
 */
@Timeout(30)
class BatchingTest {

    /** epoll's io_uring ring: the fewest changes it takes, and the most per io_uring_enter. */
    private static final int EPOLL_RING_MIN_CHANGES = 8;
    private static final int EPOLL_RING_ENTRIES = 64;

    private final List<Pipe> pipes = new ArrayList<>();

    @AfterEach
    void closePipes() throws IOException {
        for (Pipe pipe : pipes) {
            pipe.source().close();
            pipe.sink().close();
        }
    }

    private static Selector open(BackendChoice backend, int threshold) throws IOException {
        return TestSelectors.open(new Config(backend, threshold));
    }

    /** The kernel calls one batch of this many changes, each of its own channel, takes. */
    private static long callsFor(BackendChoice backend, int changes) {
        if (backend == BackendChoice.POLLSET) {
            return 1;
        }
        if (changes < EPOLL_RING_MIN_CHANGES) {
            return changes;
        }
        // A chunk of 64 per io_uring_enter; a last chunk too short for the ring, epoll_ctl each.
        int rest = changes % EPOLL_RING_ENTRIES;
        return changes / EPOLL_RING_ENTRIES + (rest < EPOLL_RING_MIN_CHANGES ? rest : 1);
    }

    private static SelectorStats stats(Selector selector) {
        return SelectorStats.of(selector).orElseThrow();
    }

    private Pipe.SourceChannel source() throws IOException {
        Pipe pipe = Pipe.open();
        pipes.add(pipe);
        pipe.source().configureBlocking(false);
        return pipe.source();
    }

    private static void makeReadable(Pipe.SourceChannel source, List<Pipe> pipes) throws IOException {
        for (Pipe pipe : pipes) {
            if (pipe.source() == source) {
                pipe.sink().write(ByteBuffer.wrap(new byte[] {1}));
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = BackendChoice.class, names = {"EPOLL", "POLLSET"})
    void thresholdOneAppliesEachChangeAtOnce(BackendChoice backend) throws IOException {
        try (Selector selector = open(backend, 1)) {
            source().register(selector, SelectionKey.OP_READ);
            assertEquals(1, stats(selector).batches());
            source().register(selector, SelectionKey.OP_READ);
            SelectorStats s = stats(selector);
            assertEquals(2, s.batches());
            assertEquals(2, s.changesApplied());
            assertEquals(2, s.kernelCallsForChanges());
            assertEquals(0, s.polls());
        }
    }

    @ParameterizedTest
    @EnumSource(value = BackendChoice.class, names = {"EPOLL", "POLLSET"})
    void belowThresholdChangesWaitForTheNextSelectAndGoInOneBatch(BackendChoice backend) throws IOException {
        try (Selector selector = open(backend, 64)) {
            for (int i = 0; i < 10; i++) {
                source().register(selector, SelectionKey.OP_READ);
            }
            assertEquals(0, stats(selector).changesApplied());
            selector.selectNow();
            SelectorStats s = stats(selector);
            assertEquals(1, s.batches());
            assertEquals(10, s.changesApplied());
            assertEquals(callsFor(backend, 10), s.kernelCallsForChanges());
        }
    }

    @ParameterizedTest
    @EnumSource(value = BackendChoice.class, names = {"EPOLL", "POLLSET"})
    void fillingTheQueueFlushesFromTheRegisteringThread(BackendChoice backend) throws IOException {
        try (Selector selector = open(backend, 4)) {
            for (int i = 0; i < 3; i++) {
                source().register(selector, SelectionKey.OP_READ);
            }
            assertEquals(0, stats(selector).batches());
            source().register(selector, SelectionKey.OP_READ);
            SelectorStats s = stats(selector);
            assertEquals(1, s.batches());
            assertEquals(4, s.changesApplied());
        }
    }

    @ParameterizedTest
    @EnumSource(value = BackendChoice.class, names = {"EPOLL", "POLLSET"})
    void registrationThatFillsTheQueueWakesABlockedSelectWithoutWakeup(BackendChoice backend) throws Exception {
        try (Selector selector = open(backend, 4)) {
            // On pollset, the registering thread must not call pollset_ctl during the poll (it
            // would wait for the poll, which waits for this change): the flush is handed over.
            List<Pipe.SourceChannel> sources = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                sources.add(source());
            }
            makeReadable(sources.get(3), pipes);
            CompletableFuture<Integer> blocked = new CompletableFuture<>();
            Thread selecting = new Thread(() -> {
                try {
                    blocked.complete(selector.select());
                } catch (Throwable e) {
                    blocked.completeExceptionally(e);
                }
            });
            selecting.start();
            RaceSupport.awaitBlockedInSelect(selecting);
            CompletableFuture<Void> registered = CompletableFuture.runAsync(() -> {
                try {
                    for (Pipe.SourceChannel source : sources) {
                        source.register(selector, SelectionKey.OP_READ);
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            registered.get(10, TimeUnit.SECONDS);
            assertEquals(1, blocked.get(10, TimeUnit.SECONDS));
            assertEquals(0, stats(selector).wakeups());
            assertEquals(sources.get(3), selector.selectedKeys().iterator().next().channel());
        }
    }

    @ParameterizedTest
    @EnumSource(value = BackendChoice.class, names = {"EPOLL", "POLLSET"})
    void repeatedInterestChangesBetweenSelectsCoalesce(BackendChoice backend) throws IOException {
        try (Selector selector = open(backend, 64)) {
            SelectionKey key = source().register(selector, SelectionKey.OP_READ);
            selector.selectNow();
            long before = stats(selector).changesApplied();
            for (int i = 0; i < 100; i++) {
                key.interestOps(0);
                key.interestOps(SelectionKey.OP_READ);
            }
            selector.selectNow();
            assertEquals(before, stats(selector).changesApplied(), "back where it started: nothing to apply");
            key.interestOps(0);
            key.interestOpsOr(SelectionKey.OP_READ);
            key.interestOpsAnd(0);
            selector.selectNow();
            assertEquals(before + 1, stats(selector).changesApplied(), "one removal");
        }
    }

    @ParameterizedTest
    @EnumSource(value = BackendChoice.class, names = {"EPOLL", "POLLSET"})
    void noInterestParksTheChannelSoAHangUpIsReportedOnceAtMost(BackendChoice backend) throws IOException {
        try (Selector selector = open(backend, 64)) {
            Pipe.SourceChannel source = source();
            SelectionKey key = source.register(selector, SelectionKey.OP_READ);
            selector.selectNow();
            key.interestOps(0);
            selector.selectNow();
            pipes.get(0).sink().close();
            long polls = stats(selector).readyEvents();
            assertEquals(0, selector.selectNow());
            assertEquals(0, selector.select(50));
            assertEquals(0, selector.select(50));
            assertTrue(stats(selector).readyEvents() - polls <= 1,
                    "the kernel reported the idle key's hang-up " + (stats(selector).readyEvents() - polls) + " times");
            key.interestOps(SelectionKey.OP_READ);
            assertEquals(1, selector.selectNow(), "watched again, the hang-up reads as readable");
        }
    }

    @ParameterizedTest
    @EnumSource(value = BackendChoice.class, names = {"EPOLL", "POLLSET"})
    void cancelledKeysLeaveTheKernelInOneBatch(BackendChoice backend) throws IOException {
        try (Selector selector = open(backend, 64)) {
            List<SelectionKey> keys = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                keys.add(source().register(selector, SelectionKey.OP_READ));
            }
            selector.selectNow();
            long batches = stats(selector).batches();
            keys.forEach(SelectionKey::cancel);
            selector.selectNow();
            SelectorStats s = stats(selector);
            assertEquals(batches + 1, s.batches());
            assertEquals(10, s.changesApplied());
            assertEquals(callsFor(backend, 5) * 2, s.kernelCallsForChanges());
            assertTrue(selector.keys().isEmpty());
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {7, 8, 64, 70, 72, 128})
    void epollMakesOneIoUringEnterPerSixtyFourChangesFromEightOn(int threshold) throws IOException {
        try (Selector selector = open(BackendChoice.EPOLL, threshold)) {
            for (int i = 0; i < threshold; i++) {
                source().register(selector, SelectionKey.OP_READ);
            }
            SelectorStats s = stats(selector);
            assertEquals(1, s.batches(), "flushed at the threshold");
            assertEquals(threshold, s.changesApplied());
            assertEquals(callsFor(BackendChoice.EPOLL, threshold), s.kernelCallsForChanges());
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 8, 64})
    void pollsetMakesOnePollsetCtlPerThresholdOfChanges(int threshold) throws IOException {
        try (Selector selector = open(BackendChoice.POLLSET, threshold)) {
            for (int i = 0; i < 128; i++) {
                source().register(selector, SelectionKey.OP_READ);
            }
            SelectorStats s = stats(selector);
            assertEquals(128, s.changesApplied(), "every threshold-th registration flushed at once");
            assertEquals(128 / threshold, s.batches());
            assertEquals(128 / threshold, s.kernelCallsForChanges());
            assertEquals(0, s.polls());
        }
    }

    @Test
    void pollsetShrinksAnInterestSetInOneCall() throws IOException {
        try (Selector selector = open(BackendChoice.POLLSET, 64);
                ServerSocketChannel server = ServerSocketChannel.open();
                SocketChannel client = SocketChannel.open()) {
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            client.connect(server.getLocalAddress());
            client.configureBlocking(false);
            SelectionKey key = client.register(selector, SelectionKey.OP_READ | SelectionKey.OP_WRITE);
            assertEquals(1, selector.selectNow(), "writable");
            selector.selectedKeys().clear();
            SelectorStats before = stats(selector);
            key.interestOps(SelectionKey.OP_READ);
            assertEquals(0, selector.selectNow(), "no longer watched for writing: PS_MOD alone cannot do this");
            SelectorStats after = stats(selector);
            assertEquals(before.changesApplied() + 1, after.changesApplied());
            assertEquals(before.kernelCallsForChanges() + 1, after.kernelCallsForChanges());
            server.accept().close();
        }
    }
}
