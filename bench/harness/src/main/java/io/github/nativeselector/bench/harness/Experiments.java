/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.bench.harness;

import io.github.nativeselector.bench.selectors.SelectorKind;
import java.util.ArrayList;
import java.util.List;

/** The five experiments, sized by {@link Settings}. */
final class Experiments {

    static final String THRESHOLD_SWEEP = "threshold-sweep";
    static final String IDLE_SCALE = "idle-scale";
    static final String SELECTOR_THREADS = "selector-threads";
    static final String HEAD_TO_HEAD = "head-to-head";
    static final String PAIRED = "paired";
    static final List<String> NAMES = List.of(THRESHOLD_SWEEP, IDLE_SCALE, SELECTOR_THREADS, HEAD_TO_HEAD, PAIRED);

    private static final List<SelectorKind> NATIVE = List.of(SelectorKind.IO_URING, SelectorKind.EPOLL, SelectorKind.POLLSET);

    private Experiments() {}

    static Experiment named(String name, Settings settings) {
        return switch (name) {
            case THRESHOLD_SWEEP -> thresholdSweep(settings);
            case IDLE_SCALE -> idleScale(settings);
            case SELECTOR_THREADS -> selectorThreads(settings);
            case HEAD_TO_HEAD -> headToHead(settings);
            case PAIRED -> paired(settings);
            default -> throw new IllegalArgumentException("unknown experiment '" + name + "'; expected one of " + NAMES);
        };
    }

    /**
     * 1. Connection churn (crr) on the plain NIO server, one selector thread, at every batch
     * threshold, on each native backend; the JDK's selector (which has no threshold) once, for
     * the ratios.
     */
    static Experiment thresholdSweep(Settings settings) {
        List<Workload> load = List.of(Workload.connectRequestClose(settings.sweepConnections()));
        List<Experiment.Trial> trials = new ArrayList<>();
        for (SelectorKind kind : NATIVE) {
            for (int threshold : settings.thresholds()) {
                trials.add(new Experiment.Trial(ServerSpec.nio(kind, 1, threshold), load));
            }
        }
        trials.add(new Experiment.Trial(ServerSpec.nio(SelectorKind.JDK, 1, 0), load));
        return new Experiment(THRESHOLD_SWEEP, "1. batch threshold sweep under connection churn (crr, "
                + settings.sweepConnections() + " at a time, 64 B request, 8 KiB reply)", trials, settings.rounds(), false);
    }

    /** 2. Echo on a few active connections while more and more idle ones are registered. */
    static Experiment idleScale(Settings settings) {
        List<Workload> loads = new ArrayList<>();
        for (int idle : settings.idleConnections()) {
            loads.add(Workload.echoWithIdle(settings.activeBesideIdle(), idle));
        }
        List<Experiment.Trial> trials = new ArrayList<>();
        for (SelectorKind kind : SelectorKind.values()) {
            trials.add(new Experiment.Trial(ServerSpec.nio(kind, 1, 0), loads));
        }
        return new Experiment(IDLE_SCALE, "2. echo on " + settings.activeBesideIdle()
                + " active connections beside idle ones", trials, settings.rounds(), false);
    }

    /** 3. Echo on many connections: selector threads against a thread per connection. */
    static Experiment selectorThreads(Settings settings) {
        int connections = settings.threadsExperimentConnections();
        List<Workload> load = List.of(Workload.echo(connections, 64));
        List<Experiment.Trial> trials = new ArrayList<>();
        List<SelectorKind> kinds = new ArrayList<>(NATIVE);
        kinds.add(SelectorKind.JDK);
        for (SelectorKind kind : kinds) {
            for (int threads : settings.selectorThreads()) {
                trials.add(new Experiment.Trial(ServerSpec.nio(kind, threads, 0), load));
            }
        }
        trials.add(new Experiment.Trial(ServerSpec.threadPerConnection(false), load));
        trials.add(new Experiment.Trial(ServerSpec.threadPerConnection(true), load));
        return new Experiment(SELECTOR_THREADS, "3. selector threads at " + connections
                + " echo connections, against a thread per connection", trials, settings.rounds(), false);
    }

    /** 4. Every server, echo at several connection counts and connection churn. */
    static Experiment headToHead(Settings settings) {
        List<Workload> loads = new ArrayList<>();
        for (int connections : settings.echoConnections()) {
            loads.add(Workload.echo(connections, settings.echoSize()));
        }
        if (settings.crrConnections() > 0) {
            loads.add(Workload.connectRequestClose(settings.crrConnections()));
        }
        List<Experiment.Trial> trials = new ArrayList<>();
        for (ServerSpec server : everyServer()) {
            trials.add(new Experiment.Trial(server, loads));
        }
        return new Experiment(HEAD_TO_HEAD, "4. head to head: every server, echo and connection churn", trials,
                settings.rounds(), false);
    }

    /**
     * 5. The figures to publish: the NIO server on native-selector's epoll and io_uring against
     * the JDK's selector, on the selected-key set and on {@code select(Consumer)} (each against
     * the JDK on the same path), on epoll with lean channels (what they save on top of the
     * selector), and the C server for the cost without a JVM; echo, echo beside idle
     * connections, and connection churn at two depths. The servers are started once and serve
     * every round, and the rounds are many, so that each ratio is read round by round.
     */
    static Experiment paired(Settings settings) {
        Settings.Paired paired = settings.paired();
        List<Workload> loads = new ArrayList<>(List.of(Workload.echo(paired.echoConnections(), 64),
                Workload.echoWithIdle(paired.activeBesideIdle(), paired.idle())));
        for (int connections : paired.churnConnections()) {
            loads.add(Workload.connectRequestClose(connections));
        }
        List<ServerSpec> servers = List.of(ServerSpec.nio(SelectorKind.JDK, 1, 0), ServerSpec.nio(SelectorKind.EPOLL, 1, 0),
                ServerSpec.nioLean(SelectorKind.EPOLL), ServerSpec.nio(SelectorKind.IO_URING, 1, 0),
                ServerSpec.nioWithConsumer(SelectorKind.JDK), ServerSpec.nioWithConsumer(SelectorKind.EPOLL),
                ServerSpec.cEpoll());
        List<Experiment.Trial> trials = new ArrayList<>();
        for (ServerSpec server : servers) {
            trials.add(new Experiment.Trial(server, loads));
        }
        return new Experiment(PAIRED, "5. paired: the NIO server (on lean channels too) against the JDK's selector on"
                + " the same path, and the C server; servers started once for " + paired.rounds()
                + " interleaved round(s)", trials, paired.rounds(), true);
    }

    /** Every server the harness knows, in the order of the tables. */
    static List<ServerSpec> everyServer() {
        List<ServerSpec> servers = new ArrayList<>();
        for (SelectorKind kind : SelectorKind.values()) {
            servers.add(ServerSpec.nio(kind, 1, 0));
        }
        servers.add(ServerSpec.nioLean(SelectorKind.EPOLL));
        servers.add(ServerSpec.nettyNio());
        servers.add(ServerSpec.nettyEpoll());
        servers.add(ServerSpec.nettyIoUring());
        servers.add(ServerSpec.threadPerConnection(false));
        servers.add(ServerSpec.threadPerConnection(true));
        servers.add(ServerSpec.cEpoll());
        return servers;
    }
}
