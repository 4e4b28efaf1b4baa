/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.contract;

import static io.github.nativeselector.support.ContractSupport.AWAIT_MS;
import static java.nio.channels.SelectionKey.OP_READ;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.nativeselector.support.ContractChannels.PipePair;
import io.github.nativeselector.support.ContractSupport;
import io.github.nativeselector.support.ContractSupport.Background;
import io.github.nativeselector.support.TestSelectors;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.Selector;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A {@code select(Consumer)} whose action throws: the exception reaches the caller, and the
 * selector is left as it would be had the select returned, whatever the order of the ready
 * channel and the wakeup in the kernel's answer: {@code wakeup()}, an interrupt and
 * {@code close()} still end a blocked select.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class SelectThrowsTest {

    private static final String ALL = ContractSupport.ALL;

    @AfterEach
    void clearInterrupt() {
        Thread.interrupted();
    }

    /**
     * Makes the pipe readable before the wakeup, so that epoll lists the channel ahead of the
     * wakeup object, then lets the action throw for the channel.
     */
    private static void selectWithThrowingActionAfterWakeup(Selector sel, PipePair p) throws Exception {
        p.source.configureBlocking(false);
        p.source.register(sel, OP_READ);
        p.sink.write(ByteBuffer.wrap(new byte[] {1}));
        assertEquals(1, sel.select(AWAIT_MS));
        sel.selectedKeys().clear();
        sel.wakeup();
        IllegalStateException thrown = new IllegalStateException("from the action");
        assertSame(thrown, assertThrows(IllegalStateException.class, () -> sel.select(k -> {
            throw thrown;
        })));
        assertEquals(1, p.source.read(ByteBuffer.allocate(16)));
        // The JDK's selector keeps the wakeup for its next select, this one used it up: either
        // way none is pending after a selectNow(), and the next select blocks.
        assertEquals(0, sel.selectNow());
    }

    /** A select that blocks, on a selector with nothing ready. */
    private static Background<Integer> blockedSelect(Selector sel) throws Exception {
        Background<Integer> select = Background.start("select", self -> {
            self.aboutToBlock();
            return sel.select();
        });
        select.awaitBlockedInSelect();
        return select;
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void wakeupStillEndsABlockedSelect(TestSelectors s) throws Exception {
        try (Selector sel = s.open(); PipePair p = PipePair.open()) {
            selectWithThrowingActionAfterWakeup(sel, p);
            for (int round = 0; round < 2; round++) {
                Background<Integer> select = blockedSelect(sel);
                sel.wakeup();
                assertEquals(0, select.get(AWAIT_MS));
            }
        }
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void interruptStillEndsABlockedSelect(TestSelectors s) throws Exception {
        try (Selector sel = s.open(); PipePair p = PipePair.open()) {
            selectWithThrowingActionAfterWakeup(sel, p);
            Background<Integer> select = Background.start("select", self -> {
                self.aboutToBlock();
                sel.select();
                return Thread.currentThread().isInterrupted() ? 1 : 0;
            });
            select.awaitBlockedInSelect();
            select.thread.interrupt();
            assertEquals(1, select.get(AWAIT_MS), "the interrupt status was not kept");
            assertTrue(sel.isOpen());
        }
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void closeStillEndsABlockedSelect(TestSelectors s) throws Exception {
        try (PipePair p = PipePair.open(); Selector sel = s.open()) {
            selectWithThrowingActionAfterWakeup(sel, p);
            try (Background<Integer> select = Background.start("select", self -> {
                self.aboutToBlock();
                try {
                    // The interrupt of Background.close, after a failure, ends the loop too.
                    while (!Thread.currentThread().isInterrupted()) {
                        sel.select();
                    }
                    return 1;
                } catch (ClosedSelectorException closed) {
                    return 0;
                }
            })) {
                select.awaitBlockedInSelect();
                try (Background<Void> close = Background.start("close", self -> {
                    sel.close();
                    return null;
                })) {
                    close.get(AWAIT_MS);
                }
                assertEquals(0, select.get(AWAIT_MS), "the select did not end with ClosedSelectorException");
            }
        }
    }
}
