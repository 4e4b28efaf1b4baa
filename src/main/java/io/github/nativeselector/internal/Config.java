/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.internal;

import java.util.Arrays;
import java.util.Locale;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The selector's settings, read from system properties when a selector is opened.
 *
 * @param backend which kernel mechanism to use
 * @param batchThreshold queued registration changes that make the queue flush at once, from the
 *     thread that queued the last one; below it, changes wait for the next {@code select}
 * @param jmx whether the selector's counters are published as a JMX MBean
 * @param epollRing whether the epoll backend may send a batch of changes as one
 *     {@code io_uring_enter} (where io_uring allows); without it, one {@code epoll_ctl} each
 */
public record Config(BackendChoice backend, int batchThreshold, boolean jmx, boolean epollRing) {

    public static final String BACKEND_PROPERTY = "nativeselector.backend";
    public static final String THRESHOLD_PROPERTY = "nativeselector.batchThreshold";
    public static final String JMX_PROPERTY = "nativeselector.jmx";
    public static final String EPOLL_RING_PROPERTY = "nativeselector.epollRing";

    /**
     * 64 changes: where the threshold sweep and the churn benchmarks stop gaining (the README's
     * "Why 64"), with room for bursts; a batch then fills one 1.5 KiB buffer, and a thread that
     * fills the queue stalls for at most 64 epoll_ctl calls while it flushes.
     */
    public static final int DEFAULT_BATCH_THRESHOLD = 64;

    /**
     * The largest threshold: a batch of this many changes takes 24 bytes each off-heap (1.5 MiB)
     * and the queue two arrays of references; far beyond where batching stops paying (64), and
     * far below where a heap or the direct-memory limit could refuse it.
     */
    public static final int MAX_BATCH_THRESHOLD = 65_536;

    private static final String THRESHOLD_RANGE = "must be an integer from 1 to " + MAX_BATCH_THRESHOLD;

    public Config {
        if (batchThreshold < 1 || batchThreshold > MAX_BATCH_THRESHOLD) {
            throw new IllegalArgumentException(THRESHOLD_PROPERTY + "=" + batchThreshold + ": " + THRESHOLD_RANGE);
        }
    }

    /** These settings with the selector's counters published through JMX and epoll's ring allowed. */
    public Config(BackendChoice backend, int batchThreshold) {
        this(backend, batchThreshold, true, true);
    }

    /** The settings the system properties ask for; bad values fail naming the property. */
    public static Config fromSystemProperties() {
        return new Config(parseBackend(System.getProperty(BACKEND_PROPERTY, "auto")),
                parseThreshold(System.getProperty(THRESHOLD_PROPERTY)),
                parseBoolean(JMX_PROPERTY, System.getProperty(JMX_PROPERTY, "true")),
                parseBoolean(EPOLL_RING_PROPERTY, System.getProperty(EPOLL_RING_PROPERTY, "true")));
    }

    /** These settings on another backend, without JMX (for a selector opened only to look at it). */
    public Config unpublishedOn(BackendChoice other) {
        return new Config(other, batchThreshold, false, epollRing);
    }

    static boolean parseBoolean(String property, String value) {
        String wanted = value.trim().toLowerCase(Locale.ROOT);
        if (!wanted.equals("true") && !wanted.equals("false")) {
            throw new IllegalArgumentException(property + "=" + value + ": accepted values are true, false");
        }
        return wanted.equals("true");
    }

    static BackendChoice parseBackend(String value) {
        return parseChoice(BACKEND_PROPERTY, value, BackendChoice.values(), BackendChoice::propertyValue);
    }

    /** The choice {@code value} names, whatever its case; a bad value fails naming the property and the accepted ones. */
    static <E extends Enum<E>> E parseChoice(String property, String value, E[] choices, Function<E, String> name) {
        String wanted = value.trim().toLowerCase(Locale.ROOT);
        for (E choice : choices) {
            if (name.apply(choice).equals(wanted)) {
                return choice;
            }
        }
        throw new IllegalArgumentException(property + "=" + value + ": accepted values are "
                + Arrays.stream(choices).map(name).collect(Collectors.joining(", ")));
    }

    static int parseThreshold(String value) {
        if (value == null) {
            return DEFAULT_BATCH_THRESHOLD;
        }
        try {
            return Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(THRESHOLD_PROPERTY + "=" + value + ": " + THRESHOLD_RANGE, e);
        }
    }
}
