/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.bench.server;

import io.github.nativeselector.SelectorStats;
import io.github.nativeselector.bench.selectors.SelectorKind;
import io.github.nativeselector.bench.selectors.SelectorStatsFields;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The plain NIO server: {@code threads} selector loops on selectors of one kind, taking ready
 * keys from the selected-key set or through {@code select(Consumer)}. The first loop also
 * accepts, and deals new connections round the loops.
 */
final class SelectorServer implements Server {

    private final ServerSocketChannel listener;
    private final List<Selector> selectors;
    private final List<SelectorLoop> loops;

    private SelectorServer(ServerSocketChannel listener, List<Selector> selectors, List<SelectorLoop> loops) {
        this.listener = listener;
        this.selectors = selectors;
        this.loops = loops;
    }

    static SelectorServer start(SelectorKind kind, int threads, int batchThreshold, boolean selectWithConsumer)
            throws IOException {
        List<Selector> selectors = new ArrayList<>();
        ServerSocketChannel listener = null;
        try {
            for (int i = 0; i < threads; i++) {
                selectors.add(kind.open(batchThreshold));
            }
            // From the selector's provider, as an application on native-selector gets its channels: with
            // nativeselector.channels=lean, native-selector's own rather than the JDK's.
            listener = selectors.get(0).provider().openServerSocketChannel();
            listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), ServerMain.BACKLOG);
            listener.configureBlocking(false);
        } catch (IOException | RuntimeException e) {
            for (Selector selector : selectors) {
                selector.close();
            }
            if (listener != null) {
                listener.close();
            }
            throw e;
        }
        List<SelectorLoop> loops = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            loops.add(new SelectorLoop(i, selectors.get(i), loops, selectWithConsumer));
        }
        loops.get(0).accept(listener);
        for (SelectorLoop loop : loops) {
            loop.start();
        }
        return new SelectorServer(listener, selectors, loops);
    }

    @Override
    public int port() {
        return listener.socket().getLocalPort();
    }

    @Override
    public String backend() {
        return SelectorKind.backendOf(selectors.get(0));
    }

    @Override
    public String mechanism() {
        return selectors.get(0).getClass().getName();
    }

    @Override
    public String channels() {
        return listener.getClass().getName();
    }

    @Override
    public Optional<SelectorStats> counters() {
        return SelectorStatsFields.of(selectors);
    }

    @Override
    public void stop() throws InterruptedException {
        for (SelectorLoop loop : loops) {
            loop.stop();
        }
    }
}
