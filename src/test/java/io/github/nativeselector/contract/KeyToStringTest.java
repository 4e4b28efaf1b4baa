/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.contract;

import static java.nio.channels.SelectionKey.OP_WRITE;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.nativeselector.support.ContractChannels.PipePair;
import io.github.nativeselector.support.ContractSupport;
import io.github.nativeselector.support.TestSelectors;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A key's {@code toString()} reads as the JDK's key's does for the same channel in the same state:
 * registered, selected, and cancelled.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class KeyToStringTest {

    @ParameterizedTest
    @MethodSource(ContractSupport.ALL)
    void readsAsTheJdksKey(TestSelectors s) throws Exception {
        try (Selector sel = s.open(); Selector jdk = TestSelectors.JDK.open(); PipePair p = PipePair.open()) {
            p.sink.configureBlocking(false);
            SelectionKey key = p.sink.register(sel, OP_WRITE);
            SelectionKey jdkKey = p.sink.register(jdk, OP_WRITE);
            assertEquals(shape(jdkKey, jdk), shape(key, sel), "registered");
            assertEquals(1, sel.selectNow());
            assertEquals(1, jdk.selectNow());
            assertEquals(shape(jdkKey, jdk), shape(key, sel), "selected");
            assertEquals("channel=" + p.sink + ", selector=" + sel + ", interestOps=" + OP_WRITE + ", readyOps="
                    + OP_WRITE, key.toString());
            key.cancel();
            jdkKey.cancel();
            assertEquals(shape(jdkKey, jdk), shape(key, sel), "cancelled");
        }
    }

    /** The key's text with its selector's own text left out, so that keys of two selectors compare. */
    private static String shape(SelectionKey key, Selector selector) {
        return key.toString().replace(String.valueOf(selector), "<selector>");
    }
}
