/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.bench.selectors;

import java.nio.channels.Selector;

/**
 * Says which selectors open here, one line each: {@code NAME ok} or
 * {@code NAME unavailable: REASON}. Run with the selector names as arguments (all of them when
 * there are none), and with {@value SelectorKind#JDK_POLL_JVM_FLAG}. The benchmarks then leave
 * out what cannot run, and the results say why.
 */
public final class Probe {

    private Probe() {}

    public static void main(String[] args) {
        String[] names = args.length > 0 ? args
                : java.util.Arrays.stream(SelectorKind.values()).map(SelectorKind::id).toArray(String[]::new);
        for (String name : names) {
            System.out.println(name + " " + probe(name));
        }
    }

    static String probe(String name) {
        try (Selector selector = SelectorKind.named(name).open(0)) {
            return "ok";
        } catch (Exception | LinkageError e) {
            return "unavailable: " + reason(e);
        }
    }

    /** A one-line reason: the exception's message, or its type when it has none. */
    public static String reason(Throwable e) {
        String message = e.getMessage() == null || e.getMessage().isBlank() ? e.toString() : e.getMessage();
        return message.replaceAll("\\s+", " ").strip();
    }
}
