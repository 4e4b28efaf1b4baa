/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.bench.harness;

import java.io.PrintStream;
import java.util.Locale;

/**
 * The progress line: runs done of all, time so far and an estimate of the time left. On a
 * terminal it rewrites one line; otherwise it prints one line per run.
 */
final class Progress {

    private final PrintStream out;
    private final boolean terminal;
    private final int total;
    private final long started = System.nanoTime();
    private int done;
    private int width;

    Progress(PrintStream out, boolean terminal, int total) {
        this.out = out;
        this.terminal = terminal;
        this.total = total;
    }

    /** Shows that run number {@code done + 1} is starting. */
    void starting(String what) {
        show(what, true);
    }

    /** Shows what is going on before a run starts; only on a terminal, where it costs no line. */
    void update(String what) {
        show(what, false);
    }

    private void show(String what, boolean always) {
        if (!terminal && !always) {
            return;
        }
        double elapsed = (System.nanoTime() - started) / 1e9;
        String left = done == 0 ? "?" : duration(elapsed / done * (total - done));
        String line = String.format(Locale.ROOT, "  [%3d/%d] %s, ~%s left  %s", done + 1, total, duration(elapsed),
                left, what);
        if (terminal) {
            out.print("\r" + line + " ".repeat(Math.max(0, width - line.length())));
            width = line.length();
        } else {
            out.println(line);
        }
        out.flush();
    }

    void finished(int runs) {
        done += runs;
    }

    /** Ends the progress line, so that what follows starts on a line of its own. */
    void close() {
        if (terminal && width > 0) {
            out.println();
        }
    }

    /** Prints a line of its own between progress lines. */
    void note(String line) {
        if (terminal && width > 0) {
            out.println();
            width = 0;
        }
        out.println(line);
    }

    static String duration(double seconds) {
        long s = Math.round(seconds);
        return s >= 60 ? String.format(Locale.ROOT, "%dm%02ds", s / 60, s % 60) : s + "s";
    }
}
