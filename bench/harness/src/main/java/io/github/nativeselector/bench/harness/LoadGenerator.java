/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.bench.harness;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs the C load generator once against a server, and tells the caller when its measured
 * window opens and closes, so that the server's CPU time and counters are read around exactly
 * that window.
 */
final class LoadGenerator {

    /** Time allowed beyond the warm-up and the window: connecting, closing, a slow machine. */
    private static final long SPARE_SECONDS = 60;

    /** What to read at each edge of the measured window. */
    interface Window {
        void opened() throws IOException, RunFailure;

        void closed() throws IOException, RunFailure;
    }

    /** The generator's figures for the window; {@code totalRequests} counts the warm-up too. */
    record Result(long requests, double seconds, double p50Micros, double p99Micros, long errors, long totalRequests) {}

    private LoadGenerator() {}

    static Result run(Environment environment, Workload workload, int port, double warmupSeconds,
            double measuredSeconds, Path log, Window window) throws IOException, RunFailure {
        ProcessBuilder builder = new ProcessBuilder(environment.loadgenCommand(
                workload.loadgenArguments(port, warmupSeconds, measuredSeconds)))
                .redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()));
        Process process = builder.start();
        process.getOutputStream().close();
        long limit = (long) Math.ceil(warmupSeconds + measuredSeconds) + SPARE_SECONDS;
        Thread watchdog = new Thread(() -> {
            try {
                if (!process.waitFor(limit, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                }
            } catch (InterruptedException e) {
                // the run is over
            }
        }, "loadgen-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
        Map<String, String> result = null;
        boolean opened = false;
        try (BufferedReader out = process.inputReader(StandardCharsets.UTF_8)) {
            String line;
            while ((line = out.readLine()) != null) {
                if (line.equals("measuring")) {
                    window.opened();
                    opened = true;
                } else if (line.startsWith("result ")) {
                    window.closed();
                    result = Fields.parse(line.substring("result ".length()));
                }
            }
        } finally {
            watchdog.interrupt();
            if (process.isAlive()) {
                process.destroyForcibly();
            }
        }
        int status;
        try {
            status = process.waitFor();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw RunFailure.failed("interrupted");
        }
        if (status != 0 || result == null || !opened) {
            throw RunFailure.failed("the load generator " + (status != 0 ? "failed (status " + status + ")"
                    : "ended without a result") + "; see " + log.getFileName());
        }
        return new Result(Long.parseLong(result.get("requests")), Double.parseDouble(result.get("seconds")),
                Double.parseDouble(result.get("p50_us")), Double.parseDouble(result.get("p99_us")),
                Long.parseLong(result.get("errors")), Long.parseLong(result.get("total_requests")));
    }
}
