/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.closereuse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.nativeselector.support.CloseReuseFds;
import io.github.nativeselector.support.TestSelectors;
import java.io.IOException;
import java.lang.ref.Reference;
import java.nio.ByteBuffer;
import java.nio.channels.Pipe;
import java.nio.channels.Selector;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
        List<Pipe> pipes = new ArrayList<>();
        closeAndDrop(kind);
        // These pipes take the numbers the selectors released; a second release would close them.
        for (int i = 0; i < SELECTORS; i++) {
            pipes.add(Pipe.open());
        }
        for (int i = 0; i < 5; i++) {
            System.gc();
            Thread.sleep(50);
        }
        for (Pipe pipe : pipes) {
            assertEquals(1, pipe.sink().write(ByteBuffer.wrap(new byte[] {7})));
            ByteBuffer in = ByteBuffer.allocate(1);
            assertEquals(1, pipe.source().read(in));
            pipe.sink().close();
            pipe.source().close();
        }
        assertEquals(Map.of(), CloseReuseFds.opened(before, CloseReuseFds.snapshot()));
    }

    /** Descriptors open once the library and the JDK's lazily opened files are in place. */
    private static Map<Integer, String> snapshotAfterFirstUse(TestSelectors kind) throws IOException {
        kind.open().close();
        return CloseReuseFds.snapshot();
    }

    private static void closeAndDrop(TestSelectors kind) throws IOException {
        for (int i = 0; i < SELECTORS; i++) {
            Selector selector = kind.open();
            selector.selectNow();
            selector.close();
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
