/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.install;

import static org.junit.jupiter.api.Assumptions.abort;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A tmpfs mounted over a directory for one child JVM alone: the child runs in a mount namespace
 * of its own ({@code unshare --mount}), so the mount ends with it and nothing changes on the
 * machine. Mounting needs root (CAP_SYS_ADMIN); where it is impossible, the test is aborted
 * (reported as skipped) with the reason.
 */
final class PrivateTmpfs {

    private PrivateTmpfs() {
    }

    /** The launcher that runs the command after it with a tmpfs, mounted with {@code options}, on {@code dir}. */
    static List<String> launcher(Path dir, String options) throws Exception {
        List<String> launcher = List.of("unshare", "--mount", "--propagation", "private", "sh", "-c",
                "mount -t tmpfs -o " + options + " nativeselector-test \"$0\" && exec \"$@\"", dir.toString());
        List<String> trial = new ArrayList<>(launcher);
        trial.add("true");
        Process process;
        try {
            process = new ProcessBuilder(trial).redirectErrorStream(true).start();
        } catch (IOException noUnshare) {
            abort("cannot mount a tmpfs in a private mount namespace here: " + noUnshare.getMessage());
            return launcher;
        }
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (process.waitFor() != 0) {
            abort("cannot mount a tmpfs in a private mount namespace here (needs root): " + output.strip());
        }
        return launcher;
    }
}
