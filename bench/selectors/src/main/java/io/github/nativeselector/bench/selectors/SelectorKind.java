/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.bench.selectors;

import io.github.nativeselector.NativeSelectorProvider;
import io.github.nativeselector.SelectorStats;
import java.io.IOException;
import java.nio.channels.Selector;
import java.nio.channels.spi.SelectorProvider;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The selectors under comparison, by the names the benchmarks and the harness use. {@link #open}
 * fails unless the selector it got is the one named, so no figure is ever filed under the
 * wrong selector (a native backend that fell back to the JDK's, say).
 *
 * <p>The JDK's poll selector ({@code sun.nio.ch.PollSelectorImpl}) is reached by instantiating
 * {@code sun.nio.ch.PollSelectorProvider} reflectively, which needs
 * {@value #JDK_POLL_JVM_FLAG} on the command line. That keeps every selector reachable in one
 * JVM, whatever {@code java.nio.channels.spi.SelectorProvider} says.
 */
public enum SelectorKind {
    /** native-selector on io_uring. */
    IO_URING(Ids.IO_URING, true, null),
    /** native-selector on epoll. */
    EPOLL(Ids.EPOLL, true, null),
    /** native-selector on AIX's pollset API (emulated on Linux). */
    POLLSET(Ids.POLLSET, true, null),
    /** The JDK's built-in selector on Linux: epoll. */
    JDK(Ids.JDK, false, "sun.nio.ch.EPollSelectorImpl"),
    /** The JDK's poll(2) selector. */
    JDK_POLL(Ids.JDK_POLL, false, "sun.nio.ch.PollSelectorImpl");

    /** The names as constants, for annotations (JMH's {@code @Param}). */
    public static final class Ids {
        public static final String IO_URING = "io_uring";
        public static final String EPOLL = "epoll";
        public static final String POLLSET = "pollset";
        public static final String JDK = "jdk";
        public static final String JDK_POLL = "jdk-poll";

        private Ids() {}
    }

    /** What a JVM needs to open {@link #JDK_POLL}: the JDK's provider is in a package it does not export. */
    public static final String JDK_POLL_JVM_FLAG = "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED";

    private static final String POLL_PROVIDER = "sun.nio.ch.PollSelectorProvider";

    private final String id;
    private final boolean nativeBackend;
    private final String jdkSelectorClass;

    SelectorKind(String id, boolean nativeBackend, String jdkSelectorClass) {
        this.id = id;
        this.nativeBackend = nativeBackend;
        this.jdkSelectorClass = jdkSelectorClass;
    }

    /** The name: the value of {@code nativeselector.backend} for a native backend. */
    public String id() {
        return id;
    }

    /** Whether this is one of native-selector's backends (which have counters and a batch threshold). */
    public boolean isNative() {
        return nativeBackend;
    }

    /** The kind named {@code id}; fails listing the names. */
    public static SelectorKind named(String id) {
        for (SelectorKind kind : values()) {
            if (kind.id.equals(id)) {
                return kind;
            }
        }
        throw new IllegalArgumentException("unknown selector '" + id + "'; expected one of " + names());
    }

    public static String names() {
        return Arrays.stream(values()).map(SelectorKind::id).collect(Collectors.joining(", "));
    }

    /**
     * Opens a selector of this kind; {@code batchThreshold} is {@code nativeselector.batchThreshold}
     * (0: the library's default; the JDK's selectors have none). The native backends read their settings from system
     * properties when a selector is opened, so selectors of different settings must be opened
     * one after another, not concurrently; the properties are put back as they were after each.
     *
     * @throws IOException or a runtime exception saying why when the selector cannot be opened
     * @throws IllegalStateException when the selector opened is not of this kind
     */
    public Selector open(int batchThreshold) throws IOException {
        Selector selector;
        if (this == JDK_POLL) {
            selector = pollProvider().openSelector();
        } else {
            // The library's "jdk" backend is the JDK's built-in selector, whatever the JVM's
            // default provider is.
            Map<String, String> settings = new HashMap<>();
            settings.put("nativeselector.backend", id);
            settings.put("nativeselector.batchThreshold", batchThreshold > 0 ? Integer.toString(batchThreshold) : null);
            selector = SystemProperties.with(settings, () -> new NativeSelectorProvider().openSelector());
        }
        String got = backendOf(selector);
        if (!got.equals(id)) {
            selector.close();
            throw new IllegalStateException("asked for the " + id + " selector, got " + got + " ("
                    + selector.getClass().getName() + ")");
        }
        return selector;
    }

    /**
     * The name of the selector a {@link Selector} is: its backend for a native selector (from
     * {@link SelectorStats}), {@code jdk} or {@code jdk-poll} for the JDK's, else its class.
     */
    public static String backendOf(Selector selector) {
        Optional<SelectorStats> stats = SelectorStats.of(selector);
        if (stats.isPresent()) {
            return stats.get().backend();
        }
        String type = selector.getClass().getName();
        for (SelectorKind kind : values()) {
            if (type.equals(kind.jdkSelectorClass)) {
                return kind.id;
            }
        }
        return type;
    }

    private static SelectorProvider pollProvider() throws IOException {
        try {
            return (SelectorProvider) Class.forName(POLL_PROVIDER).getConstructor().newInstance();
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("the JDK's poll selector needs " + JDK_POLL_JVM_FLAG, e);
        } catch (ReflectiveOperationException e) {
            throw new IOException("this JDK has no " + POLL_PROVIDER + ": " + e, e);
        }
    }
}
