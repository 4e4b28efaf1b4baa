/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.memory;

import io.github.nativeselector.support.TestSelectors;
import java.io.IOException;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.channels.Pipe;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Child-JVM main for {@link NativeMemoryTest}: rounds of selector churn (selectors opened,
 * filled with registrations, selected, changed, cancelled and closed; channels closed while
 * registered) on one kind of selector, printing the process's anonymous resident memory
 * ({@code RssAnon}, which leaves out mapped files such as the JDK's class image) every
 * {@code step} rounds once warmed up, as {@code rss=kB,kB,...}.
 */
public final class NativeMemoryProbe {

    private static final int SELECTORS_PER_ROUND = 16;
    private static final int PIPES = 32;
    private static final int CHURNED_PIPES = 8;
    /** Direct memory the probe holds on to between rounds: none of its own. */
    private static final long DIRECT_BYTES_IN_USE = 64 * 1024;

    private NativeMemoryProbe() {
    }

    /** @param args selector name, warm-up rounds, measured rounds, rounds between samples */
    public static void main(String[] args) throws Exception {
        TestSelectors selectors = TestSelectors.valueOf(args[0]);
        int warmUp = Integer.parseInt(args[1]);
        int rounds = Integer.parseInt(args[2]);
        int step = Integer.parseInt(args[3]);
        List<Pipe> pipes = new ArrayList<>();
        for (int i = 0; i < PIPES; i++) {
            Pipe pipe = Pipe.open();
            pipe.source().configureBlocking(false);
            pipe.sink().configureBlocking(false);
            pipes.add(pipe);
        }
        for (int i = 0; i < warmUp; i++) {
            round(selectors, pipes);
        }
        StringBuilder samples = new StringBuilder().append(rssAnonKb());
        for (int i = 1; i <= rounds; i++) {
            round(selectors, pipes);
            if (i % step == 0) {
                samples.append(',').append(rssAnonKb());
            }
        }
        System.out.println("rss=" + samples);
        System.out.println("registrations=" + (long) rounds * SELECTORS_PER_ROUND * (2 * PIPES + CHURNED_PIPES));
        System.out.flush();
    }

    private static void round(TestSelectors selectors, List<Pipe> pipes) throws IOException {
        for (int s = 0; s < SELECTORS_PER_ROUND; s++) {
            try (Selector selector = selectors.open()) {
                List<SelectionKey> keys = new ArrayList<>();
                for (Pipe pipe : pipes) {
                    keys.add(pipe.source().register(selector, SelectionKey.OP_READ));
                    keys.add(pipe.sink().register(selector, SelectionKey.OP_WRITE));
                }
                selector.selectNow();
                selector.selectedKeys().clear();
                for (SelectionKey key : keys) {
                    int ops = key.interestOps();
                    key.interestOps(0);
                    key.interestOps(ops);
                }
                for (int i = 0; i < pipes.size(); i += 4) {
                    pipes.get(i).sink().write(ByteBuffer.wrap(new byte[] {1}));
                }
                selector.select(key -> { }, 1);
                for (int i = 0; i < pipes.size(); i += 4) {
                    pipes.get(i).source().read(ByteBuffer.allocate(1));
                }
                for (int i = 0; i < keys.size(); i += 2) {
                    keys.get(i).cancel();
                }
                selector.selectNow();
                closeWhileRegistered(selector);
            }
        }
    }

    /** Pipes registered and closed: their descriptors are released by the selector. */
    private static void closeWhileRegistered(Selector selector) throws IOException {
        for (int i = 0; i < CHURNED_PIPES; i++) {
            Pipe pipe = Pipe.open();
            pipe.source().configureBlocking(false);
            pipe.source().register(selector, SelectionKey.OP_READ);
            pipe.sink().close();
            pipe.source().close();
        }
        selector.selectNow();
    }

    /** After a full collection, once the direct buffers the selectors dropped are freed. */
    private static long rssAnonKb() throws IOException, InterruptedException {
        BufferPoolMXBean direct = ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class).stream()
                .filter(pool -> pool.getName().equals("direct")).findFirst().orElseThrow();
        System.gc();
        // The buffers' memory is freed by the cleaner thread after the collection, which a busy
        // machine can hold back for long; a sample taken before would count garbage as growth.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (direct.getMemoryUsed() > DIRECT_BYTES_IN_USE) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(direct.getMemoryUsed() + " bytes of direct memory still in use 20 s"
                        + " after a full collection");
            }
            Thread.sleep(10);
        }
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("RssAnon:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", ""));
            }
        }
        throw new IOException("no RssAnon in /proc/self/status");
    }
}
