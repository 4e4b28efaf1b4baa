/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.internal;

import io.github.nativeselector.support.TestSelectors;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.channels.Selector;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;

/**
 * Run by {@link SelectorOpenFailureTest} in a child JVM with little direct memory: opens and
 * closes an epoll selector, so that the library is loaded, takes every byte of direct memory, then
 * opens epoll selectors again, each of which fails allocating its buffers after its backend is
 * open; then gives back enough for a selector's ready records but not for the batch of a large
 * threshold, and opens such selectors, each of which fails after it was published. Prints
 * {@code failures=} and {@code laterFailures=} (how many did), and before ({@code before=}) and
 * after ({@code after=}) the kernel objects a backend holds (epoll, eventfd, io_uring descriptors),
 * the selectors published as open, and their MBeans.
 */
public final class SelectorOpenFailureProbe {

    private static final int ATTEMPTS = 5;
    /** What is given back, in KiB: the ready records' 16 KiB and then some, not a 64 Ki-change batch's 1.5 MiB. */
    private static final int ROOM_FOR_READY_RECORDS_KIB = 32;
    private static final ObjectName SELECTOR_MBEANS = selectorMBeans();

    private SelectorOpenFailureProbe() {
    }

    public static void main(String[] args) throws IOException {
        TestSelectors.EPOLL_BATCHED.open().close();
        String before = published();
        List<ByteBuffer> taken = new ArrayList<>();
        try {
            for (;;) {
                taken.add(ByteBuffer.allocateDirect(1024));
            }
        } catch (OutOfMemoryError expected) {
            // Direct memory is all taken.
        }
        int failures = 0;
        for (int i = 0; i < ATTEMPTS; i++) {
            try (Selector selector = TestSelectors.EPOLL_BATCHED.open()) {
                System.out.println("opened=" + selector);
            } catch (OutOfMemoryError expected) {
                failures++;
            }
        }
        System.out.println("failures=" + failures);
        taken.subList(0, ROOM_FOR_READY_RECORDS_KIB).clear();
        Config largeThreshold = new Config(BackendChoice.EPOLL, Config.MAX_BATCH_THRESHOLD);
        int laterFailures = 0;
        for (int i = 0; i < ATTEMPTS; i++) {
            try (Selector selector = TestSelectors.open(largeThreshold)) {
                System.out.println("opened=" + selector);
            } catch (OutOfMemoryError expected) {
                laterFailures++;
            }
        }
        System.out.println("laterFailures=" + laterFailures);
        System.out.println("before=" + before);
        System.out.println("after=" + published());
        System.out.println("taken=" + taken.size());
    }

    /** The backend descriptors, the selectors published as open and their MBeans, in one line. */
    private static String published() throws IOException {
        return backendDescriptors() + " descriptors, " + SelectorRegistry.openCount() + " open, "
                + ManagementFactory.getPlatformMBeanServer().queryNames(SELECTOR_MBEANS, null).size() + " MBeans";
    }

    private static ObjectName selectorMBeans() {
        try {
            return new ObjectName(SelectorMBeans.DOMAIN + ":type=Selector,*");
        } catch (MalformedObjectNameException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private static long backendDescriptors() throws IOException {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.map(SelectorOpenFailureProbe::target)
                    .filter(target -> target.equals("anon_inode:[eventpoll]") || target.equals("anon_inode:[eventfd]")
                            || target.equals("anon_inode:[io_uring]"))
                    .count();
        }
    }

    private static String target(Path fd) {
        try {
            return Files.readSymbolicLink(fd).toString();
        } catch (IOException gone) {
            return ""; // the descriptor of the listing itself, closed by now
        }
    }
}
