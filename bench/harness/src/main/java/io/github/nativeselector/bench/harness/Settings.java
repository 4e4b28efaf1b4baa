/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.bench.harness;

import java.util.List;

/**
 * How much to measure, from a {@link Mode}'s presets with any overrides from the command line.
 *
 * @param rounds rounds; each runs every trial once (experiment 5 has its own, below)
 * @param jitWarmupSeconds load before the first window of each server process, whose JIT has
 *     compiled nothing yet (Netty's pipeline takes longest)
 * @param warmupSeconds load before each later window of the same process
 * @param measuredSeconds the measured window of each run
 * @param thresholds experiment 1: the batch thresholds swept
 * @param sweepConnections experiment 1: connect-request-response-close slots at once; enough
 *     that many registrations pile up between two selects, or every threshold looks alike
 * @param idleConnections experiment 2: idle connections beside the active ones
 * @param activeBesideIdle experiment 2: the active connections
 * @param selectorThreads experiment 3: selector threads
 * @param threadsExperimentConnections experiment 3: the echo connections they serve
 * @param echoConnections experiment 4: echo connection counts
 * @param echoSize echo request (and reply) size in bytes
 * @param crrConnections experiment 4: connect-request-response-close slots at once (0: no crr in experiment 4)
 * @param paired experiment 5
 */
record Settings(int rounds, double jitWarmupSeconds, double warmupSeconds, double measuredSeconds, List<Integer> thresholds,
        int sweepConnections, List<Integer> idleConnections, int activeBesideIdle, List<Integer> selectorThreads,
        int threadsExperimentConnections, List<Integer> echoConnections, int echoSize, int crrConnections,
        Paired paired) {

    /**
     * Experiment 5, {@code paired}: more rounds than the others, since its ratios are read round
     * by round.
     *
     * @param rounds its rounds
     * @param echoConnections echo connections
     * @param activeBesideIdle active connections beside the idle ones
     * @param idle idle connections beside them
     * @param churnConnections connect-request-response-close slots at once, one workload each
     */
    record Paired(int rounds, int echoConnections, int activeBesideIdle, int idle, List<Integer> churnConnections) {}

    /** Every experiment, {@code paired} included, runs {@code value} rounds. */
    Settings withRounds(int value) {
        return new Settings(value, jitWarmupSeconds, warmupSeconds, measuredSeconds, thresholds, sweepConnections,
                idleConnections, activeBesideIdle, selectorThreads, threadsExperimentConnections, echoConnections, echoSize,
                crrConnections, new Paired(value, paired.echoConnections(), paired.activeBesideIdle(), paired.idle(),
                        paired.churnConnections()));
    }

    Settings withWindow(double jitWarmup, double warmup, double measured) {
        return new Settings(rounds, jitWarmup, warmup, measured, thresholds, sweepConnections, idleConnections,
                activeBesideIdle, selectorThreads, threadsExperimentConnections, echoConnections, echoSize, crrConnections,
                paired);
    }

    Settings withEcho(List<Integer> connections, int size, int crr) {
        return new Settings(rounds, jitWarmupSeconds, warmupSeconds, measuredSeconds, thresholds, sweepConnections, idleConnections,
                activeBesideIdle, selectorThreads, threadsExperimentConnections, connections, size, crr, paired);
    }
}
