/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.monitoring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.nativeselector.SelectorStats;
import io.github.nativeselector.support.TestSelectors;
import java.io.IOException;
import java.nio.channels.Pipe;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import javax.management.ObjectName;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The flight recorder's events, recorded in this JVM and read back from the file: one
 * {@code SelectorStatistics} per open selector each period, and one {@code Batch} per batch of at
 * least {@code minimumChanges} changes, with the kernel calls each backend makes for it.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SelectorEventsTest {

    private static final String STATISTICS = "io.github.nativeselector.SelectorStatistics";
    private static final String BATCH = "io.github.nativeselector.Batch";
    private static final int THRESHOLD = 64;

    /** What a test did on one selector, and the id its events carry. */
    record Run(long selectorId, SelectorStats stats) {
    }

    @Test
    void periodicStatisticsAndBatchesAtLeastTheMinimum(@TempDir Path dir) throws Exception {
        List<RecordedEvent> events;
        Run epoll;
        Run pollset;
        try (Recording recording = new Recording()) {
            recording.enable(STATISTICS).withPeriod(Duration.ofMillis(100));
            recording.enable(BATCH).with("minimumChanges", "2");
            recording.start();
            epoll = registerAndToggle(TestSelectors.EPOLL_BATCHED, 100, run -> awaitStatistics(recording, dir, run));
            pollset = registerAndToggle(TestSelectors.POLLSET_BATCHED, 100, run -> awaitStatistics(recording, dir, run));
            recording.stop();
            events = read(recording, dir);
        }
        // 100 registrations: 64 flushed at the threshold by the registering thread, 36 by the
        // select; then one interest change alone, below the minimum of 2, so not recorded.
        assertEquals(List.of("64:1", "36:1"), batches(events, epoll.selectorId()),
                "epoll: one io_uring_enter per batch of 8 to 64 changes");
        assertEquals(List.of("64:1", "36:1"), batches(events, pollset.selectorId()), "pollset: one pollset_ctl per batch");

        for (Run run : List.of(epoll, pollset)) {
            List<RecordedEvent> statistics = statistics(events, run.selectorId());
            assertFalse(statistics.isEmpty(), "no periodic event for selector " + run.selectorId());
            RecordedEvent last = statistics.get(statistics.size() - 1);
            assertEquals(run.stats().backend(), last.getString("backend"));
            assertEquals(THRESHOLD, last.getInt("batchThreshold"));
            assertEquals(run.stats().changesApplied(), last.getLong("changesApplied"), last::toString);
            assertEquals(run.stats().batches(), last.getLong("batches"), last::toString);
            assertEquals(run.stats().kernelCallsForChanges(), last.getLong("kernelCallsForChanges"), last::toString);
            assertTrue(last.getLong("polls") >= 2, last::toString);
        }
    }

    @Test
    void byDefaultBatchesOfFewerThanSixteenChangesAreLeftOut(@TempDir Path dir) throws Exception {
        List<RecordedEvent> events;
        Run small;
        Run large;
        try (Recording recording = new Recording()) {
            recording.enable(BATCH);
            recording.start();
            small = registerAndToggle(TestSelectors.EPOLL_BATCHED, 15, run -> { });
            large = registerAndToggle(TestSelectors.EPOLL_BATCHED, 16, run -> { });
            recording.stop();
            events = read(recording, dir);
        }
        assertEquals(List.of(), batches(events, small.selectorId()));
        assertEquals(List.of("16:1"), batches(events, large.selectorId()));
    }

    /** What is done with a selector before it is closed. */
    @FunctionalInterface
    private interface BeforeClose {
        void accept(Run run) throws Exception;
    }

    /**
     * Registers {@code pipes} pipe sources with a new selector (threshold 64), selects, changes one
     * key's interest and selects again; then hands what it did to {@code beforeClose}.
     */
    private static Run registerAndToggle(TestSelectors kind, int pipes, BeforeClose beforeClose) throws Exception {
        Set<ObjectName> before = SelectorMBeanNames.selectors();
        List<Pipe> opened = new ArrayList<>();
        try (Selector selector = kind.open()) {
            assertEquals(THRESHOLD, kind.batchThreshold());
            long id = SelectorMBeanNames.id(SelectorMBeanNames.added(before));
            SelectionKey last = null;
            for (int i = 0; i < pipes; i++) {
                Pipe pipe = Pipe.open();
                opened.add(pipe);
                pipe.source().configureBlocking(false);
                last = pipe.source().register(selector, SelectionKey.OP_READ);
            }
            assertEquals(0, selector.selectNow());
            last.interestOps(0);
            assertEquals(0, selector.selectNow());
            Run run = new Run(id, SelectorStats.of(selector).orElseThrow());
            beforeClose.accept(run);
            return run;
        } finally {
            for (Pipe pipe : opened) {
                pipe.source().close();
                pipe.sink().close();
            }
        }
    }

    /**
     * Waits until the running recording holds a periodic event of the run's selector with the
     * run's counters: the period is 100 ms, but a busy machine can hold the recorder's periodic
     * thread back far longer.
     */
    private static void awaitStatistics(Recording recording, Path dir, Run run) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (statistics(read(recording, dir), run.selectorId()).stream()
                .noneMatch(e -> e.getLong("changesApplied") == run.stats().changesApplied())) {
            assertTrue(System.nanoTime() < deadline, "no periodic event of selector " + run.selectorId()
                    + " with its " + run.stats().changesApplied() + " changes applied within 10 s");
            Thread.sleep(50);
        }
    }

    /** The selector's SelectorStatistics events, in the order the recording holds them. */
    private static List<RecordedEvent> statistics(List<RecordedEvent> events, long selectorId) {
        return events.stream()
                .filter(e -> e.getEventType().getName().equals(STATISTICS))
                .filter(e -> e.getLong("selectorId") == selectorId)
                .collect(Collectors.toList());
    }

    private static List<RecordedEvent> read(Recording recording, Path dir) throws IOException {
        Path file = dir.resolve("selectors.jfr");
        recording.dump(file);
        assertTrue(Files.size(file) > 0);
        return RecordingFile.readAllEvents(file);
    }

    /** The selector's Batch events as "changes:kernelCalls", in the order they were committed. */
    private static List<String> batches(List<RecordedEvent> events, long selectorId) {
        return events.stream()
                .filter(e -> e.getEventType().getName().equals(BATCH))
                .filter(e -> e.getLong("selectorId") == selectorId)
                .sorted((a, b) -> a.getStartTime().compareTo(b.getStartTime()))
                .map(e -> e.getInt("changes") + ":" + e.getInt("kernelCalls"))
                .collect(Collectors.toList());
    }

}
