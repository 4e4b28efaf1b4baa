/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.bench.harness;

import java.util.List;

/**
 * A named set of trials. A trial is one server process, started once per round, and the
 * workloads run against it one after another.
 */
record Experiment(String name, String title, List<Trial> trials) {

    record Trial(ServerSpec server, List<Workload> workloads) {}

    int runsPerRound() {
        return trials.stream().mapToInt(t -> t.workloads().size()).sum();
    }
}
