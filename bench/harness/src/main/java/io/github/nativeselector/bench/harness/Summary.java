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
 * under the same server, taking its ready keys the same way ({@link ServerSpec#referenceLabel}),
 * measured in the same run (same experiment, workload and number of selector threads; one thread
 * for the thread-per-connection servers). A ratio is the median of
 * the rounds' paired ratios ({@link PairedRatio}), not the ratio of the two medians.
 */
final class Summary {

    /** The figures whose ratios are listed round by round and checked for agreement. */
    enum PairedFigure {
        CPU("CPU/req", "cpu_per_request", RunRecord::cpuMicrosPerRequest),
        USER_CPU("user", "user_cpu_per_request", RunRecord::userCpuMicrosPerRequest),
        P99("p99", "p99", r -> r.load().p99Micros());

        final String label;
        final String column;
        final Function<RunRecord, Double> figure;

        PairedFigure(String label, String column, Function<RunRecord, Double> figure) {
            this.label = label;
            this.column = column;
            this.figure = figure;
        }
    }

    /** How many times its lowest the server's own CPU per request may be in another round before the row is flagged. */
    static final double CPU_STEADINESS = 2.0;

    /**
     * One row: the runs of the rounds that succeeded, of {@code rounds} run; {@code reference} is
     * the JDK selector's row it is compared with (null when there is none; itself for that row).
     */
    record Row(String experiment, ServerSpec server, Workload workload, String status, int rounds,
            List<RunRecord> okRuns, Row reference) {

        boolean ok() {
            return !okRuns.isEmpty();
        }

        int okRounds() {
            return okRuns.size();
        }

        Double requestsPerSecond() {
            return median(okRuns, RunRecord::requestsPerSecond);
        }

        Double cpuMicrosPerRequest() {
            return median(okRuns, RunRecord::cpuMicrosPerRequest);
        }

        Double userCpuMicrosPerRequest() {
            return median(okRuns, RunRecord::userCpuMicrosPerRequest);
        }

        Double systemCpuMicrosPerRequest() {
            return median(okRuns, RunRecord::systemCpuMicrosPerRequest);
        }

        Double serverCpuPercent() {
            return median(okRuns, RunRecord::serverCpuPercent);
        }

        Double p50Micros() {
            return median(okRuns, r -> r.load().p50Micros());
        }

        Double p99Micros() {
            return median(okRuns, r -> r.load().p99Micros());
        }

        long errors() {
            return okRuns.stream().mapToLong(r -> r.load().errors()).sum();
        }

        Double kernelCallsPerMs() {
            return median(okRuns, RunRecord::kernelCallsPerMillisecond);
        }

        Double changesPerKernelCall() {
            return median(okRuns, RunRecord::changesPerKernelCall);
        }

        Double kernelCallsPerConnection() {
            return median(okRuns, RunRecord::kernelCallsPerConnection);
        }

        /** The median of each selector counter the runs have. */
        Map<String, Double> counters() {
            Map<String, Double> counters = new LinkedHashMap<>();
            for (String name : SelectorStatsFields.NAMES) {
                if (ok() && okRuns.get(0).counters().containsKey(name)) {
                    counters.put(name, median(okRuns, r -> r.counters().get(name).doubleValue()));
                }
            }
            return counters;
        }

        /** Whether this row is the one the others of its workload are compared with. */
        boolean isReference() {
            return reference != null && reference.server().equals(server);
        }

        /** The figure against the reference's, round by round; null without a reference or a round both served. */
        PairedRatio versusReference(Function<RunRecord, Double> figure) {
            return reference == null ? null : PairedRatio.of(okRuns, reference.okRuns(), figure);
        }

        PairedRatio versusReference(PairedFigure figure) {
            return versusReference(figure.figure);
        }

        Double requestsVsJdk() {
            return medianOf(versusReference(RunRecord::requestsPerSecond));
        }

        Double cpuVsJdk() {
            return medianOf(versusReference(PairedFigure.CPU));
        }

        Double userCpuVsJdk() {
            return medianOf(versusReference(PairedFigure.USER_CPU));
        }

        Double p99VsJdk() {
            return medianOf(versusReference(PairedFigure.P99));
        }

        /** Whether any figure's rounds' ratios spread over more than {@link PairedRatio#AGREEMENT} of their median. */
        boolean ratiosDisagree() {
            for (PairedFigure figure : PairedFigure.values()) {
                PairedRatio ratio = versusReference(figure);
                if (ratio != null && ratio.disagrees()) {
                    return true;
                }
            }
            return false;
        }

        /** The server's own CPU per request over the rounds that succeeded; null when none did. */
        Spread cpuOverRounds() {
            return ok() ? Spread.of(okRuns.stream().map(RunRecord::cpuMicrosPerRequest).toList()) : null;
        }

        /** Whether the server's own CPU per request differs more than {@link #CPU_STEADINESS} times between rounds. */
        boolean cpuUnsteady() {
            Spread cpu = cpuOverRounds();
            return cpu != null && cpu.max() > CPU_STEADINESS * cpu.min();
        }

        /** The table's marker: R when the ratios disagree, C when the server's own CPU is unsteady. */
        String flag() {
            return (ratiosDisagree() ? "R" : "") + (cpuUnsteady() ? "C" : "");
        }

        Row withReference(Row reference) {
            return new Row(experiment, server, workload, status, rounds, okRuns, reference);
        }

        private static Double medianOf(PairedRatio ratio) {
            return ratio == null ? null : ratio.median();
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
        return row.experiment() + "|" + row.server().referenceLabel() + "|" + threads + "|0|" + row.workload().label();
    }

    private static Row reduce(List<RunRecord> group) {
        RunRecord first = group.get(0);
        List<RunRecord> ok = group.stream().filter(RunRecord::ok).toList();
        String status = ok.isEmpty() ? first.status() : RunRecord.OK;
        return new Row(first.experiment(), first.server(), first.workload(), status, group.size(), ok, null);
    }

    /** The median of the values that exist; null when none does. */
    static Double median(List<RunRecord> runs, Function<RunRecord, Double> figure) {
        List<Double> values = runs.stream().map(figure).filter(x -> x != null && !x.isNaN()).toList();
        return values.isEmpty() ? null : Spread.of(values).median();
    }

    // ---- the CSV ----------------------------------------------------------------------------

    static final List<String> HEADER = header();

    private static List<String> header() {
        List<String> h = new ArrayList<>(List.of("experiment", "server", "selector", "threads", "threshold", "workload",
                "mode", "connections", "idle", "size", "reply", "think_us", "status", "rounds_ok", "rounds",
                "requests_per_s", "requests_per_s_vs_jdk", "cpu_us_per_request", "cpu_us_per_request_min",
                "cpu_us_per_request_max", "user_cpu_us_per_request", "system_cpu_us_per_request",
                "server_cpu_percent", "p50_us", "p99_us"));
        for (PairedFigure figure : PairedFigure.values()) {
            String name = figure.column + "_vs_jdk";
            h.addAll(List.of(name, name + "_rounds", name + "_min", name + "_max"));
        }
        h.add("errors");
        h.addAll(SelectorStatsFields.NAMES);
        h.addAll(List.of("kernel_calls_per_ms", "changes_per_kernel_call", "kernel_calls_per_connection", "flags",
                "reference"));
        return List.copyOf(h);
    }

    static void writeCsv(List<Row> rows, Path file) throws IOException {
        List<String> lines = new ArrayList<>();
        lines.add(Csv.line(HEADER));
        for (Row r : rows) {
            ServerSpec s = r.server();
            Workload w = r.workload();
            Spread cpu = r.cpuOverRounds();
            List<String> f = new ArrayList<>(List.of(r.experiment(), s.label(), s.selectorColumn(), s.threadsColumn(),
                    s.threshold() > 0 ? Integer.toString(s.threshold()) : "", w.label(), w.mode(),
                    Integer.toString(w.connections()), Integer.toString(w.idle()), Integer.toString(w.size()),
                    Integer.toString(w.reply()), Integer.toString(w.thinkMicros()), r.status(),
                    Integer.toString(r.okRounds()), Integer.toString(r.rounds()),
                    Csv.number(r.requestsPerSecond(), 0), Csv.number(r.requestsVsJdk(), 4),
                    Csv.number(r.cpuMicrosPerRequest(), 3), Csv.number(cpu == null ? null : cpu.min(), 3),
                    Csv.number(cpu == null ? null : cpu.max(), 3), Csv.number(r.userCpuMicrosPerRequest(), 3),
                    Csv.number(r.systemCpuMicrosPerRequest(), 3), Csv.number(r.serverCpuPercent(), 1),
                    Csv.number(r.p50Micros(), 1), Csv.number(r.p99Micros(), 1)));
            for (PairedFigure figure : PairedFigure.values()) {
                PairedRatio ratio = r.versusReference(figure);
                Spread spread = ratio == null ? null : ratio.spread();
                f.addAll(List.of(Csv.number(spread == null ? null : spread.median(), 4),
                        ratio == null ? "" : ratio.perRound(), Csv.number(spread == null ? null : spread.min(), 4),
                        Csv.number(spread == null ? null : spread.max(), 4)));
            }
            f.add(Long.toString(r.errors()));
            Map<String, Double> counters = r.counters();
            for (String name : SelectorStatsFields.NAMES) {
                f.add(Csv.number(counters.get(name), 0));
            }
            f.add(Csv.number(r.kernelCallsPerMs(), 3));
            f.add(Csv.number(r.changesPerKernelCall(), 2));
            f.add(Csv.number(r.kernelCallsPerConnection(), 3));
            f.add(String.join(" ", flagNames(r)));
            f.add(r.reference() == null ? "" : r.reference().server().label() + " x" + r.reference().server().threads());
            lines.add(Csv.line(f));
        }
        Files.write(file, lines, StandardCharsets.UTF_8);
    }

    private static List<String> flagNames(Row r) {
        List<String> names = new ArrayList<>();
        if (r.ratiosDisagree()) {
            names.add("ratios-disagree");
        }
        if (r.cpuUnsteady()) {
            names.add("cpu-unsteady");
        }
        return names;
    }

    // ---- the text tables --------------------------------------------------------------------

    private static final String LINE =
            "  %-18s %7s %9s %-11s %10s %6s %10s %6s %7s %6s %7s %7s %7s %6s %9s %9s %10s %6s %4s%n";

    static void print(List<Row> rows, List<Experiment> experiments, PrintStream out) {
        for (Experiment experiment : experiments) {
            out.println();
            out.println(experiment.title());
            out.printf(Locale.ROOT, LINE, "server", "threads", "threshold", "workload", "requests/s", "vs jdk",
                    "CPU us/req", "vs jdk", "user us", "vs jdk", "sys us", "p50 us", "p99 us", "vs jdk", "kcalls/ms",
                    "chg/kcall", "kcalls/conn", "rounds", "flag");
            List<Row> flagged = new ArrayList<>();
            for (Row r : rows) {
                if (r.experiment().equals(experiment.name())) {
                    printRow(r, out);
                    if (!r.flag().isEmpty()) {
                        flagged.add(r);
                    }
                }
            }
            printFlags(flagged, out);
        }
    }

    private static void printRow(Row r, PrintStream out) {
        ServerSpec s = r.server();
        String threshold = s.threshold() > 0 ? Integer.toString(s.threshold()) : "-";
        String threads = s.threads() == ServerSpec.PER_CONNECTION ? "per-conn" : s.threadsColumn();
        if (!r.ok()) {
            out.printf(Locale.ROOT, "  %-18s %7s %9s %-11s %s%n", s.label(), threads, threshold, r.workload().label(),
                    r.status());
            return;
        }
        out.printf(Locale.ROOT, LINE, s.label(), threads, threshold, r.workload().label(),
                fixed(r.requestsPerSecond(), 0), fixed(r.requestsVsJdk(), 2), fixed(r.cpuMicrosPerRequest(), 2),
                fixed(r.cpuVsJdk(), 2), fixed(r.userCpuMicrosPerRequest(), 2),
                fixed(r.userCpuVsJdk(), 2), fixed(r.systemCpuMicrosPerRequest(), 2),
                fixed(r.p50Micros(), 0), fixed(r.p99Micros(), 0), fixed(r.p99VsJdk(), 2),
                fixed(r.kernelCallsPerMs(), 2), fixed(r.changesPerKernelCall(), 1), fixed(r.kernelCallsPerConnection(), 2),
                r.okRounds() + "/" + r.rounds(), r.flag());
        printRounds(r, out);
    }

    /**
     * Each paired figure's ratio in every round, under the row, when more than one round ran
     * (a round missing from a list failed, or its reference's figure was zero).
     */
    private static void printRounds(Row r, PrintStream out) {
        if (r.reference() == null || r.isReference() || r.rounds() < 2) {
            return;
        }
        String heading = "by round vs " + r.reference().server().label() + ":";
        for (PairedFigure figure : PairedFigure.values()) {
            PairedRatio ratio = r.versusReference(figure);
            if (ratio != null) {
                out.printf(Locale.ROOT, "      %-28s %-8s %s%n", heading, figure.label, ratio.describe());
                heading = "";
            }
        }
    }

    /** A line per flagged row, saying what it is flagged for. */
    private static void printFlags(List<Row> flagged, PrintStream out) {
        if (flagged.isEmpty()) {
            return;
        }
        out.printf(Locale.ROOT, "  flags: R: the rounds' ratios to the reference spread over more than %.0f%% of their"
                + " median; C: the server's own CPU per request differs more than %.0fx between rounds%n",
                100 * PairedRatio.AGREEMENT, CPU_STEADINESS);
        for (Row r : flagged) {
            String what = r.server().label() + (r.server().threads() > 1 ? " x" + r.server().threads() : "") + " "
                    + r.workload().label();
            if (r.ratiosDisagree()) {
                List<String> spreads = new ArrayList<>();
                for (PairedFigure figure : PairedFigure.values()) {
                    PairedRatio ratio = r.versusReference(figure);
                    if (ratio != null && ratio.disagrees()) {
                        spreads.add(figure.label + " " + ratio.rangeAgainstMedian());
                    }
                }
                out.println("  R " + what + ": " + String.join(", ", spreads));
            }
            if (r.cpuUnsteady()) {
                Spread cpu = r.cpuOverRounds();
                // A window too short for one clock tick reads as no CPU at all: no ratio to give then.
                String times = cpu.min() > 0 ? String.format(Locale.ROOT, " (%.1fx)", cpu.max() / cpu.min()) : "";
                out.printf(Locale.ROOT, "  C %s: CPU per request %.2f-%.2f us over the rounds%s%n", what, cpu.min(),
                        cpu.max(), times);
            }
        }
    }

    private static String fixed(Double value, int decimals) {
        return value == null ? "-" : String.format(Locale.ROOT, "%." + decimals + "f", value);
    }
}
