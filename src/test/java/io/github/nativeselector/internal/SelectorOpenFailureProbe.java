/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.internal;

import io.github.nativeselector.support.TestSelectors;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.Selector;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Run by {@link SelectorOpenFailureTest} in a child JVM with little direct memory: opens and
 * closes an epoll selector, so that the library is loaded, takes every byte of direct memory, then
 * opens epoll selectors again, each of which fails allocating its buffers after its backend is
 * open. Prints {@code failures=} (how many did) and the kernel objects a backend holds (epoll,
 * eventfd, io_uring descriptors) before ({@code before=}) and after ({@code after=}).
 */
public final class SelectorOpenFailureProbe {

    private static final int ATTEMPTS = 5;

    private SelectorOpenFailureProbe() {
    }

    public static void main(String[] args) throws IOException {
        TestSelectors.EPOLL_BATCHED.open().close();
        long before = backendDescriptors();
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
        System.out.println("before=" + before);
        System.out.println("after=" + backendDescriptors());
        System.out.println("taken=" + taken.size());
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
