/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.monitoring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.nativeselector.SelectorMXBean;
import io.github.nativeselector.SelectorStats;
import io.github.nativeselector.SelectorsMXBean;
import io.github.nativeselector.internal.BackendChoice;
import io.github.nativeselector.internal.Config;
import io.github.nativeselector.support.TestSelectors;
import java.lang.ref.WeakReference;
import java.nio.ByteBuffer;
import java.nio.channels.Pipe;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The selectors' MBeans: one per open selector whose attributes follow its counters, the totals
 * across selectors, and nothing left registered (or kept reachable) once a selector is closed or
 * collected unclosed.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SelectorMBeanTest {

    private static final int ROUNDS = 10;

    @ParameterizedTest
    @MethodSource("io.github.nativeselector.support.TestSelectors#natives")
    void attributesFollowTheSelectorsWorkAndTheMBeanGoesWithClose(TestSelectors kind) throws Exception {
        Set<ObjectName> before = SelectorMBeanNames.selectors();
        Selector selector = kind.open();
        ObjectName name = SelectorMBeanNames.added(before);
        SelectorMXBean mbean = SelectorMBeanNames.selector(name);
        SelectorsMXBean totals = SelectorMBeanNames.totals();
        assertEquals(SelectorStats.of(selector).orElseThrow().backend(), mbean.getBackend());
        assertEquals(kind.batchThreshold(), mbean.getBatchThreshold());
        assertEquals(0, mbean.getReadyEvents());
        assertTrue(totals.getOpenSelectors() >= 1);
        long totalReadyBefore = totals.getReadyEvents();
        long totalChangesBefore = totals.getChangesApplied();

        Pipe pipe = Pipe.open();
        try (Pipe.SourceChannel source = pipe.source(); Pipe.SinkChannel sink = pipe.sink()) {
            source.configureBlocking(false);
            source.register(selector, SelectionKey.OP_READ);
            ByteBuffer in = ByteBuffer.allocate(1);
            for (int round = 0; round < ROUNDS; round++) {
                sink.write(ByteBuffer.wrap(new byte[] {(byte) round}));
                assertEquals(1, selector.select(5000), "round " + round);
                selector.selectedKeys().clear();
                in.clear();
                assertEquals(1, source.read(in));
            }
            selector.wakeup();
            selector.selectNow();
        }
        SelectorStats stats = SelectorStats.of(selector).orElseThrow();
        assertEquals(stats.readyEvents(), mbean.getReadyEvents());
        assertEquals(stats.polls(), mbean.getPolls());
        assertEquals(stats.batches(), mbean.getBatches());
        assertEquals(stats.changesApplied(), mbean.getChangesApplied());
        assertEquals(stats.kernelCallsForChanges(), mbean.getKernelCallsForChanges());
        assertEquals(stats.pollsWithoutSyscall(), mbean.getPollsWithoutSyscall());
        assertEquals(stats.wakeups(), mbean.getWakeups());
        assertTrue(stats.readyEvents() >= ROUNDS, stats::toString);
        assertTrue(stats.polls() >= ROUNDS, stats::toString);
        assertTrue(stats.changesApplied() >= 1, stats::toString);
        assertEquals(1, stats.wakeups(), stats::toString);
        assertTrue(totals.getReadyEvents() - totalReadyBefore >= stats.readyEvents());
        assertTrue(totals.getChangesApplied() - totalChangesBefore >= stats.changesApplied());

        long totalReadyOpen = totals.getReadyEvents();
        selector.close();
        assertFalse(SelectorMBeanNames.SERVER.isRegistered(name), "the MBean of a closed selector");
        assertTrue(totals.getReadyEvents() >= totalReadyOpen, "the totals keep what closed selectors did");
    }

    @Test
    void totalsCountSelectorsOpenedAndOpen() throws Exception {
        SelectorsMXBean totals;
        try (Selector first = TestSelectors.EPOLL_BATCHED.open()) {
            totals = SelectorMBeanNames.totals();
            long opened = totals.getSelectorsOpened();
            try (Selector second = TestSelectors.POLLSET_BATCHED.open()) {
                assertTrue(totals.getSelectorsOpened() >= opened + 1);
                assertTrue(totals.getOpenSelectors() >= 2);
            }
        }
    }

    @Test
    void jmxFalseRegistersNoMBean() throws Exception {
        Set<ObjectName> before = SelectorMBeanNames.selectors();
        try (Selector selector = TestSelectors.open(
                new Config(BackendChoice.EPOLL, Config.DEFAULT_BATCH_THRESHOLD, false, true))) {
            selector.selectNow();
            Set<ObjectName> after = SelectorMBeanNames.selectors();
            assertTrue(before.containsAll(after), () -> "registered: " + after);
        }
    }

    /** A registered MBean keeps nothing of its selector: the selector is collected, then its MBean goes. */
    @ParameterizedTest
    @MethodSource("io.github.nativeselector.support.TestSelectors#natives")
    void unreachableSelectorsAreCollectedAndTheirMBeansUnregistered(TestSelectors kind) throws Exception {
        List<ObjectName> names = new ArrayList<>();
        List<WeakReference<Selector>> dropped = openAndDrop(kind, 20, names);
        for (int attempt = 0; attempt < 200 && !(allCleared(dropped) && noneRegistered(names)); attempt++) {
            System.gc();
            Thread.sleep(25);
        }
        for (WeakReference<Selector> reference : dropped) {
            assertNull(reference.get(), "a selector with a registered MBean was never collected");
        }
        for (ObjectName name : names) {
            assertFalse(SelectorMBeanNames.SERVER.isRegistered(name), "the MBean of a collected selector: " + name);
        }
    }

    /** Opens selectors and keeps only weak references to them, and their MBeans' names. */
    private static List<WeakReference<Selector>> openAndDrop(TestSelectors kind, int count, List<ObjectName> names)
            throws Exception {
        List<WeakReference<Selector>> references = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Set<ObjectName> before = SelectorMBeanNames.selectors();
            Selector selector = kind.open();
            names.add(SelectorMBeanNames.added(before));
            selector.selectNow();
            references.add(new WeakReference<>(selector));
        }
        return references;
    }

    private static boolean noneRegistered(List<ObjectName> names) {
        return names.stream().noneMatch(SelectorMBeanNames.SERVER::isRegistered);
    }

    private static boolean allCleared(List<WeakReference<Selector>> references) {
        return references.stream().allMatch(reference -> reference.get() == null);
    }
}
