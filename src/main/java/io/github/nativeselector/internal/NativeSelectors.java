/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.internal;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.channels.Selector;
import java.nio.channels.spi.AbstractSelector;
import java.nio.channels.spi.SelectorProvider;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Opens the selector a {@link Config} asks for. With {@code auto}, a native backend that cannot
 * start gives way to the JDK's built-in selector, and the reason is logged once per JVM.
 */
public final class NativeSelectors {

    private static final System.Logger LOG = System.getLogger("io.github.nativeselector");
    private static final AtomicBoolean FALLBACK_LOGGED = new AtomicBoolean();

    private NativeSelectors() {
    }

    public static AbstractSelector open(SelectorProvider provider, Config config) throws IOException {
        if (config.backend() == BackendChoice.JDK) {
            return BuiltInProvider.get().openSelector();
        }
        try {
            return new NativeSelector(provider, openBackend(config), config.batchThreshold(), config.jmx());
        } catch (IOException | LinkageError e) {
            // LinkageError: a library on java.library.path that lacks one of this version's natives.
            if (config.backend() != BackendChoice.AUTO) {
                throw e;
            }
            AbstractSelector fallback = BuiltInProvider.get().openSelector();
            if (FALLBACK_LOGGED.compareAndSet(false, true)) {
                LOG.log(Level.WARNING, "native selector unavailable, using the JDK's built-in selector: " + e);
            }
            return fallback;
        }
    }

    /**
     * {@code auto} means pollset on AIX and epoll on Linux: io_uring costs less per registration
     * change but more per select and per ready channel (bench/uring-mechanisms), and a server
     * selects far more often than it registers, so io_uring is chosen by name only.
     */
    private static Backend openBackend(Config config) throws IOException {
        BackendChoice choice = config.backend();
        BackendChoice named = choice != BackendChoice.AUTO ? choice
                : NativeLibrary.platform().startsWith("aix-") ? BackendChoice.POLLSET : BackendChoice.EPOLL;
        return NativeBackend.open(named, NativeSelector.READY_CAPACITY, config.epollRing());
    }

    /**
     * Whether the selector's backend sends batches of changes through an io_uring ring of its own
     * (epoll), and if not why; empty for a backend that has no such ring, or the JDK's selector.
     */
    public static Optional<String> ringState(Selector selector) {
        return selector instanceof NativeSelector nativeSelector ? nativeSelector.ringState() : Optional.empty();
    }
}
