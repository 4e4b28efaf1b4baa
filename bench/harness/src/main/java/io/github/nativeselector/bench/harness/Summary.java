/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.bench.harness;

import io.github.nativeselector.bench.selectors.SelectorStatsFields;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * The runs reduced to one row per experiment, server configuration and workload: the median of
 * each figure over the rounds that succeeded, and the ratios against the JDK's epoll selector
 * under the same server, measured in the same run (same experiment, workload and number of
 * selector threads; one thread for the thread-per-connection servers).
 */
final class Summary {

    /** One row; {@code reference} is the JDK selector's row it is compared with (null when there is none). */
    record Row(String experiment, ServerSpec server, Workload workload, String status, int okRounds, int rounds,
            Double requestsPerSecond, Double cpuMicrosPerRequest, Double serverCpuPercent, Double p50Micros,
            Double p99Micros, long errors, Map<String, Double> counters, Double kernelCallsPerMs,
            Double changesPerKernelCall, Row reference) {

        boolean ok() {
            return okRounds > 0;
        }

        Double requestsVsJdk() {
            return ratio(Row::requestsPerSecond);
        }

        Double cpuVsJdk() {
            return ratio(Row::cpuMicrosPerRequest);
        }

        Double p99VsJdk() {
            return ratio(Row::p99Micros);
        }

        private Double ratio(Function<Row, Double> figure) {
            if (reference == null || !reference.ok() || !ok()) {
                return null;
            }
            Double mine = figure.apply(this);
            Double theirs = figure.apply(reference);
            return mine == null || theirs == null || theirs == 0 ? null : mine / theirs;
        }

        Row withReference(Row reference) {
            return new Row(experiment, server, workload, status, okRounds, rounds, requestsPerSecond,
                    cpuMicrosPerRequest, serverCpuPercent, p50Micros, p99Micros, errors, counters, kernelCallsPerMs,
                    changesPerKernelCall, reference);
        }
    }

    private Summary() {}

    static List<Row> of(List<RunRecord> runs) {
        Map<String, List<RunRecord>> groups = new LinkedHashMap<>();
        for (RunRecord run : runs) {
            groups.computeIfAbsent(key(run.experiment(), run.server(), run.workload(), run.server().threads()),
                    k -> new ArrayList<>()).add(run);
        }
        Map<String, Row> rows = new LinkedHashMap<>();
        groups.forEach((key, group) -> rows.put(key, reduce(group)));
        List<Row> result = new ArrayList<>();
        for (Row row : rows.values()) {
            Row reference = rows.get(referenceKey(row, row.server().threads()));
            if (reference == null) {
                reference = rows.get(referenceKey(row, 1));
            }
            result.add(row.withReference(reference));
        }
        return result;
    }

    private static String key(String experiment, ServerSpec server, Workload workload, int threads) {
        return experiment + "|" + server.label() + "|" + threads + "|" + server.threshold() + "|" + workload.label();
    }

    private static String referenceKey(Row row, int threads) {
        return row.experiment() + "|nio-jdk|" + threads + "|0|" + row.workload().label();
    }

    private static Row reduce(List<RunRecord> group) {
        RunRecord first = group.get(0);
        List<RunRecord> ok = group.stream().filter(RunRecord::ok).toList();
        String status = ok.isEmpty() ? first.status() : RunRecord.OK;
        if (ok.isEmpty()) {
            return new Row(first.experiment(), first.server(), first.workload(), status, 0, group.size(), null, null,
                    null, null, null, 0, Map.of(), null, null, null);
        }
        Map<String, Double> counters = new LinkedHashMap<>();
        for (String name : SelectorStatsFields.NAMES) {
            if (ok.get(0).counters().containsKey(name)) {
                counters.put(name, median(ok, r -> r.counters().get(name).doubleValue()));
            }
        }
        return new Row(first.experiment(), first.server(), first.workload(), status, ok.size(), group.size(),
                median(ok, RunRecord::requestsPerSecond), median(ok, RunRecord::cpuMicrosPerRequest),
                median(ok, RunRecord::serverCpuPercent), median(ok, r -> r.load().p50Micros()),
                median(ok, r -> r.load().p99Micros()), group.stream().filter(r -> r.load() != null)
                        .mapToLong(r -> r.load().errors()).sum(), counters,
                median(ok, RunRecord::kernelCallsPerMillisecond), median(ok, RunRecord::changesPerKernelCall), null);
    }

    /** The median of the values that exist; null when none does. */
    static Double median(List<RunRecord> runs, Function<RunRecord, Double> figure) {
        double[] v = runs.stream().map(figure).filter(x -> x != null && !x.isNaN()).mapToDouble(Double::doubleValue)
                .sorted().toArray();
        if (v.length == 0) {
            return null;
        }
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    // ---- the CSV ----------------------------------------------------------------------------

    static final List<String> HEADER = header();

    private static List<String> header() {
        List<String> h = new ArrayList<>(List.of("experiment", "server", "selector", "threads", "threshold", "workload",
                "mode", "connections", "idle", "size", "reply", "think_us", "status", "rounds_ok", "rounds",
                "requests_per_s", "requests_per_s_vs_jdk", "cpu_us_per_request", "cpu_per_request_vs_jdk",
                "server_cpu_percent", "p50_us", "p99_us", "p99_vs_jdk", "errors"));
        h.addAll(SelectorStatsFields.NAMES);
        h.addAll(List.of("kernel_calls_per_ms", "changes_per_kernel_call", "reference"));
        return List.copyOf(h);
    }

    static void writeCsv(List<Row> rows, Path file) throws IOException {
        List<String> lines = new ArrayList<>();
        lines.add(Csv.line(HEADER));
        for (Row r : rows) {
            ServerSpec s = r.server();
            Workload w = r.workload();
            List<String> f = new ArrayList<>(List.of(r.experiment(), s.label(), s.selectorColumn(), s.threadsColumn(),
                    s.threshold() > 0 ? Integer.toString(s.threshold()) : "", w.label(), w.mode(),
                    Integer.toString(w.connections()), Integer.toString(w.idle()), Integer.toString(w.size()),
                    Integer.toString(w.reply()), Integer.toString(w.thinkMicros()), r.status(),
                    Integer.toString(r.okRounds()), Integer.toString(r.rounds()),
                    Csv.number(r.requestsPerSecond(), 0), Csv.number(r.requestsVsJdk(), 4),
                    Csv.number(r.cpuMicrosPerRequest(), 3), Csv.number(r.cpuVsJdk(), 4),
                    Csv.number(r.serverCpuPercent(), 1), Csv.number(r.p50Micros(), 1), Csv.number(r.p99Micros(), 1),
                    Csv.number(r.p99VsJdk(), 4), Long.toString(r.errors())));
            for (String name : SelectorStatsFields.NAMES) {
                f.add(Csv.number(r.counters().get(name), 0));
            }
            f.add(Csv.number(r.kernelCallsPerMs(), 3));
            f.add(Csv.number(r.changesPerKernelCall(), 2));
            f.add(r.reference() == null ? "" : r.reference().server().label() + " x" + r.reference().server().threads());
            lines.add(Csv.line(f));
        }
        Files.write(file, lines, StandardCharsets.UTF_8);
    }

    // ---- the text tables --------------------------------------------------------------------

    private static final String LINE = "  %-17s %7s %9s %-11s %10s %7s %10s %7s %9s %9s %9s %8s %6s%n";

    static void print(List<Row> rows, List<Experiment> experiments, PrintStream out) {
        for (Experiment experiment : experiments) {
            out.println();
            out.println(experiment.title());
            out.printf(Locale.ROOT, LINE, "server", "threads", "threshold", "workload", "requests/s", "vs jdk",
                    "CPU us/req", "vs jdk", "p50 us", "p99 us", "kcalls/ms", "chg/kcall", "rounds");
            for (Row r : rows) {
                if (!r.experiment().equals(experiment.name())) {
                    continue;
                }
                ServerSpec s = r.server();
                String threshold = s.threshold() > 0 ? Integer.toString(s.threshold()) : "-";
                String threads = s.threads() == ServerSpec.PER_CONNECTION ? "per-conn" : s.threadsColumn();
                if (!r.ok()) {
                    out.printf(Locale.ROOT, "  %-17s %7s %9s %-11s %s%n", s.label(), threads, threshold,
                            r.workload().label(), r.status());
                    continue;
                }
                out.printf(Locale.ROOT, LINE, s.label(), threads, threshold, r.workload().label(),
                        fixed(r.requestsPerSecond(), 0), fixed(r.requestsVsJdk(), 2), fixed(r.cpuMicrosPerRequest(), 2),
                        fixed(r.cpuVsJdk(), 2), fixed(r.p50Micros(), 0), fixed(r.p99Micros(), 0),
                        fixed(r.kernelCallsPerMs(), 2), fixed(r.changesPerKernelCall(), 1),
                        r.okRounds() + "/" + r.rounds());
            }
        }
    }

    private static String fixed(Double value, int decimals) {
        return value == null ? "-" : String.format(Locale.ROOT, "%." + decimals + "f", value);
    }
}
