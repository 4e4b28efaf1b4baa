/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.closereuse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.github.nativeselector.support.CloseReuseFds;
import io.github.nativeselector.support.ContractChannels;
import io.github.nativeselector.support.RaceSupport;
import io.github.nativeselector.support.TestSelectors;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.lang.ref.PhantomReference;
import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.nio.ByteBuffer;
import java.nio.channels.Pipe;
import java.nio.channels.Selector;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The descriptors a native selector opens: close-on-exec, so a child process never inherits
 * them; all released by {@code close()}, however often it is called; and released exactly once
 * when the selector becomes unreachable without {@code close()}.
 */
@Timeout(60)
class SelectorDescriptorsTest {

    private static final int SELECTORS = 20;

    /** The bound on waits for the collector and the cleaner, which a loaded machine may delay. */
    private static final long AWAIT_SECONDS = 10;

    /**
     * The names of the threads of Cleaner.create(), one of which releases what unreachable native
     * selectors hold (the JDK names them; the JDK's own common cleaner is Common-Cleaner).
     */
    private static final String CLEANER_THREADS = "Cleaner-[0-9]+";

    /** O_CLOEXEC in the octal {@code flags:} line of {@code /proc/self/fdinfo/N}. */
    private static final int O_CLOEXEC = 02000000;

    @ParameterizedTest
    @MethodSource("io.github.nativeselector.support.TestSelectors#natives")
    void everyDescriptorIsCloseOnExec(TestSelectors kind) throws Exception {
        Map<Integer, String> before = snapshotAfterFirstUse(kind);
        try (Selector selector = kind.open()) {
            Map<Integer, String> opened = CloseReuseFds.opened(before, CloseReuseFds.snapshot());
            assertFalse(opened.isEmpty());
            for (int fd : opened.keySet()) {
                assertTrue((openFlags(fd) & O_CLOEXEC) != 0, () -> "fd " + fd + " (" + opened.get(fd) + ") is inherited by exec");
            }
        }
    }

    private static int openFlags(int fd) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/fdinfo/" + fd))) {
            if (line.startsWith("flags:")) {
                return Integer.parseInt(line.substring("flags:".length()).trim(), 8);
            }
        }
        throw new IOException("no flags line in /proc/self/fdinfo/" + fd);
    }

    @ParameterizedTest
    @MethodSource("io.github.nativeselector.support.TestSelectors#natives")
    void closingTwiceIsHarmlessAndReleasesEverything(TestSelectors kind) throws Exception {
        Map<Integer, String> before = snapshotAfterFirstUse(kind);
        Selector selector = kind.open();
        assertFalse(CloseReuseFds.opened(before, CloseReuseFds.snapshot()).isEmpty(), "a native selector holds descriptors");
        selector.close();
        selector.close();
        assertEquals(Map.of(), CloseReuseFds.opened(before, CloseReuseFds.snapshot()));
    }

    @ParameterizedTest
    @MethodSource("io.github.nativeselector.support.TestSelectors#natives")
    void anUnreachableSelectorReleasesItsDescriptors(TestSelectors kind) throws Exception {
        Map<Integer, String> before = snapshotAfterFirstUse(kind);
        List<Selector> selectors = new ArrayList<>();
        for (int i = 0; i < SELECTORS; i++) {
            Selector selector = kind.open();
            selector.selectNow();
            selectors.add(selector);
        }
        // Counted while still reachable: a collection during the loop must not release any yet.
        int opened = CloseReuseFds.opened(before, CloseReuseFds.snapshot()).size();
        Reference.reachabilityFence(selectors);
        assertTrue(opened >= SELECTORS, () -> opened + " descriptors for " + SELECTORS + " selectors");
        selectors = null; // an interpreted frame would keep the list alive until the method returns
        awaitReleased(before);
    }

    @ParameterizedTest
    @MethodSource("io.github.nativeselector.support.TestSelectors#natives")
    void aClosedSelectorIsNotReleasedAgainWhenCollected(TestSelectors kind) throws Exception {
        Map<Integer, String> before = snapshotAfterFirstUse(kind);
        ReferenceQueue<Selector> collected = new ReferenceQueue<>();
        List<PhantomReference<Selector>> closed = closeAndDrop(kind, collected);
        List<Pipe> pipes = new ArrayList<>();
        try {
            // These pipes take the numbers the selectors released; a second release would close them.
            for (int i = 0; i < SELECTORS; i++) {
                pipes.add(Pipe.open());
            }
            awaitCollected(collected, closed);
            // The cleaner gets any release of the closed selectors before this later one's: once
            // it has run this one and waits for more, it has run those too.
            Map<Integer, String> beforeUnclosed = CloseReuseFds.snapshot();
            dropUnclosed(kind);
            awaitReleased(beforeUnclosed);
            awaitCleanerWaiting();
            for (Pipe pipe : pipes) {
                assertEquals(1, pipe.sink().write(ByteBuffer.wrap(new byte[] {7})));
                ByteBuffer in = ByteBuffer.allocate(1);
                assertEquals(1, pipe.source().read(in));
            }
        } finally {
            for (Pipe pipe : pipes) {
                ContractChannels.closeQuietly(pipe.sink());
                ContractChannels.closeQuietly(pipe.source());
            }
        }
        assertEquals(Map.of(), CloseReuseFds.opened(before, CloseReuseFds.snapshot()));
    }

    /** Descriptors open once the library and the JDK's lazily opened files are in place. */
    private static Map<Integer, String> snapshotAfterFirstUse(TestSelectors kind) throws IOException {
        kind.open().close();
        return CloseReuseFds.snapshot();
    }

    /** Closes {@value #SELECTORS} selectors and drops them; the references are enqueued once they are collected. */
    private static List<PhantomReference<Selector>> closeAndDrop(TestSelectors kind, ReferenceQueue<Selector> collected)
            throws IOException {
        List<PhantomReference<Selector>> references = new ArrayList<>();
        for (int i = 0; i < SELECTORS; i++) {
            Selector selector = kind.open();
            selector.selectNow();
            selector.close();
            references.add(new PhantomReference<>(selector, collected));
        }
        return references;
    }

    private static void dropUnclosed(TestSelectors kind) throws IOException {
        kind.open().selectNow();
    }

    /** Waits until every reference is enqueued; they stay reachable here, or they would never be. */
    private static void awaitCollected(ReferenceQueue<Selector> collected, List<PhantomReference<Selector>> references)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(AWAIT_SECONDS);
        for (int seen = 0; seen < references.size();) {
            if (System.nanoTime() > deadline) {
                fail("only " + seen + " of " + references.size() + " dropped selectors were collected within "
                        + AWAIT_SECONDS + " s");
            }
            System.gc();
            while (seen < references.size() && collected.remove(25) != null) {
                seen++;
            }
        }
    }

    /**
     * Waits until the cleaners' threads, the selectors' among them, wait for work again. A timed
     * wait inside a {@link ReferenceQueue} is its wait on an empty queue (waiting for the queue's
     * lock is not a timed wait); state and stack come from one snapshot.
     */
    private static void awaitCleanerWaiting() throws InterruptedException {
        List<Thread> cleaners = Thread.getAllStackTraces().keySet().stream()
                .filter(thread -> thread.getName().matches(CLEANER_THREADS)).collect(Collectors.toList());
        assertFalse(cleaners.isEmpty(), "no thread named " + CLEANER_THREADS);
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(AWAIT_SECONDS);
        for (Thread cleaner : cleaners) {
            for (;;) {
                ThreadInfo info = threads.getThreadInfo(cleaner.getId(), Integer.MAX_VALUE);
                if (info == null || info.getThreadState() == Thread.State.TIMED_WAITING
                        && Arrays.stream(info.getStackTrace())
                                .anyMatch(frame -> frame.getClassName().endsWith("ReferenceQueue"))) {
                    break;
                }
                if (System.nanoTime() > deadline) {
                    fail("the cleaner did not come back to wait for work within " + AWAIT_SECONDS + " s:\n"
                            + RaceSupport.stackOf(cleaner));
                }
                Thread.sleep(10);
            }
        }
    }

    private static void awaitReleased(Map<Integer, String> before) throws Exception {
        Map<Integer, String> left = Map.of();
        for (int attempt = 0; attempt < 200; attempt++) {
            System.gc();
            Thread.sleep(25);
            left = CloseReuseFds.opened(before, CloseReuseFds.snapshot());
            if (left.isEmpty()) {
                return;
            }
        }
        assertEquals(Map.of(), left, "descriptors of unreachable selectors still open");
    }
}
