/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.bench.harness;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** What the results were measured on, for their heading. */
final class Machine {

    private Machine() {}

    /** Kernel, CPU model and the CPUs online, e.g. "Linux 6.18.44 x86_64, 2 CPUs online (0-1), Intel(R) Xeon(R) ...". */
    static String describe() {
        String online = read(Path.of("/sys/devices/system/cpu/online"));
        String model = "";
        try {
            model = Files.readAllLines(Path.of("/proc/cpuinfo")).stream().filter(l -> l.startsWith("model name"))
                    .findFirst().map(l -> l.substring(l.indexOf(':') + 1).strip()).orElse("");
        } catch (IOException e) {
            // left out
        }
        return System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                + System.getProperty("os.arch") + ", CPUs online " + online + (model.isEmpty() ? "" : ", " + model);
    }

    /** The name and version of the JDK at {@code java}, as it reports them. */
    static String jdk(Path java) {
        try {
            Process p = new ProcessBuilder(java.toString(), "-XshowSettings:properties", "-version")
                    .redirectErrorStream(true).start();
            String name = "";
            String version = "";
            for (String line : new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                String l = line.strip();
                if (l.startsWith("java.runtime.name = ")) {
                    name = l.substring("java.runtime.name = ".length());
                } else if (l.startsWith("java.runtime.version = ")) {
                    version = l.substring("java.runtime.version = ".length());
                }
            }
            p.waitFor(30, TimeUnit.SECONDS);
            return (name + " " + version).strip();
        } catch (IOException e) {
            return "unknown (" + e.getMessage() + ")";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "unknown";
        }
    }

    private static String read(Path file) {
        try {
            return Files.readString(file).strip();
        } catch (IOException e) {
            return "?";
        }
    }
}
