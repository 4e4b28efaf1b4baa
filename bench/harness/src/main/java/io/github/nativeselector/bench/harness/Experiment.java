/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.bench.harness;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * A named set of trials, run {@code rounds} times. A trial is one server and the workloads run
 * against it one after another. The server is started afresh for each round, unless
 * {@code longLivedServers}: then every server of the experiment is started once, before the
 * first round, and serves them all.
 */
record Experiment(String name, String title, List<Trial> trials, int rounds, boolean longLivedServers) {

    record Trial(ServerSpec server, List<Workload> workloads) {}

    /** An experiment known only by its name and title: what a report of earlier runs needs. */
    static Experiment titled(String name, String title) {
        return new Experiment(name, title, List.of(), 0, false);
    }

    /** The same experiment with fewer trials (some servers left out) and the title saying so. */
    Experiment withTrials(String newTitle, List<Trial> fewer) {
        return new Experiment(name, newTitle, fewer, rounds, longLivedServers);
    }

    int runsPerRound() {
        return trials.stream().mapToInt(t -> t.workloads().size()).sum();
    }

    /** Every workload of the trials, in the order they first appear. */
    List<Workload> workloads() {
        Set<Workload> workloads = new LinkedHashSet<>();
        for (Trial trial : trials) {
            workloads.addAll(trial.workloads());
        }
        return List.copyOf(workloads);
    }
}
