/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.bench.server;

/** A server thread that fails ends the process: a run must never be measured on a half-dead server. */
final class Fatal {

    private Fatal() {}

    static void fail(String where, Throwable t) {
        System.err.println("server: " + where + " failed:");
        t.printStackTrace();
        System.err.flush();
        Runtime.getRuntime().halt(1);
    }
}
