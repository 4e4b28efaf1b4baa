/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.bench.harness;

import io.github.nativeselector.bench.selectors.SelectorKind;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Where the programs are and where they run: the JVM the Java servers run on, the harness jar
 * (which holds the servers), the load generator and the C server, the CPU each side is pinned
 * to (none: no pinning), and where the logs go.
 */
record Environment(Path serverJava, Path harnessJar, Path loadgen, Path cServer, Integer serverCpu,
        Integer clientCpu, Path logDirectory) {

    private static final String SERVER_MAIN = "io.github.nativeselector.bench.server.ServerMain";

    /**
     * The command line of a server; the same JVM settings for every Java server, with the harness's
     * own {@code java.library.path}, where scripts/bench-backends puts the test build of the native
     * library (on Linux only it has the pollset backend), but for {@code nativeselector.channels}:
     * {@code lean} for a server on lean channels, {@code jdk} for every other, named whatever the
     * library's default is.
     */
    List<String> serverCommand(ServerSpec spec) {
        List<String> command = pinned(serverCpu);
        if (spec.isJava()) {
            command.addAll(List.of(serverJava.toString(), "--enable-native-access=ALL-UNNAMED",
                    SelectorKind.JDK_POLL_JVM_FLAG, "-Djava.library.path=" + System.getProperty("java.library.path"),
                    "-Dnativeselector.channels=" + (spec.leanChannels() ? "lean" : "jdk"), "-Xms1g", "-Xmx1g", "-cp",
                    harnessJar.toString(), SERVER_MAIN));
        } else {
            command.add(cServer.toString());
        }
        command.addAll(spec.arguments());
        return command;
    }

    List<String> loadgenCommand(List<String> arguments) {
        List<String> command = pinned(clientCpu);
        command.add(loadgen.toString());
        command.addAll(arguments);
        return command;
    }

    private static List<String> pinned(Integer cpu) {
        List<String> command = new ArrayList<>();
        if (cpu != null) {
            command.addAll(List.of("taskset", "-c", cpu.toString()));
        }
        return command;
    }
}
