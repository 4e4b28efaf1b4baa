/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.bench.harness;

import io.github.nativeselector.bench.selectors.CpuTime;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A server under test, as a child process: started, checked to run on what it was asked to,
 * asked for its counters, measured through {@code /proc/PID/stat}, stopped. Its stderr goes to
 * a log file.
 */
final class ServerProcess implements AutoCloseable {

    private static final long READY_TIMEOUT_SECONDS = 60;
    private static final long STATS_TIMEOUT_SECONDS = 10;
    /** The exit status of a server that cannot start here (ServerMain's). */
    private static final int UNAVAILABLE = 2;
    /** Where native-selector's own socket channels are: {@code nativeselector.channels=lean} opens them. */
    private static final String LEAN_CHANNELS = "io.github.nativeselector.internal.lean.";

    private final Process process;
    private final Path log;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final OutputStream control;
    private Map<String, String> ready;

    private ServerProcess(Process process, Path log) {
        this.process = process;
        this.log = log;
        this.control = process.getOutputStream();
        Thread reader = new Thread(() -> {
            try {
                process.inputReader(StandardCharsets.UTF_8).lines().forEach(lines::add);
            } catch (RuntimeException e) {
                // the process ended
            }
        }, "server-stdout");
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * Starts the server and waits until it listens; fails unless it runs on the backend the spec
     * expects, and on lean channels when, and only when, the spec asks for them (the library opens
     * the JDK's instead, with a warning in the server's log, where lean ones cannot work).
     */
    static ServerProcess start(ServerSpec spec, Environment environment, Path log) throws RunFailure, IOException {
        ProcessBuilder builder = new ProcessBuilder(environment.serverCommand(spec))
                .redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()));
        ServerProcess server = new ServerProcess(builder.start(), log);
        try {
            server.awaitReady();
            server.awaitFirstReply();
            String backend = server.ready.getOrDefault("backend", "?");
            if (!backend.equals(spec.expectedBackend())) {
                throw RunFailure.failed("asked for " + spec.expectedBackend() + ", the server runs on " + backend
                        + " (" + server.ready.get("mechanism") + ")");
            }
            String channels = server.ready.getOrDefault("channels", "?");
            if (channels.startsWith(LEAN_CHANNELS) != spec.leanChannels()) {
                throw RunFailure.failed("lean channels " + (spec.leanChannels() ? "asked for" : "not asked for")
                        + ", the server listens on " + channels);
            }
            return server;
        } catch (RunFailure | IOException | RuntimeException e) {
            server.close();
            throw e;
        }
    }

    /**
     * Waits until the server has answered one request (an 8-byte echo): a cold JVM on a busy
     * machine can take seconds over its first, which would otherwise fall in a short measured
     * window and read as a server that answers nothing.
     */
    private void awaitFirstReply() throws RunFailure, IOException {
        byte[] request = {0, 0, 0, 8, 0, 0, 0, 8};
        int timeoutMillis = (int) TimeUnit.SECONDS.toMillis(READY_TIMEOUT_SECONDS);
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port()), timeoutMillis);
            socket.setSoTimeout(timeoutMillis);
            socket.getOutputStream().write(request);
            byte[] reply = socket.getInputStream().readNBytes(request.length);
            if (!Arrays.equals(request, reply)) {
                throw RunFailure.failed("the server's first reply was " + Arrays.toString(reply) + ", not the echo of "
                        + Arrays.toString(request));
            }
        } catch (SocketTimeoutException e) {
            throw RunFailure.failed("the server answered no request within " + READY_TIMEOUT_SECONDS + " s");
        }
    }

    private void awaitReady() throws RunFailure, IOException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(READY_TIMEOUT_SECONDS);
        while (System.nanoTime() < deadline) {
            String line = poll(200);
            if (line != null && line.startsWith("ready ")) {
                ready = Fields.parse(line.substring("ready ".length()));
                return;
            }
            if (line == null && !process.isAlive()) {
                int status = waitForExit();
                String reason = lastLine(status == UNAVAILABLE ? "unavailable: " : "");
                if (status == UNAVAILABLE) {
                    throw RunFailure.unavailable(reason.substring("unavailable: ".length()));
                }
                throw RunFailure.failed("the server exited with status " + status + " before listening: " + reason);
            }
        }
        throw RunFailure.failed("the server did not listen within " + READY_TIMEOUT_SECONDS + " s");
    }

    int port() {
        return Integer.parseInt(ready.get("port"));
    }

    String backend() {
        return ready.get("backend");
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /** The server's CPU time so far, all its threads included. */
    CpuTime cpuTime() throws IOException, RunFailure {
        try {
            return CpuTime.read(Path.of("/proc", Long.toString(process.pid()), "stat"));
        } catch (IOException e) {
            if (!process.isAlive()) {
                throw RunFailure.failed("the server exited (status " + process.exitValue() + "): " + lastLine(""));
            }
            throw e;
        }
    }

    /** The server's counters now: empty fields when it keeps none. */
    Map<String, String> counters() throws IOException, RunFailure {
        control.write("stats\n".getBytes(StandardCharsets.UTF_8));
        control.flush();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(STATS_TIMEOUT_SECONDS);
        while (System.nanoTime() < deadline) {
            String line = poll(100);
            if (line != null && (line.equals("stats") || line.startsWith("stats "))) {
                return Fields.parse(line.substring("stats".length()));
            }
            if (line == null && !process.isAlive()) {
                throw RunFailure.failed("the server exited (status " + process.exitValue() + "): " + lastLine(""));
            }
        }
        throw RunFailure.failed("the server did not report its counters within " + STATS_TIMEOUT_SECONDS + " s");
    }

    /** Why the server died, if it did: its exit status and the end of its log. */
    String deathNote() {
        return process.isAlive() ? "" : " (the server exited with status " + process.exitValue() + ": " + lastLine("") + ")";
    }

    private String poll(long millis) {
        try {
            return lines.poll(millis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    private int waitForExit() {
        try {
            return process.waitFor();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    /** The last line of the log that starts with {@code prefix} (any line for ""), or a note that there is none. */
    private String lastLine(String prefix) {
        try {
            List<String> all = Files.readAllLines(log, StandardCharsets.UTF_8);
            for (int i = all.size() - 1; i >= 0; i--) {
                String line = all.get(i).strip();
                if (!line.isEmpty() && line.startsWith(prefix) && !line.startsWith("at ")) {
                    return line;
                }
            }
        } catch (IOException e) {
            return prefix + "(no log: " + e.getMessage() + ")";
        }
        return prefix + "(nothing in " + log.getFileName() + ")";
    }

    @Override
    public void close() {
        try {
            control.write("stop\n".getBytes(StandardCharsets.UTF_8));
            control.close();
        } catch (IOException e) {
            // already gone
        }
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
