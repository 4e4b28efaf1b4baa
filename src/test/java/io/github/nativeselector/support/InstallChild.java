/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.support;

import static org.junit.jupiter.api.Assertions.fail;

import io.github.nativeselector.NativeSelectorProvider;
import io.github.nativeselector.internal.ChannelChoice;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs a main class in a child JVM, bounded in time, and collects what it printed. */
public final class InstallChild {

    /** Where Maven's surefire configuration puts the fail_syscalls launcher's path. */
    public static final String FAIL_SYSCALLS_PROPERTY = "nativeselector.test.failSyscalls";

    public static final String FLAG = "-Djava.nio.channels.spi.SelectorProvider="
            + NativeSelectorProvider.class.getName();

    /** What a child printed, and how it ended. */
    public record Result(int exitCode, String stdout, String stderr) {

        /** The value of the first {@code key=value} line, or null. */
        public String value(String key) {
            for (String line : stdout.split("\\R")) {
                if (line.startsWith(key + "=")) {
                    return line.substring(key.length() + 1);
                }
            }
            return null;
        }

        @Override
        public String toString() {
            return "exit " + exitCode + "\n--- stdout ---\n" + stdout + "--- stderr ---\n" + stderr;
        }
    }

    private InstallChild() {
    }

    public static String javaBinary() {
        return ProcessHandle.current().info().command()
                .orElse(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
    }

    public static String testClassPath() {
        return System.getProperty("java.class.path");
    }

    /** Runs {@code mainClass} with the test class path. */
    public static Result run(List<String> jvmArgs, Class<?> mainClass, String... args) throws Exception {
        return run(testClassPath(), jvmArgs, mainClass, args);
    }

    public static Result run(String classPath, List<String> jvmArgs, Class<?> mainClass, String... args)
            throws Exception {
        return run(List.of(), classPath, jvmArgs, mainClass, args);
    }

    /** Runs {@code mainClass} with the test class path, the java command prefixed with {@code launcher}. */
    public static Result runThrough(List<String> launcher, List<String> jvmArgs, Class<?> mainClass, String... args)
            throws Exception {
        return run(launcher, testClassPath(), jvmArgs, mainClass, args);
    }

    /** Runs {@code mainClass} through {@code launcher}, a program that runs the command after it. */
    public static Result run(List<String> launcher, String classPath, List<String> jvmArgs, Class<?> mainClass,
            String... args) throws Exception {
        return run(launcher, jvmArgs, List.of("-cp", classPath, mainClass.getName()), args);
    }

    /** Runs {@code java -jar jar} with {@code jvmArgs} before {@code -jar}. */
    public static Result runJar(List<String> jvmArgs, Path jar, String... args) throws Exception {
        return run(List.of(), jvmArgs, List.of("-jar", jar.toString()), args);
    }

    /** Runs the JVM with {@code jvmArgs}, then {@code main} (what to run: a class path and class, or a jar). */
    private static Result run(List<String> launcher, List<String> jvmArgs, List<String> main, String... args)
            throws Exception {
        List<String> command = new ArrayList<>(launcher);
        command.add(javaBinary());
        command.add("--enable-native-access=ALL-UNNAMED");
        String channels = System.getProperty(ChannelChoice.PROPERTY);
        if (channels != null) {
            // A suite run with lean channels runs its children with them too.
            command.add("-D" + ChannelChoice.PROPERTY + "=" + channels);
        }
        command.addAll(jvmArgs);
        command.addAll(main);
        command.addAll(List.of(args));
        Path out = Files.createTempFile("install-child-", ".out");
        Path err = Files.createTempFile("install-child-", ".err");
        try {
            ProcessBuilder builder = new ProcessBuilder(command)
                    .redirectOutput(out.toFile())
                    .redirectError(err.toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
            builder.environment().remove("JAVA_TOOL_OPTIONS");
            builder.environment().remove("_JAVA_OPTIONS");
            builder.environment().remove("JDK_JAVA_OPTIONS");
            Process process = builder.start();
            try {
                if (!process.waitFor(60, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                    process.waitFor(10, TimeUnit.SECONDS);
                    fail("child JVM did not finish in 60 s: " + command + "\n" + read(out) + read(err));
                }
            } finally {
                if (process.isAlive()) {
                    process.destroyForcibly();
                }
            }
            return new Result(process.exitValue(), read(out), read(err));
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    /** The launcher that refuses io_uring's system calls (EPERM), as a container's default seccomp profile does. */
    public static List<String> denyIoUringLauncher() {
        return failingSyscalls("EPERM:io_uring_setup", "EPERM:io_uring_enter", "EPERM:io_uring_register");
    }

    /**
     * The seccomp launcher (CMake target fail_syscalls, whose path Maven's surefire configuration
     * passes in) that makes the system calls {@code rules} name fail: each rule is
     * {@code ERRNO:NAME} or {@code ERRNO:NAME:ARG=VALUE} (ERRNO KILL kills the process instead), as
     * src/test/native/fail_syscalls.c says.
     */
    public static List<String> failingSyscalls(String... rules) {
        String path = System.getProperty(FAIL_SYSCALLS_PROPERTY);
        if (path == null || path.isBlank()) {
            fail("system property " + FAIL_SYSCALLS_PROPERTY + " is not set: it names the fail_syscalls "
                    + "launcher (CMake target fail_syscalls), which mvn test builds and passes in");
        }
        if (!Files.isExecutable(Paths.get(path))) {
            fail(FAIL_SYSCALLS_PROPERTY + "=" + path + " is not an executable file: build the CMake target "
                    + "fail_syscalls (mvn compile does)");
        }
        List<String> launcher = new ArrayList<>();
        launcher.add(path);
        launcher.addAll(List.of(rules));
        launcher.add("--");
        return launcher;
    }

    private static String read(Path file) throws IOException {
        return Files.readString(file, StandardCharsets.UTF_8);
    }
}
