/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.bench.selectors;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;

/**
 * Settings of the library given for one call: it reads them from system properties when a
 * selector or a socket channel is opened, and a JVM that runs several benchmarks one after another
 * must not keep one benchmark's settings for the next.
 */
public final class SystemProperties {

    private SystemProperties() {}

    /** What {@link #with} runs. */
    @FunctionalInterface
    public interface Call<T> {
        T run() throws IOException;
    }

    /**
     * Runs {@code call} with the properties set as {@code values} says (a null value clears one),
     * then puts back what they were before.
     */
    public static <T> T with(Map<String, String> values, Call<T> call) throws IOException {
        Map<String, String> before = new HashMap<>();
        values.forEach((name, value) -> before.put(name, set(name, value)));
        try {
            return call.run();
        } finally {
            before.forEach(SystemProperties::set);
        }
    }

    private static String set(String name, String value) {
        return value == null ? System.clearProperty(name) : System.setProperty(name, value);
    }
}
