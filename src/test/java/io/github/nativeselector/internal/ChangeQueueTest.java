/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.nativeselector.NativeSelectorProvider;
import java.io.IOException;
import java.nio.channels.Pipe;
import java.nio.channels.SelectionKey;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The change queue, seen from a backend that records each batch it is handed and applies every
 * change (no kernel): when changes are sent, in how many calls, how often for one key, and which
 * ones are left out. What the kernel then holds for a key is its {@code registeredEvents}.
 */
class ChangeQueueTest {

    private final RecordingBackend backend = new RecordingBackend();
    private final List<Pipe> pipes = new ArrayList<>();

    /** The selector's off-heap arrays and the channels' descriptors are reached through it. */
    @BeforeAll
    static void loadNativeLibrary() throws IOException {
        NativeLibrary.ensureLoaded();
    }

    @AfterEach
    void closePipes() throws IOException {
        for (Pipe pipe : pipes) {
            pipe.source().close();
            pipe.sink().close();
        }
    }

    private NativeSelector open(int threshold) {
        return new NativeSelector(NativeSelectorProvider.provider(), backend, threshold, false);
    }

    private NativeSelectionKey registerSource(NativeSelector selector, int ops) throws IOException {
        Pipe pipe = Pipe.open();
        pipes.add(pipe);
        pipe.source().configureBlocking(false);
        return (NativeSelectionKey) pipe.source().register(selector, ops);
    }

    @Test
    void belowTheThresholdChangesWaitForTheSelectWhichSendsThemInOneBatch() throws Exception {
        try (NativeSelector selector = open(4)) {
            List<NativeSelectionKey> keys = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                keys.add(registerSource(selector, SelectionKey.OP_READ));
            }
            assertEquals(List.of(), backend.batches);
            selector.selectNow();
            assertEquals(List.of(new Batch(3, false)), backend.batches,
                    "the selector's own flush, which the poll that follows may carry");
            for (NativeSelectionKey key : keys) {
                assertEquals(key.interestEvents(), key.registeredEvents);
            }
        }
    }

    @Test
    void atTheThresholdTheQueuingThreadSendsTheBatchAtOnce() throws Exception {
        try (NativeSelector selector = open(2)) {
            registerSource(selector, SelectionKey.OP_READ);
            assertEquals(List.of(), backend.batches);
            NativeSelectionKey second = registerSource(selector, SelectionKey.OP_READ);
            assertEquals(List.of(new Batch(2, true)), backend.batches,
                    "sent without a select, to be held by the kernel when register() returns");
            assertEquals(second.interestEvents(), second.registeredEvents);
        }
    }

    @Test
    void aKeyIsSentOnceWithItsLatestInterest() throws Exception {
        try (NativeSelector selector = open(64)) {
            NativeSelectionKey key = registerSource(selector, SelectionKey.OP_READ);
            key.interestOps(0);
            key.interestOps(SelectionKey.OP_READ);
            selector.selectNow();
            assertEquals(List.of(1), backend.sizes());
            int read = key.registeredEvents;
            assertNotEquals(0, read);
            key.interestOps(0);
            key.interestOps(SelectionKey.OP_READ);
            key.interestOps(0);
            selector.selectNow();
            assertEquals(List.of(1, 1), backend.sizes());
            assertEquals(ChangeBatch.PARKED, key.registeredEvents, "interest 0 parks the channel in the kernel");
        }
    }

    @Test
    void aChangeUndoneBeforeTheFlushSendsNothing() throws Exception {
        try (NativeSelector selector = open(64)) {
            NativeSelectionKey key = registerSource(selector, SelectionKey.OP_READ);
            selector.selectNow();
            key.interestOps(0);
            key.interestOps(SelectionKey.OP_READ);
            selector.selectNow();
            assertEquals(List.of(1), backend.sizes(), "the kernel already holds the key's interest");
        }
    }

    @Test
    void aCancelledKeyIsRemovedFromTheKernelOnceInTheBatchThatCarriesTheQueuedChanges() throws Exception {
        try (NativeSelector selector = open(64)) {
            NativeSelectionKey kept = registerSource(selector, SelectionKey.OP_READ);
            NativeSelectionKey cancelled = registerSource(selector, SelectionKey.OP_READ);
            selector.selectNow();
            cancelled.interestOps(0);
            cancelled.cancel();
            kept.interestOps(0);
            selector.selectNow();
            assertEquals(List.of(new Batch(2, false), new Batch(2, true)), backend.batches,
                    "the cancelled key's removal, synchronously (its channel may be closed right after), "
                    + "and the kept key's change with it: one call before the poll");
            assertTrue(cancelled.isOutOfKernel());
            assertEquals(ChangeBatch.PARKED, kept.registeredEvents);
            selector.selectNow();
            assertEquals(2, backend.batches.size(), "nothing left to send");
        }
    }

    @Test
    void aKeyTakesASlotWhenItsFirstChangeIsSentAndFreesItOnceOutOfTheKernel() throws Exception {
        try (NativeSelector selector = open(64)) {
            NativeSelectionKey neverSent = registerSource(selector, SelectionKey.OP_READ);
            NativeSelectionKey sent = registerSource(selector, SelectionKey.OP_READ);
            assertEquals(-1, sent.slot, "no slot while the change waits in the queue");
            neverSent.cancel();
            selector.selectNow();
            assertEquals(List.of(new Batch(1, true)), backend.batches);
            assertEquals(-1, neverSent.slot, "registered and cancelled between selects: no slot, nothing sent");
            assertTrue(sent.slot >= 0);
            sent.cancel();
            selector.selectNow();
            assertEquals(-1, sent.slot, "its removal applied, its slot is free");
            assertEquals(List.of(new Batch(1, true), new Batch(1, true)), backend.batches);
        }
    }

    @Test
    void removalsOfMoreKeysThanABatchHoldsTakeSeveralCalls() throws Exception {
        try (NativeSelector selector = open(1)) {
            List<NativeSelectionKey> keys = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                keys.add(registerSource(selector, SelectionKey.OP_READ));
            }
            assertEquals(100, backend.batches.size(), "threshold 1: each change is sent as it is made");
            keys.forEach(SelectionKey::cancel);
            selector.selectNow();
            assertEquals(List.of(64, 36), backend.sizes().subList(100, backend.batches.size()),
                    "a batch holds 64 changes at least, whatever the threshold");
            for (NativeSelectionKey key : keys) {
                assertTrue(key.isOutOfKernel());
            }
        }
    }

    /**
     * A closing lean channel takes its key out of the kernel itself, before the key is cancelled:
     * the removal goes at once, on its own, and a change the key still has queued is dropped, so
     * that no flush puts the descriptor (or a new one of its number) back under the key.
     */
    @Test
    void aKeyTakenOutAtCloseGoesAtOnceAndItsQueuedChangeIsDropped() throws Exception {
        try (NativeSelector selector = open(64)) {
            NativeSelectionKey key = registerSource(selector, SelectionKey.OP_READ);
            selector.selectNow();
            key.interestOps(0);
            assertTrue(selector.leaveKernelNow(key));
            assertEquals(List.of(new Batch(1, false), new Batch(1, true)), backend.batches,
                    "the removal, synchronously: the descriptor is closed as soon as it returns");
            assertTrue(key.isOutOfKernel());
            selector.selectNow();
            assertEquals(2, backend.batches.size(), "the queued change of the key taken out was not sent");
            assertTrue(key.isOutOfKernel());
            key.interestOps(SelectionKey.OP_READ);
            selector.selectNow();
            assertEquals(2, backend.batches.size(), "nor is a later one");
            key.cancel();
            selector.selectNow();
            assertEquals(2, backend.batches.size(), "its cancellation sends no second removal");
            assertEquals(-1, key.slot, "and frees its slot");
        }
    }

    @Test
    void aKeyWhoseFirstChangeNeverReachedTheKernelIsOutAtCloseWithoutACall() throws Exception {
        try (NativeSelector selector = open(64)) {
            NativeSelectionKey key = registerSource(selector, SelectionKey.OP_READ);
            assertTrue(selector.leaveKernelNow(key));
            selector.selectNow();
            assertEquals(List.of(), backend.batches, "its registration was dropped before it was sent");
        }
    }

    /** One call of {@link Backend#apply}: how many records, and whether synchronously. */
    record Batch(int size, boolean sync) {
    }

    /**
     * Applies every change it is handed, leaving each record's errno at 0; polls find nothing and
     * return at once (the tests select with {@code selectNow()} only).
     */
    private static final class RecordingBackend implements Backend {

        final List<Batch> batches = new CopyOnWriteArrayList<>();

        List<Integer> sizes() {
            List<Integer> sizes = new ArrayList<>();
            batches.forEach(batch -> sizes.add(batch.size()));
            return sizes;
        }

        @Override
        public String name() {
            return "recording";
        }

        @Override
        public boolean appliesDuringPoll() {
            return true;
        }

        @Override
        public int apply(long changes, int count, boolean sync) {
            batches.add(new Batch(count, sync));
            return 1;
        }

        @Override
        public int poll(long ready, int capacity, int timeoutMillis) {
            return 0;
        }

        @Override
        public void wakeup() {
        }

        @Override
        public void close() {
        }
    }
}
