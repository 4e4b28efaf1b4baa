/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.support;

import io.github.nativeselector.NativeSelectorProvider;
import io.github.nativeselector.internal.BackendChoice;
import io.github.nativeselector.internal.Config;
import io.github.nativeselector.internal.NativeSelectors;
import java.io.IOException;
import java.nio.channels.Selector;
import java.util.stream.Stream;

/**
 * The selectors every behavioural test runs against. The JDK's built-in selector is the
 * reference: a test that fails on it is a wrong test.
 */
public enum TestSelectors {
    JDK(BackendChoice.JDK, Config.DEFAULT_BATCH_THRESHOLD),
    EPOLL_UNBATCHED(BackendChoice.EPOLL, 1),
    EPOLL_BATCHED(BackendChoice.EPOLL, Config.DEFAULT_BATCH_THRESHOLD),
    IO_URING_UNBATCHED(BackendChoice.IO_URING, 1),
    IO_URING_BATCHED(BackendChoice.IO_URING, Config.DEFAULT_BATCH_THRESHOLD),
    POLLSET_UNBATCHED(BackendChoice.POLLSET, 1),
    POLLSET_BATCHED(BackendChoice.POLLSET, Config.DEFAULT_BATCH_THRESHOLD);

    private final Config config;

    TestSelectors(BackendChoice backend, int batchThreshold) {
        this.config = new Config(backend, batchThreshold);
    }

    public Selector open() throws IOException {
        return open(config);
    }

    /** A selector as {@link NativeSelectorProvider} opens it for {@code config}. */
    public static Selector open(Config config) throws IOException {
        return NativeSelectors.open(new NativeSelectorProvider(), config);
    }

    public boolean isNative() {
        return config.backend() != BackendChoice.JDK;
    }

    public int batchThreshold() {
        return config.batchThreshold();
    }

    /**
     * Whether the backend takes registration changes while a select polls: AIX's pollset does
     * not ({@code pollset_ctl} waits for {@code pollset_poll}), so its changes wait for the poll's end.
     */
    public boolean appliesDuringPoll() {
        return config.backend() != BackendChoice.POLLSET;
    }

    /**
     * Every selector, for {@code @MethodSource}. In the suite's run on lean channels the JDK's
     * selector is left out: it takes only the JDK's channels, and it is the reference in the run on
     * them.
     */
    public static Stream<TestSelectors> all() {
        return Stream.of(values()).filter(s -> s.isNative() || !LeanRun.active());
    }

    /** The native selectors only, for tests of what the JDK's selector does not have (counters, batching). */
    public static Stream<TestSelectors> natives() {
        return all().filter(TestSelectors::isNative);
    }
}
