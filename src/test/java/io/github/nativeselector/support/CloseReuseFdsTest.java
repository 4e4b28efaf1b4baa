/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.support;

import static io.github.nativeselector.support.CloseReuseFds.assertBackToBaseline;
import static io.github.nativeselector.support.CloseReuseFds.singleOpened;
import static io.github.nativeselector.support.CloseReuseFds.snapshot;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.channels.DatagramChannel;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.opentest4j.AssertionFailedError;

/**
 * The descriptor counts of {@link CloseReuseFds} blame the code under test only for what it
 * opened: a file the JVM opens on another thread inside the counted window (as it reads its
 * cgroup's memory limit) or keeps open afterwards (as a class path jar after its first use) is
 * not counted, and a channel is.
 */
@Timeout(60)
class CloseReuseFdsTest {

    @Test
    void aFileOpenedMeanwhileOnAnotherThreadIsNotTakenForTheChannel(@TempDir Path dir) throws Exception {
        Path limit = Files.writeString(dir.resolve("memory.limit_in_bytes"), "9223372036854771712\n");
        Map<Integer, String> before = snapshot();
        try (DatagramChannel channel = DatagramChannel.open(); FileChannel jvmsOwn = openOnAnotherThread(limit)) {
            Map<Integer, String> after = snapshot();
            String opened = after.get(singleOpened(before, after));
            assertTrue(opened.startsWith("socket:"), () -> "the channel's descriptor: " + opened);
        }
    }

    @Test
    void aFileLeftOpenIsNoLeakAndAChannelLeftOpenIs(@TempDir Path dir) throws Exception {
        Path jar = Files.write(dir.resolve("dependency.jar"), new byte[] {'P', 'K', 5, 6});
        Map<Integer, String> baseline = snapshot();
        try (FileChannel jvmsOwn = openOnAnotherThread(jar)) {
            assertBackToBaseline(baseline, "with a file the JVM keeps open");
            try (DatagramChannel leaked = DatagramChannel.open()) {
                AssertionFailedError failure = assertThrows(AssertionFailedError.class,
                        () -> assertBackToBaseline(baseline, "with a channel left open"));
                assertTrue(failure.getMessage().contains("socket:"), failure::getMessage);
            }
        }
    }

    private static FileChannel openOnAnotherThread(Path file) throws Exception {
        FutureTask<FileChannel> open = new FutureTask<>(() -> FileChannel.open(file));
        new Thread(open, "opens a file as the JVM does").start();
        return open.get(ContractSupport.AWAIT_MS, TimeUnit.MILLISECONDS);
    }
}
