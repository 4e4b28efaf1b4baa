/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.bench.harness;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Runs the load experiments against the servers and writes the results: {@code runs.csv} (every
 * run), {@code summary.csv} and {@code summary.txt} (medians and ratios against the JDK's
 * selector), {@code plots/*.png}, and the servers' and load generator's logs under {@code logs/}.
 * Exits 1 if any run failed (a server that cannot start here is not a failure: its rows say
 * {@code unavailable: REASON}).
 */
public final class Harness {

    private static final String USAGE = String.join("\n",
            "usage: java -jar native-selector-harness.jar --mode quick|full|smoke --out DIR --loadgen PATH",
            "           --c-server PATH [--server-java PATH] [--server-cpu N --client-cpu N]",
            "           [--experiments LIST] [--servers LIST] [--rounds R] [--warmup S] [--seconds S]",
            "           [--echo-connections LIST] [--echo-size B] [--crr-connections N]",
            "   or: java -jar native-selector-harness.jar --from-runs RUNS_CSV --out DIR",
            "",
            "  --experiments   comma-separated, of " + String.join(", ", Experiments.NAMES) + " (default: all)",
            "  --servers       comma-separated server labels to run (default: all), e.g. nio-epoll,nio-jdk",
            "  --rounds        rounds of every experiment, paired included (default: the mode's)",
            "  --server-java   the java the Java servers run on (default: this one)",
            "  --echo-*, --crr-connections   the workloads of head-to-head (crr 0: none)",
            "  --from-runs     summarise and plot an earlier runs.csv again, into DIR",
            "");

    private Harness() {}

    public static void main(String[] args) throws Exception {
        Options options;
        try {
            options = Options.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("harness: " + e.getMessage());
            System.err.print(USAGE);
            System.exit(64);
            return;
        }
        System.exit(run(options));
    }

    private static int run(Options o) throws IOException {
        if (o.fromRuns != null) {
            return report(o);
        }
        List<Experiment> experiments = new ArrayList<>();
        for (String name : o.experiments) {
            Experiment e = Experiments.named(name, o.settings);
            List<Experiment.Trial> trials = e.trials().stream()
                    .filter(t -> o.servers.isEmpty() || o.servers.contains(t.server().label())).toList();
            if (!trials.isEmpty()) {
                String title = o.servers.isEmpty() ? e.title() : e.title() + "; only " + String.join(", ",
                        trials.stream().map(t -> t.server().label()).distinct().toList());
                experiments.add(e.withTrials(title, trials));
            }
        }
        if (experiments.isEmpty()) {
            System.err.println("harness: nothing to run: no experiment has any of the servers " + o.servers);
            return 64;
        }
        Path logs = Files.createDirectories(o.out.resolve("logs"));
        Files.createDirectories(o.out.resolve("plots"));
        Environment environment = new Environment(o.serverJava, o.harnessJar(), o.loadgen, o.cServer, o.serverCpu,
                o.clientCpu, logs);

        String heading = heading(o, experiments);
        System.out.println(heading);
        int total = experiments.stream().mapToInt(e -> e.rounds() * e.runsPerRound()).sum();
        Progress progress = new Progress(System.out, System.console() != null, total);
        List<RunRecord> runs = new Runner(environment, o.settings, experiments, progress).run(o.out.resolve("runs.csv"));
        progress.close();
        return write(runs, experiments, heading, o.out, logs);
    }

    /** Summarises and plots the runs of an earlier runs file again. */
    private static int report(Options o) throws IOException {
        List<String> lines = Files.readAllLines(o.fromRuns, StandardCharsets.UTF_8);
        if (lines.isEmpty() || !Csv.split(lines.get(0)).equals(RunRecord.HEADER)) {
            System.err.println("harness: " + o.fromRuns + " is not a runs file of this harness (its heading differs)");
            return 64;
        }
        List<RunRecord> runs = lines.stream().skip(1).filter(l -> !l.isBlank()).map(l -> RunRecord.fromCsv(Csv.split(l)))
                .toList();
        List<Experiment> experiments = new ArrayList<>();
        for (String name : Experiments.NAMES) {
            if (runs.stream().anyMatch(r -> r.experiment().equals(name))) {
                experiments.add(Experiment.titled(name, (Experiments.NAMES.indexOf(name) + 1) + ". " + name));
            }
        }
        Files.createDirectories(o.out.resolve("plots"));
        return write(runs, experiments, "native-selector load harness: the runs of " + o.fromRuns, o.out,
                o.out.resolve("logs"));
    }

    private static int write(List<RunRecord> runs, List<Experiment> experiments, String heading, Path out, Path logs)
            throws IOException {
        List<Summary.Row> rows = Summary.of(runs);
        Summary.writeCsv(rows, out.resolve("summary.csv"));
        ByteArrayOutputStream text = new ByteArrayOutputStream();
        try (PrintStream table = new PrintStream(text, true, StandardCharsets.UTF_8)) {
            table.println(heading);
            table.println("  medians over the rounds; vs jdk: the median over the rounds of the figure divided by the"
                    + " reference's in the same round: nio-jdk (nio-jdk-consumer for a -consumer server), the JDK's");
            table.println("  epoll selector under the same server, in the same experiment, workload and selector threads;"
                    + " by round: each round's ratio, then their range;");
            table.println("  user us, sys us: the server's user and system CPU per request; kcalls/ms: system calls for"
                    + " registration changes per ms; chg/kcall: changes per such call;");
            table.println("  kcalls/conn (connection churn only): system calls for registration changes per connection"
                    + " served;");
            table.println("  rounds: rounds that succeeded / rounds run; flag: R, C (explained under the table)");
            Summary.print(rows, experiments, table);
        }
        Files.write(out.resolve("summary.txt"), text.toByteArray());
        System.out.print(text.toString(StandardCharsets.UTF_8));

        List<String> files = new ArrayList<>(List.of("runs.csv", "summary.csv", "summary.txt"));
        Charts.write(rows, out.resolve("plots")).forEach(p -> files.add("plots/" + p.getFileName()));
        System.out.println();
        System.out.println("  results in " + out + ": " + String.join(", ", files));
        long failed = runs.stream().filter(r -> r.status().startsWith("failed")).count();
        if (failed > 0) {
            System.out.println("  " + failed + " run(s) failed; their logs are in " + logs);
            return 1;
        }
        return 0;
    }

    private static String heading(Options o, List<Experiment> experiments) {
        String placement = o.serverCpu == null ? "server and load generator not pinned"
                : "server on CPU " + o.serverCpu + ", load generator on CPU " + o.clientCpu;
        return String.format("native-selector load harness, %s mode (%s; per run %.1f s warm-up, %.1f s on a"
                        + " fresh server, + %.1f s measured), %s%n  %s%n  Java servers on %s; %s",
                o.mode.name().toLowerCase(), rounds(experiments), o.settings.warmupSeconds(),
                o.settings.jitWarmupSeconds(),
                o.settings.measuredSeconds(), LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm")),
                Machine.describe(), Machine.jdk(o.serverJava), placement);
    }

    /** "3 round(s)", or each experiment's rounds when they differ. */
    private static String rounds(List<Experiment> experiments) {
        Set<Integer> counts = experiments.stream().map(Experiment::rounds).collect(Collectors.toSet());
        if (counts.size() == 1) {
            return counts.iterator().next() + " round(s)";
        }
        return "rounds: " + experiments.stream().map(e -> e.name() + " " + e.rounds()).collect(Collectors.joining(", "));
    }

    /** The command line. */
    private static final class Options {
        Mode mode;
        Settings settings;
        Path out;
        Path loadgen;
        Path cServer;
        Path serverJava = Path.of(ProcessHandle.current().info().command().orElse("java"));
        Integer serverCpu;
        Integer clientCpu;
        List<String> experiments = Experiments.NAMES;
        Set<String> servers = Set.of();
        Path fromRuns;

        static Options parse(String[] args) {
            Options o = new Options();
            Integer rounds = null;
            Double warmup = null;
            Double seconds = null;
            List<Integer> echoConnections = null;
            Integer echoSize = null;
            Integer crr = null;
            for (int i = 0; i < args.length; i += 2) {
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException("missing value after " + args[i]);
                }
                String v = args[i + 1];
                switch (args[i]) {
                    case "--mode" -> o.mode = Mode.named(v);
                    case "--out" -> o.out = Path.of(v);
                    case "--loadgen" -> o.loadgen = executable("--loadgen", v);
                    case "--c-server" -> o.cServer = executable("--c-server", v);
                    case "--server-java" -> o.serverJava = executable("--server-java", v);
                    case "--server-cpu" -> o.serverCpu = whole(args[i], v, 0);
                    case "--client-cpu" -> o.clientCpu = whole(args[i], v, 0);
                    case "--experiments" -> o.experiments = list(v);
                    case "--servers" -> o.servers = Set.copyOf(list(v));
                    case "--rounds" -> rounds = whole(args[i], v, 1);
                    case "--warmup" -> warmup = seconds(args[i], v, 0);
                    case "--seconds" -> seconds = seconds(args[i], v, 0.01);
                    case "--echo-connections" -> echoConnections = list(v).stream().map(s -> whole("--echo-connections", s, 1)).toList();
                    case "--echo-size" -> echoSize = whole(args[i], v, 8);
                    case "--crr-connections" -> crr = whole(args[i], v, 0);
                    case "--from-runs" -> o.fromRuns = Path.of(v);
                    default -> throw new IllegalArgumentException("unknown option " + args[i]);
                }
            }
            if (o.fromRuns != null) {
                if (o.out == null) {
                    throw new IllegalArgumentException("--from-runs needs --out");
                }
            } else if (o.mode == null || o.out == null || o.loadgen == null || o.cServer == null) {
                throw new IllegalArgumentException("--mode, --out, --loadgen and --c-server are required");
            }
            if ((o.serverCpu == null) != (o.clientCpu == null)) {
                throw new IllegalArgumentException("give both --server-cpu and --client-cpu, or neither");
            }
            for (String name : o.experiments) {
                if (!Experiments.NAMES.contains(name)) {
                    throw new IllegalArgumentException("unknown experiment '" + name + "'; expected " + Experiments.NAMES);
                }
            }
            if (o.fromRuns != null) {
                return o;
            }
            Settings s = o.mode.settings;
            if (rounds != null) {
                s = s.withRounds(rounds);
            }
            if (warmup != null || seconds != null) {
                s = s.withWindow(warmup != null ? warmup : s.jitWarmupSeconds(), warmup != null ? warmup : s.warmupSeconds(),
                        seconds != null ? seconds : s.measuredSeconds());
            }
            if (echoConnections != null || echoSize != null || crr != null) {
                s = s.withEcho(echoConnections != null ? echoConnections : s.echoConnections(),
                        echoSize != null ? echoSize : s.echoSize(), crr != null ? crr : s.crrConnections());
            }
            o.settings = s;
            return o;
        }

        Path harnessJar() {
            try {
                return Path.of(Harness.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            } catch (java.net.URISyntaxException e) {
                throw new IllegalStateException("cannot tell where the harness jar is", e);
            }
        }

        private static List<String> list(String value) {
            return Arrays.stream(value.split(",")).map(String::strip).filter(s -> !s.isEmpty()).toList();
        }

        private static Path executable(String name, String value) {
            Path path = Path.of(value).toAbsolutePath();
            if (!Files.isExecutable(path)) {
                throw new IllegalArgumentException(name + " " + value + ": not an executable file");
            }
            return path;
        }

        private static int whole(String name, String value, int min) {
            try {
                int v = Integer.parseInt(value);
                if (v >= min) {
                    return v;
                }
            } catch (NumberFormatException e) {
                // reported below
            }
            throw new IllegalArgumentException(name + " " + value + ": expected a whole number of at least " + min);
        }

        private static double seconds(String name, String value, double min) {
            try {
                double v = Double.parseDouble(value);
                if (v >= min && v <= 3600) {
                    return v;
                }
            } catch (NumberFormatException e) {
                // reported below
            }
            throw new IllegalArgumentException(name + " " + value + ": expected seconds from " + min + " to 3600");
        }
    }
}
