/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.nativeselector.support.TestSelectors;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.channels.Pipe;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** A select that finds a ready channel allocates nothing once the JIT has settled. */
class SteadyStateAllocationTest {

    private static final int ROUNDS = 20_000;

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    interface SelectOnce {
        int run(Selector selector) throws IOException;
    }

    @ParameterizedTest
    @MethodSource("io.github.nativeselector.support.TestSelectors#natives")
    void selectWithActionAllocatesNothing(TestSelectors kind) throws IOException {
        assertNoAllocation(kind, selector -> selector.selectNow(key -> { }));
    }

    @ParameterizedTest
    @MethodSource("io.github.nativeselector.support.TestSelectors#natives")
    void selectIntoSelectedKeysAllocatesNothing(TestSelectors kind) throws IOException {
        assertNoAllocation(kind, selector -> {
            int n = selector.selectNow();
            selector.selectedKeys().clear();
            return n;
        });
    }

    private static void assertNoAllocation(TestSelectors kind, SelectOnce select) throws IOException {
        Pipe pipe = Pipe.open();
        try (Selector selector = kind.open(); Pipe.SourceChannel source = pipe.source();
                Pipe.SinkChannel sink = pipe.sink()) {
            source.configureBlocking(false);
            source.register(selector, SelectionKey.OP_READ);
            sink.write(ByteBuffer.wrap(new byte[] {1}));
            for (int i = 0; i < ROUNDS; i++) {
                assertEquals(1, select.run(selector));
            }
            long thread = Thread.currentThread().getId();
            long before = THREADS.getThreadAllocatedBytes(thread);
            int selected = 0;
            for (int i = 0; i < ROUNDS; i++) {
                selected += select.run(selector);
            }
            long allocated = THREADS.getThreadAllocatedBytes(thread) - before;
            assertEquals(ROUNDS, selected);
            // A few hundred bytes of slack for the measurement itself; one object per select would be 320 KB.
            assertTrue(allocated < 4096, allocated + " bytes allocated by " + ROUNDS + " selects");
        }
    }
}
