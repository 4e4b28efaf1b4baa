/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.SelectableChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * The process's descriptors of the kinds selectors and channels open, read from
 * {@code /proc/self/fd}, and the checks that a channel's descriptor was released. The one place
 * the tests count descriptors.
 *
 * <p>Only sockets, pipes and anonymous inodes (epoll, eventfd, io_uring) are seen: the only
 * kinds a selector or a channel opens. Files with a path are left out, because the JVM opens
 * them on its own threads whenever it likes (a class path jar on first use, its cgroup's
 * {@code memory.limit_in_bytes}, files under {@code /proc}), and a count of every descriptor
 * would blame them on the code under test. A descriptor is identified by its link target
 * ({@code socket:[inode]}, {@code pipe:[inode]}), which, unlike its number, is not reused.
 */
public final class CloseReuseFds {

    private static final Path FD_DIR = Path.of("/proc/self/fd");

    /** How the link targets of the kinds a selector or a channel opens begin. */
    private static final List<String> SELECTOR_AND_CHANNEL_KINDS = List.of("socket:", "pipe:", "anon_inode:");

    private CloseReuseFds() {
    }

    /** fd number to link target, for the descriptors of the kinds selectors and channels open. */
    public static Map<Integer, String> snapshot() throws IOException {
        Map<Integer, String> fds = new TreeMap<>();
        try (DirectoryStream<Path> dir = Files.newDirectoryStream(FD_DIR)) {
            for (Path entry : dir) {
                String target;
                try {
                    target = Files.readSymbolicLink(entry).toString();
                } catch (IOException closedMeanwhile) {
                    continue;
                }
                if (isSelectorOrChannelKind(target)) {
                    fds.put(Integer.parseInt(entry.getFileName().toString()), target);
                }
            }
        }
        return fds;
    }

    private static boolean isSelectorOrChannelKind(String target) {
        return SELECTOR_AND_CHANNEL_KINDS.stream().anyMatch(target::startsWith);
    }

    /** The descriptors in {@code after} that are not in {@code before} (new numbers, or numbers now naming another file). */
    public static Map<Integer, String> opened(Map<Integer, String> before, Map<Integer, String> after) {
        Map<Integer, String> opened = new TreeMap<>();
        after.forEach((fd, target) -> {
            if (!target.equals(before.get(fd))) {
                opened.put(fd, target);
            }
        });
        return opened;
    }

    /** The one descriptor opened between the two snapshots: its number. */
    public static int singleOpened(Map<Integer, String> before, Map<Integer, String> after) {
        Map<Integer, String> opened = opened(before, after);
        assertEquals(1, opened.size(), () -> "expected exactly one new fd, got " + opened);
        return opened.keySet().iterator().next();
    }

    /** How many descriptors refer to the file with this link target. */
    public static long count(String target) throws IOException {
        return snapshot().values().stream().filter(target::equals).count();
    }

    /**
     * Fails unless every descriptor opened since the baseline is closed again within
     * {@link ContractSupport#AWAIT_MS} (a leak is permanent; a close still under way on another
     * thread is not). Descriptors
     * of the baseline that close meanwhile, such as those of an earlier test's unreachable
     * selectors, are no concern of this check.
     */
    public static void assertBackToBaseline(Map<Integer, String> baseline, String what) throws IOException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ContractSupport.AWAIT_MS);
        Map<Integer, String> left = opened(baseline, snapshot());
        while (!left.isEmpty() && System.nanoTime() < deadline) {
            sleep(20);
            left = opened(baseline, snapshot());
        }
        if (!left.isEmpty()) {
            fail(what + ": " + left.size() + " fds opened since the baseline are still open: " + abbreviated(left));
        }
    }

    private static String abbreviated(Map<Integer, String> fds) {
        if (fds.size() <= 10) {
            return fds.toString();
        }
        return fds.entrySet().stream().limit(10).map(String::valueOf)
                .collect(java.util.stream.Collectors.joining(", ", "{", ", ... (" + fds.size() + " in all)}"));
    }

    /**
     * Fails unless the non-blocking channel reads end-of-stream within five seconds. Data that
     * arrives first is read and dropped.
     */
    public static void assertReadsEof(ReadableByteChannel channel, String what) throws IOException {
        if (((SelectableChannel) channel).isBlocking()) {
            throw new IllegalArgumentException("needs a non-blocking channel");
        }
        ByteBuffer buffer = ByteBuffer.allocate(256);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        for (;;) {
            buffer.clear();
            int n = channel.read(buffer);
            if (n < 0) {
                return;
            }
            if (n == 0) {
                if (System.nanoTime() > deadline) {
                    fail(what + ": no end-of-stream within 5 s; the closed end's fd is still open");
                }
                sleep(2);
            }
        }
    }

    public static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }
}
