/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.bench.harness;

import io.github.nativeselector.bench.selectors.SelectorStatsFields;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One measured run: a workload against a server in one round, and what came of it. Every figure
 * covers the load generator's measured window; {@code userCpuSeconds} and {@code systemCpuSeconds}
 * are the server process's user and system time over that window, and {@code counters} the
 * change of each of its selector counters (empty for servers without them).
 */
record RunRecord(String experiment, int round, ServerSpec server, Workload workload, String status,
        String backend, LoadGenerator.Result load, double userCpuSeconds, double systemCpuSeconds,
        Map<String, Long> counters) {

    static final String OK = "ok";

    static final List<String> HEADER = header();

    private static List<String> header() {
        List<String> h = new ArrayList<>(List.of("experiment", "round", "server", "selector", "threads", "threshold",
                "workload", "mode", "connections", "idle", "size", "reply", "think_us", "status", "backend",
                "requests", "seconds", "requests_per_s", "cpu_us_per_request", "user_cpu_us_per_request",
                "system_cpu_us_per_request", "server_cpu_percent", "p50_us", "p99_us", "errors"));
        h.addAll(SelectorStatsFields.NAMES);
        h.addAll(List.of("kernel_calls_per_ms", "changes_per_kernel_call", "kernel_calls_per_connection"));
        return List.copyOf(h);
    }

    /** A run that gave no figures. */
    static RunRecord withoutFigures(String experiment, int round, ServerSpec server, Workload workload, String status) {
        return new RunRecord(experiment, round, server, workload, status, "", null, 0, 0, Map.of());
    }

    /** A run read back from a line of the runs file. */
    static RunRecord fromCsv(List<String> f) {
        Map<String, String> v = new HashMap<>();
        for (int i = 0; i < HEADER.size() && i < f.size(); i++) {
            v.put(HEADER.get(i), f.get(i));
        }
        ServerSpec server = ServerSpec.fromColumns(v.get("server"), v.get("selector"), v.get("threads"),
                v.get("threshold").isEmpty() ? 0 : Integer.parseInt(v.get("threshold")));
        Workload workload = new Workload(v.get("workload"), v.get("mode"), Integer.parseInt(v.get("connections")),
                Integer.parseInt(v.get("idle")), Integer.parseInt(v.get("size")), Integer.parseInt(v.get("reply")),
                Integer.parseInt(v.get("think_us")));
        int round = Integer.parseInt(v.get("round"));
        if (v.get("requests").isEmpty() || v.get("requests_per_s").isEmpty()) {
            return withoutFigures(v.get("experiment"), round, server, workload, v.get("status"));
        }
        long requests = Long.parseLong(v.get("requests"));
        LoadGenerator.Result load = new LoadGenerator.Result(requests, Double.parseDouble(v.get("seconds")),
                Double.parseDouble(v.get("p50_us")), Double.parseDouble(v.get("p99_us")),
                Long.parseLong(v.get("errors")), requests);
        double userCpuSeconds = Double.parseDouble(v.get("user_cpu_us_per_request")) * requests / 1e6;
        double systemCpuSeconds = Double.parseDouble(v.get("system_cpu_us_per_request")) * requests / 1e6;
        Map<String, Long> counters = new HashMap<>();
        for (String name : SelectorStatsFields.NAMES) {
            if (!v.get(name).isEmpty()) {
                counters.put(name, Long.parseLong(v.get(name)));
            }
        }
        return new RunRecord(v.get("experiment"), round, server, workload, v.get("status"), v.get("backend"), load,
                userCpuSeconds, systemCpuSeconds, counters);
    }

    boolean ok() {
        return status.equals(OK);
    }

    double requestsPerSecond() {
        return load.requests() / load.seconds();
    }

    double cpuMicrosPerRequest() {
        return userCpuMicrosPerRequest() + systemCpuMicrosPerRequest();
    }

    double userCpuMicrosPerRequest() {
        return userCpuSeconds * 1e6 / load.requests();
    }

    double systemCpuMicrosPerRequest() {
        return systemCpuSeconds * 1e6 / load.requests();
    }

    double serverCpuPercent() {
        return 100 * (userCpuSeconds + systemCpuSeconds) / load.seconds();
    }

    /** System calls for registration changes per millisecond of the window; null without counters. */
    Double kernelCallsPerMillisecond() {
        Long calls = counters.get("kernel_calls_for_changes");
        return calls == null ? null : calls / (load.seconds() * 1000);
    }

    /** Registration changes per system call for them: the batching achieved; null without counters or calls. */
    Double changesPerKernelCall() {
        Long calls = counters.get("kernel_calls_for_changes");
        Long changes = counters.get("changes");
        return calls == null || changes == null || calls == 0 ? null : changes / (double) calls;
    }

    /**
     * Under connection churn, system calls for registration changes per connection served (a
     * request completed in the window is a connection served; those still open when it closes
     * are left out); null for other loads and servers without counters.
     */
    Double kernelCallsPerConnection() {
        Long calls = counters.get("kernel_calls_for_changes");
        return calls == null || !workload.isChurn() ? null : calls / (double) load.requests();
    }

    List<String> csvFields() {
        List<String> f = new ArrayList<>(List.of(experiment, Integer.toString(round), server.label(),
                server.selectorColumn(), server.threadsColumn(), server.threshold() > 0 ? Integer.toString(server.threshold()) : "",
                workload.label(), workload.mode(), Integer.toString(workload.connections()),
                Integer.toString(workload.idle()), Integer.toString(workload.size()), Integer.toString(workload.reply()),
                Integer.toString(workload.thinkMicros()), status, backend));
        if (load == null) {
            while (f.size() < HEADER.size()) {
                f.add("");
            }
            return f;
        }
        f.addAll(List.of(Long.toString(load.requests()), Csv.number(load.seconds(), 3),
                Csv.number(requestsPerSecond(), 0), Csv.number(cpuMicrosPerRequest(), 3),
                Csv.number(userCpuMicrosPerRequest(), 3), Csv.number(systemCpuMicrosPerRequest(), 3),
                Csv.number(serverCpuPercent(), 1), Csv.number(load.p50Micros(), 1), Csv.number(load.p99Micros(), 1),
                Long.toString(load.errors())));
        for (String name : SelectorStatsFields.NAMES) {
            Long value = counters.get(name);
            f.add(value == null ? "" : value.toString());
        }
        f.add(Csv.number(kernelCallsPerMillisecond(), 3));
        f.add(Csv.number(changesPerKernelCall(), 2));
        f.add(Csv.number(kernelCallsPerConnection(), 3));
        return f;
    }
}
