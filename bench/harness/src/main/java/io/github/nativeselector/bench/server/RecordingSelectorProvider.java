/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.bench.server;

import io.github.nativeselector.NativeSelectorProvider;
import io.github.nativeselector.bench.selectors.SelectorKind;
import java.io.IOException;
import java.nio.channels.Selector;
import java.nio.channels.spi.AbstractSelector;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The provider handed to Netty's NIO transport: its selectors are of one {@link SelectorKind}
 * and are kept, so that the server can report their counters; channels are the JDK's own, as
 * {@link NativeSelectorProvider} opens them.
 */
final class RecordingSelectorProvider extends NativeSelectorProvider {

    private final SelectorKind kind;
    private final int batchThreshold;
    private final List<Selector> selectors = new CopyOnWriteArrayList<>();

    RecordingSelectorProvider(SelectorKind kind, int batchThreshold) {
        this.kind = kind;
        this.batchThreshold = batchThreshold;
    }

    List<Selector> selectors() {
        return selectors;
    }

    @Override
    public synchronized AbstractSelector openSelector() throws IOException {
        Selector selector = kind.open(batchThreshold);
        selectors.add(selector);
        return (AbstractSelector) selector;
    }
}
