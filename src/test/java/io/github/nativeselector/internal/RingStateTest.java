/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.nativeselector.support.TestSelectors;
import java.nio.channels.Selector;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The ring state of an epoll selector, public through {@link NativeSelectors#ringState}, stays
 * readable once the selector is closed: it was read from the freed backend's memory, through a
 * function pointer found there.
 */
class RingStateTest {

    @Test
    void aClosedSelectorsRingStateIsWhatItWasOpen() throws Exception {
        Selector selector = TestSelectors.EPOLL_BATCHED.open();
        Optional<String> open = NativeSelectors.ringState(selector);
        assertTrue(open.isPresent(), "an epoll selector has a ring state");
        selector.close();
        for (int i = 0; i < 1000; i++) {
            // Memory the backend held, taken again by others.
            TestSelectors.EPOLL_BATCHED.open().close();
            assertEquals(open, NativeSelectors.ringState(selector));
        }
    }
}
