/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.bench.harness;

import io.github.nativeselector.bench.selectors.SelectorKind;
import java.util.ArrayList;
import java.util.List;

/**
 * One server configuration: its label in the results ({@code nio-epoll}, {@code netty-io_uring},
 * {@code c-epoll}, ...), the server program, the selector it runs on (for {@code nio} and
 * {@code netty-nio}), its threads ({@link #PER_CONNECTION}: a thread per connection), its batch
 * threshold (0: the default), the backend its {@code ready} line must name, or the run is
 * refused, whether the NIO server takes its ready keys through {@code select(Consumer)}
 * rather than the selected-key set, and whether it runs on native-selector's own socket channels
 * ({@code nativeselector.channels=lean}) rather than the JDK's, or the run is refused.
 */
record ServerSpec(String label, String server, SelectorKind selector, int threads, int threshold,
        String expectedBackend, boolean selectWithConsumer, boolean leanChannels) {

    static final String C_EPOLL = "c-epoll";
    static final int PER_CONNECTION = 0;
    /** What the label of a NIO server on {@code select(Consumer)} ends with. */
    private static final String CONSUMER = "-consumer";
    /** What the label of a NIO server on lean channels ends with. */
    private static final String LEAN = "-lean";

    /** The plain NIO server on {@code kind}, {@code threads} selector loops, on the selected-key set. */
    static ServerSpec nio(SelectorKind kind, int threads, int threshold) {
        return new ServerSpec("nio-" + kind.id(), "nio", kind, threads, threshold, kind.id(), false, false);
    }

    /** The plain NIO server on {@code kind}, one selector loop, on {@code select(Consumer)}. */
    static ServerSpec nioWithConsumer(SelectorKind kind) {
        return new ServerSpec("nio-" + kind.id() + CONSUMER, "nio", kind, 1, 0, kind.id(), true, false);
    }

    /** The plain NIO server on {@code kind}, one selector loop, on lean channels. */
    static ServerSpec nioLean(SelectorKind kind) {
        return new ServerSpec("nio-" + kind.id() + LEAN, "nio", kind, 1, 0, kind.id(), false, true);
    }

    /** Netty's NIO transport on native-selector's default backend, epoll. */
    static ServerSpec nettyNio() {
        return new ServerSpec("netty-nio", "netty-nio", SelectorKind.EPOLL, 1, 0, SelectorKind.EPOLL.id(), false,
                false);
    }

    static ServerSpec nettyEpoll() {
        return new ServerSpec("netty-epoll", "netty-epoll", null, 1, 0, "netty-epoll", false, false);
    }

    static ServerSpec nettyIoUring() {
        return new ServerSpec("netty-io_uring", "netty-io_uring", null, 1, 0, "netty-io_uring", false, false);
    }

    static ServerSpec threadPerConnection(boolean virtual) {
        String name = virtual ? "threads-virtual" : "threads-platform";
        return new ServerSpec(name, name, null, PER_CONNECTION, 0, name, false, false);
    }

    static ServerSpec cEpoll() {
        return new ServerSpec(C_EPOLL, C_EPOLL, null, 1, 0, C_EPOLL, false, false);
    }

    /** A spec read back from the columns of a results file. */
    static ServerSpec fromColumns(String label, String selector, String threads, int threshold) {
        String server = label.startsWith("nio-") ? "nio" : label;
        SelectorKind kind = server.equals("nio") || server.equals("netty-nio") ? SelectorKind.named(selector) : null;
        int count = threads.equals("per-connection") ? PER_CONNECTION : Integer.parseInt(threads);
        boolean consumer = server.equals("nio") && label.endsWith(CONSUMER);
        boolean lean = server.equals("nio") && label.endsWith(LEAN);
        return new ServerSpec(label, server, kind, count, threshold, selector, consumer, lean);
    }

    /**
     * The label of the server every row of this one is compared with: the NIO server on the JDK's
     * epoll selector, taking its keys the same way, so that each way is measured against the JDK
     * on the same path.
     */
    String referenceLabel() {
        return "nio-" + SelectorKind.JDK.id() + (selectWithConsumer ? CONSUMER : "");
    }

    boolean isJava() {
        return !server.equals(C_EPOLL);
    }

    /** Whether this is the JDK's epoll selector under the plain NIO server, on either path: a reference of the ratios. */
    boolean isJdkReference() {
        return server.equals("nio") && selector == SelectorKind.JDK;
    }

    /** The selector column of the results: the selector's name, or the server's own mechanism. */
    String selectorColumn() {
        return selector != null ? selector.id() : expectedBackend;
    }

    /** The threads column of the results. */
    String threadsColumn() {
        return threads == PER_CONNECTION ? "per-connection" : Integer.toString(threads);
    }

    /** The server program's own arguments (the C server takes none). */
    List<String> arguments() {
        if (!isJava()) {
            return List.of();
        }
        List<String> args = new ArrayList<>(List.of("--server", server));
        if (threads != PER_CONNECTION) {
            args.addAll(List.of("--threads", Integer.toString(threads)));
        }
        if (selector != null) {
            args.addAll(List.of("--selector", selector.id()));
        }
        if (threshold > 0) {
            args.addAll(List.of("--threshold", Integer.toString(threshold)));
        }
        if (selectWithConsumer) {
            args.addAll(List.of("--ready-keys", "consumer"));
        }
        return args;
    }
}
