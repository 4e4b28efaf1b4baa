/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.bench.server;

import io.github.nativeselector.bench.selectors.Probe;
import io.github.nativeselector.bench.selectors.SelectorKind;
import io.github.nativeselector.bench.selectors.SelectorStatsFields;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

/**
 * Starts one server of the protocol on 127.0.0.1 and talks to the harness on stdin/stdout:
 *
 * <pre>
 * ready port=P server=NAME backend=B mechanism=M channels=C   once listening (the harness checks B and C)
 * stats [backend=... batches=... ...]                        the answer to each "stats" line: the counters now
 * </pre>
 *
 * <p>It stops and exits 0 on a "stop" line or at the end of its input. A server that cannot
 * start prints {@code unavailable: REASON} on stderr and exits 2; a server that fails while
 * running exits 1.
 */
public final class ServerMain {

    static final int BACKLOG = 4096;
    static final int UNAVAILABLE = 2;

    private static final String USAGE = String.join("\n",
            "usage: java -cp native-selector-harness.jar " + ServerMain.class.getName(),
            "           --server nio|netty-nio|netty-epoll|netty-io_uring|threads-platform|threads-virtual",
            "           [--selector " + SelectorKind.names().replace(", ", "|") + "] [--threads 1] [--threshold N]",
            "           [--ready-keys selected-keys|consumer]",
            "--selector and --threshold (default: the library's) apply to nio and netty-nio; --threads to nio and",
            "the netty servers; --ready-keys to nio: the selected-key set (the default) or select(Consumer).",
            "");

    private ServerMain() {}

    public static void main(String[] args) throws Exception {
        String server = null;
        SelectorKind selector = SelectorKind.EPOLL;
        int threads = 1;
        int threshold = 0; // the library's default
        boolean selectWithConsumer = false;
        try {
            for (int i = 0; i < args.length; i += 2) {
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException("missing value after " + args[i]);
                }
                String value = args[i + 1];
                switch (args[i]) {
                    case "--server" -> server = value;
                    case "--selector" -> selector = SelectorKind.named(value);
                    case "--threads" -> threads = positive(args[i], value);
                    case "--threshold" -> threshold = positive(args[i], value);
                    case "--ready-keys" -> selectWithConsumer = consumer(value);
                    default -> throw new IllegalArgumentException("unknown option " + args[i]);
                }
            }
            if (server == null) {
                throw new IllegalArgumentException("--server is required");
            }
        } catch (IllegalArgumentException e) {
            System.err.println("server: " + e.getMessage());
            System.err.print(USAGE);
            System.exit(64);
        }

        Server running;
        try {
            running = start(server, selector, threads, threshold, selectWithConsumer);
        } catch (Exception | LinkageError e) {
            System.err.println("unavailable: " + Probe.reason(e));
            System.exit(UNAVAILABLE);
            return;
        }
        System.out.println("ready port=" + running.port() + " server=" + server + " backend=" + running.backend()
                + " mechanism=" + running.mechanism().replace(' ', '_') + " channels=" + running.channels());
        System.out.flush();

        BufferedReader control = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = control.readLine()) != null && !line.equals("stop")) {
            if (line.equals("stats")) {
                System.out.println(("stats " + running.counters().map(SelectorStatsFields::fields).orElse("")).strip());
                System.out.flush();
            } else {
                System.err.println("server: unknown control line: " + line);
            }
        }
        running.stop();
        System.exit(0);
    }

    private static Server start(String server, SelectorKind selector, int threads, int threshold,
            boolean selectWithConsumer) throws Exception {
        return switch (server) {
            case "nio" -> SelectorServer.start(selector, threads, threshold, selectWithConsumer);
            case "netty-nio" -> NettyServer.start(NettyServer.Transport.NIO, selector, threads, threshold);
            case "netty-epoll" -> NettyServer.start(NettyServer.Transport.EPOLL, selector, threads, threshold);
            case "netty-io_uring" -> NettyServer.start(NettyServer.Transport.IO_URING, selector, threads, threshold);
            case "threads-platform" -> ThreadPerConnectionServer.start(false);
            case "threads-virtual" -> ThreadPerConnectionServer.start(true);
            default -> throw new IllegalArgumentException("unknown server '" + server + "'");
        };
    }

    private static boolean consumer(String readyKeys) {
        return switch (readyKeys) {
            case "selected-keys" -> false;
            case "consumer" -> true;
            default -> throw new IllegalArgumentException("--ready-keys " + readyKeys
                    + ": expected selected-keys or consumer");
        };
    }

    private static int positive(String name, String value) {
        try {
            int v = Integer.parseInt(value);
            if (v >= 1) {
                return v;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException(name + " " + value + ": expected a whole number of at least 1");
    }
}
