/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.bench.harness;

import io.github.nativeselector.bench.selectors.SelectorStatsFields;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs the experiments: every round runs every trial of every experiment once, so that rounds
 * interleave the servers and slow drifts of a shared machine spread over all of them. Each round
 * starts the trials at a different place in the list, so that no server always follows the same
 * one (whose connections may still be closing, or whose TIME_WAIT sockets still fill the
 * kernel's tables). Each run is written to the runs file as soon as it is done.
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
        List<RunRecord> records = new ArrayList<>();
        try (BufferedWriter out = Files.newBufferedWriter(runsFile, StandardCharsets.UTF_8)) {
            out.write(Csv.line(RunRecord.HEADER));
            out.newLine();
            for (int round = 1; round <= settings.rounds(); round++) {
                for (Experiment experiment : experiments) {
                    for (Experiment.Trial trial : inRoundOrder(experiment.trials(), round)) {
                        for (RunRecord record : runTrial(experiment, trial, round)) {
                            records.add(record);
                            out.write(Csv.line(record.csvFields()));
                            out.newLine();
                        }
                        out.flush();
                    }
                }
            }
        }
        return records;
    }

    /** The trials rotated by an equal share of the list per round: round 1 keeps the list's order. */
    private List<Experiment.Trial> inRoundOrder(List<Experiment.Trial> trials, int round) {
        List<Experiment.Trial> order = new ArrayList<>(trials);
        int step = Math.max(1, trials.size() / settings.rounds());
        Collections.rotate(order, -(round - 1) * step);
        return order;
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
        Path log = environment.logDirectory().resolve(String.format("%s-%s-t%s-th%d-r%d.log", experiment.name(),
                spec.label(), spec.threadsColumn(), spec.threshold(), round));
        Files.deleteIfExists(log);
        progress.update(describe(experiment, spec, trial.workloads().get(0)) + " (starting the server)");
        try (ServerProcess server = ServerProcess.start(spec, environment, log)) {
            boolean first = true;
            for (Workload workload : trial.workloads()) {
                progress.starting(describe(experiment, spec, workload));
                double warmup = first ? Math.max(settings.jitWarmupSeconds(), settings.warmupSeconds())
                        : settings.warmupSeconds();
                records.add(measure(experiment.name(), round, spec, workload, server, log, warmup));
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
