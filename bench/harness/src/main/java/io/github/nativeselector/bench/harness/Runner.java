/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.bench.harness;

import io.github.nativeselector.bench.selectors.CpuTime;
import io.github.nativeselector.bench.selectors.SelectorStatsFields;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Runs the experiments: every round runs every trial of every experiment once, so that rounds
 * interleave the servers and slow drifts of a shared machine spread over all of them. Each round
 * starts the trials at a different place in the list, and every other round runs them in the
 * reverse order, so that a server follows the one before it in the list in odd rounds and the
 * one after it in even rounds, never the same one in every round (whose connections may still be
 * closing, or whose TIME_WAIT sockets still fill the kernel's tables). An experiment with long-lived servers runs after the others, on its own:
 * its servers are started once and serve all its rounds. Each run is written to the runs file
 * as soon as it is done.
 */
final class Runner {

    private final Environment environment;
    private final Settings settings;
    private final List<Experiment> experiments;
    private final Progress progress;
    /** Servers that could not start, by spec, with the reason: not tried again in later rounds. */
    private final Map<ServerSpec, String> unavailable = new HashMap<>();

    Runner(Environment environment, Settings settings, List<Experiment> experiments, Progress progress) {
        this.environment = environment;
        this.settings = settings;
        this.experiments = experiments;
        this.progress = progress;
    }

    List<RunRecord> run(Path runsFile) throws IOException {
        try (RunsFile runs = new RunsFile(runsFile)) {
            runOnFreshServers(experiments.stream().filter(e -> !e.longLivedServers()).toList(), runs);
            for (Experiment experiment : experiments) {
                if (experiment.longLivedServers()) {
                    runOnLongLivedServers(experiment, runs);
                }
            }
            return runs.records();
        }
    }

    /** The experiments' rounds interleaved, each trial on a server process of its own. */
    private void runOnFreshServers(List<Experiment> list, RunsFile runs) throws IOException {
        int rounds = list.stream().mapToInt(Experiment::rounds).max().orElse(0);
        for (int round = 1; round <= rounds; round++) {
            for (Experiment experiment : list) {
                if (round > experiment.rounds()) {
                    continue;
                }
                for (Experiment.Trial trial : inRoundOrder(experiment.trials(), round, experiment.rounds())) {
                    for (RunRecord record : runTrial(experiment, trial, round)) {
                        runs.add(record);
                    }
                }
            }
        }
    }

    /**
     * An experiment whose servers are started once, before its first round, and serve every
     * round. A round runs the workloads one after another, each on every server in turn, starting
     * at a different server each round: a server and its reference are measured a few runs apart
     * in every round, which is what pairs them (A B C A B C).
     */
    private void runOnLongLivedServers(Experiment experiment, RunsFile runs) throws IOException {
        Map<ServerSpec, ServerProcess> servers = new LinkedHashMap<>();
        Map<ServerSpec, String> notStarted = new HashMap<>();
        Set<ServerSpec> served = new HashSet<>();
        try {
            startAll(experiment, servers, notStarted);
            for (int round = 1; round <= experiment.rounds(); round++) {
                for (Workload workload : experiment.workloads()) {
                    List<Experiment.Trial> serving = experiment.trials().stream()
                            .filter(t -> t.workloads().contains(workload)).toList();
                    for (Experiment.Trial trial : inRoundOrder(serving, round, experiment.rounds())) {
                        ServerSpec spec = trial.server();
                        progress.starting(describe(experiment, spec, workload));
                        ServerProcess server = servers.get(spec);
                        if (server == null) {
                            runs.add(RunRecord.withoutFigures(experiment.name(), round, spec, workload,
                                    notStarted.get(spec)));
                        } else if (!server.isAlive()) {
                            runs.add(RunRecord.withoutFigures(experiment.name(), round, spec, workload,
                                    "failed: the server had exited in an earlier run" + server.deathNote()));
                        } else {
                            runs.add(measure(experiment.name(), round, spec, workload, server,
                                    log(experiment, spec, ""), warmupSeconds(served.add(spec))));
                        }
                        progress.finished(1);
                    }
                }
            }
        } finally {
            for (ServerProcess server : servers.values()) {
                server.close();
            }
        }
    }

    /** Starts the experiment's servers: into {@code servers}, or why not into {@code notStarted}. */
    private void startAll(Experiment experiment, Map<ServerSpec, ServerProcess> servers,
            Map<ServerSpec, String> notStarted) throws IOException {
        for (Experiment.Trial trial : experiment.trials()) {
            ServerSpec spec = trial.server();
            Path log = log(experiment, spec, "");
            Files.deleteIfExists(log);
            progress.update(describe(experiment, spec, trial.workloads().get(0)) + " (starting the server)");
            try {
                servers.put(spec, ServerProcess.start(spec, environment, log));
            } catch (RunFailure e) {
                notStarted.put(spec, e.status());
                if (!e.isUnavailable()) {
                    progress.note("  " + spec.label() + ": " + e.status());
                }
            }
        }
    }

    /**
     * The trials from a start that moves by an equal share of the list per round, forwards in odd
     * rounds and backwards in even ones: round 1 keeps the list's order. A rotation alone keeps
     * each trial behind the same one.
     */
    private static List<Experiment.Trial> inRoundOrder(List<Experiment.Trial> trials, int round, int rounds) {
        List<Experiment.Trial> order = new ArrayList<>(trials);
        int start = (round - 1) * Math.max(1, trials.size() / rounds);
        if (round % 2 == 1) {
            Collections.rotate(order, -start);
        } else {
            // From the one after the start to the start, reversed: the start, then the ones before it.
            Collections.rotate(order, -(start + 1));
            Collections.reverse(order);
        }
        return order;
    }

    /** The load before the window: longer on a server process that has served nothing, whose JIT has compiled nothing. */
    private double warmupSeconds(boolean freshServer) {
        return freshServer ? Math.max(settings.jitWarmupSeconds(), settings.warmupSeconds()) : settings.warmupSeconds();
    }

    /** A server's log: one per process, {@code rounds} telling processes of the same server apart. */
    private Path log(Experiment experiment, ServerSpec spec, String rounds) {
        return environment.logDirectory().resolve(String.format("%s-%s-t%s-th%d%s.log", experiment.name(),
                spec.label(), spec.threadsColumn(), spec.threshold(), rounds));
    }

    private List<RunRecord> runTrial(Experiment experiment, Experiment.Trial trial, int round) throws IOException {
        ServerSpec spec = trial.server();
        List<RunRecord> records = new ArrayList<>();
        String known = unavailable.get(spec);
        if (known != null) {
            for (Workload workload : trial.workloads()) {
                records.add(RunRecord.withoutFigures(experiment.name(), round, spec, workload, known));
            }
            progress.finished(trial.workloads().size());
            return records;
        }
        Path log = log(experiment, spec, "-r" + round);
        Files.deleteIfExists(log);
        progress.update(describe(experiment, spec, trial.workloads().get(0)) + " (starting the server)");
        try (ServerProcess server = ServerProcess.start(spec, environment, log)) {
            boolean first = true;
            for (Workload workload : trial.workloads()) {
                progress.starting(describe(experiment, spec, workload));
                records.add(measure(experiment.name(), round, spec, workload, server, log, warmupSeconds(first)));
                progress.finished(1);
                first = false;
            }
        } catch (RunFailure e) {
            if (e.isUnavailable()) {
                unavailable.put(spec, e.status());
            } else {
                progress.note("  " + spec.label() + ": " + e.status());
            }
            for (int i = records.size(); i < trial.workloads().size(); i++) {
                records.add(RunRecord.withoutFigures(experiment.name(), round, spec, trial.workloads().get(i), e.status()));
                progress.finished(1);
            }
        }
        return records;
    }

    private RunRecord measure(String experiment, int round, ServerSpec spec, Workload workload, ServerProcess server,
            Path log, double warmupSeconds) throws IOException {
        CpuTime[] cpu = new CpuTime[2];
        List<Map<String, String>> counters = new ArrayList<>();
        LoadGenerator.Result result;
        try {
            result = LoadGenerator.run(environment, workload, server.port(), warmupSeconds, settings.measuredSeconds(),
                    log, new LoadGenerator.Window() {
                        @Override
                        public void opened() throws IOException, RunFailure {
                            cpu[0] = server.cpuTime();
                            counters.add(server.counters());
                        }

                        @Override
                        public void closed() throws IOException, RunFailure {
                            cpu[1] = server.cpuTime();
                            counters.add(server.counters());
                        }
                    });
        } catch (RunFailure e) {
            String status = e.status() + server.deathNote();
            progress.note("  " + spec.label() + " " + workload.label() + ": " + status);
            return RunRecord.withoutFigures(experiment, round, spec, workload, status);
        }
        if (result.errors() > 0) {
            return RunRecord.withoutFigures(experiment, round, spec, workload, "failed: " + result.errors()
                    + " connection errors (lost, refused, or a wrong reply); see " + log.getFileName());
        }
        if (result.totalRequests() == 0) {
            return RunRecord.withoutFigures(experiment, round, spec, workload, "failed: the server answered no request");
        }
        if (result.requests() == 0) {
            // Served, but nothing finished inside a window too short for this machine: no figures, no failure.
            return RunRecord.withoutFigures(experiment, round, spec, workload, "no request in the measured window");
        }
        CpuTime used = cpu[1].since(cpu[0]);
        return new RunRecord(experiment, round, spec, workload, RunRecord.OK, server.backend(), result,
                used.userSeconds(), used.systemSeconds(), difference(counters.get(0), counters.get(1)));
    }

    private static Map<String, Long> difference(Map<String, String> before, Map<String, String> after) {
        Map<String, Long> change = new HashMap<>();
        for (String name : SelectorStatsFields.NAMES) {
            if (before.containsKey(name) && after.containsKey(name)) {
                change.put(name, Long.parseLong(after.get(name)) - Long.parseLong(before.get(name)));
            }
        }
        return change;
    }

    private static String describe(Experiment experiment, ServerSpec spec, Workload workload) {
        StringBuilder what = new StringBuilder(experiment.name()).append("  ").append(spec.label());
        if (spec.threads() > 1) {
            what.append(" x").append(spec.threads());
        }
        if (spec.threshold() > 0) {
            what.append(" threshold ").append(spec.threshold());
        }
        return what.append("  ").append(workload.label()).toString();
    }
}
