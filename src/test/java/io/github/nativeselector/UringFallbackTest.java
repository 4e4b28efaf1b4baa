package io.github.nativeselector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.github.nativeselector.internal.Config;
import io.github.nativeselector.internal.NativeSelector;
import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.Pipe;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * io_uring where it is refused and where it is not. Child JVMs run {@link UringFallbackProbe}
 * under {@code deny_io_uring} (a seccomp launcher built with the native library, which makes
 * io_uring's system calls fail with EPERM as container runtimes' default profiles do): asked for
 * by name, io_uring fails saying why; {@code auto} still gives a working native selector. And in
 * this JVM: a select that finds completions already in the ring makes no system call.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class UringFallbackTest {

    /** Where Maven's surefire configuration puts the launcher's path. */
    static final String LAUNCHER_PROPERTY = "nativeselector.test.denyIoUring";

    private static final String PROVIDER_FLAG = "-Djava.nio.channels.spi.SelectorProvider="
            + NativeSelectorProvider.class.getName();

    @Test
    void ioUringByNameFailsUnderSeccompSayingWhy() throws Exception {
        Child child = Child.run(true, "-D" + Config.BACKEND_PROPERTY + "=io_uring");
        assertEquals(3, child.exitCode(), child::toString);
        assertEquals(NativeSelectorProvider.class.getName(), child.value("provider"), child::toString);
        String error = child.value("error");
        assertNotNull(error, child::toString);
        assertTrue(error.startsWith("java.io.IOException: "), () -> "not an IOException: " + child);
        assertTrue(error.contains("io_uring is unavailable"), () -> "does not say io_uring is unavailable: " + error);
        assertTrue(error.contains("seccomp"), () -> "does not name seccomp as a cause: " + error);
        assertTrue(error.contains("kernel.io_uring_disabled"), () -> "does not name the sysctl: " + error);
        assertTrue(error.contains("errno 1"), () -> "not EPERM: " + error);
        assertFalse(child.stderr().contains("native selector unavailable"),
                () -> "io_uring asked for by name must fail, not fall back: " + child);
    }

    @Test
    void autoUnderSeccompGivesAWorkingNativeSelector() throws Exception {
        Child child = Child.run(true, "-D" + Config.BACKEND_PROPERTY + "=auto");
        assertEquals(0, child.exitCode(), child::toString);
        assertEquals(NativeSelector.class.getName(), child.value("selector"), child::toString);
        assertEquals("epoll", child.value("backend"), child::toString);
        assertEquals("ok rounds=5", child.value("roundtrip"), child::toString);
        assertFalse(child.stderr().contains("native selector unavailable"), child::toString);
    }

    @Test
    void ioUringByNameWorksWithoutTheLauncher() throws Exception {
        Child child = Child.run(false, "-D" + Config.BACKEND_PROPERTY + "=io_uring");
        assertEquals(0, child.exitCode(), () -> "io_uring could not be used on this machine at all, so the "
                + "refusal under seccomp proves nothing: " + child);
        assertEquals(NativeSelector.class.getName(), child.value("selector"), child::toString);
        assertEquals("io_uring", child.value("backend"), child::toString);
        assertEquals("ok rounds=5", child.value("roundtrip"), child::toString);
    }

    /**
     * The backend's promise: completions already in the completion ring are returned with no
     * system call. The polls of 50 pipes are armed by this thread; its own writes to the pipes
     * post the completions (on the way back from each write), so the select that follows finds
     * all 50 in the ring and needs no {@code io_uring_enter}. Each round then drains the pipes and
     * a selectNow re-arms the polls (that one is a system call).
     */
    @Test
    void selectFindingCompletionsInTheRingMakesNoSystemCall() throws IOException {
        final int pipes = 50;
        final int rounds = 10;
        String previous = System.getProperty(Config.BACKEND_PROPERTY);
        List<Pipe> opened = new ArrayList<>();
        try {
            System.setProperty(Config.BACKEND_PROPERTY, "io_uring");
            try (Selector selector = new NativeSelectorProvider().openSelector()) {
                assertEquals("io_uring", SelectorStats.of(selector).orElseThrow().backend());
                for (int i = 0; i < pipes; i++) {
                    Pipe pipe = Pipe.open();
                    opened.add(pipe);
                    pipe.source().configureBlocking(false);
                    pipe.source().register(selector, SelectionKey.OP_READ, pipe);
                }
                assertEquals(0, selector.selectNow()); // applies the registrations: polls armed
                ByteBuffer one = ByteBuffer.allocate(1);
                ByteBuffer sink = ByteBuffer.allocate(16);
                int reported = 0;
                for (int round = 0; round < rounds; round++) {
                    for (Pipe pipe : opened) {
                        one.clear().put((byte) round).flip();
                        assertEquals(1, pipe.sink().write(one));
                    }
                    int[] selected = {0};
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                    while (selected[0] < pipes) {
                        assertTrue(System.nanoTime() - deadline < 0,
                                "round " + round + ": " + selected[0] + " of " + pipes + " pipes selected in 10 s");
                        selector.select(key -> {
                            Pipe pipe = (Pipe) key.attachment();
                            try {
                                sink.clear();
                                if (pipe.source().read(sink) > 0) {
                                    selected[0]++;
                                }
                            } catch (IOException e) {
                                throw new java.io.UncheckedIOException(e);
                            }
                        }, 1000);
                    }
                    reported += selected[0];
                    assertEquals(0, selector.selectNow(), "round " + round + ": drained pipes selected");
                }
                assertEquals(rounds * pipes, reported);
                SelectorStats stats = SelectorStats.of(selector).orElseThrow();
                assertTrue(stats.pollsWithoutSyscall() > 0,
                        () -> "no select found completions waiting in the ring: " + stats);
                assertTrue(stats.pollsWithoutSyscall() <= stats.polls(), stats::toString);
                assertTrue(stats.readyEvents() >= (long) rounds * pipes, stats::toString);
            }
        } finally {
            for (Pipe pipe : opened) {
                pipe.source().close();
                pipe.sink().close();
            }
            if (previous == null) {
                System.clearProperty(Config.BACKEND_PROPERTY);
            } else {
                System.setProperty(Config.BACKEND_PROPERTY, previous);
            }
        }
    }

    // ---- child JVMs ----------------------------------------------------------------------

    /** What a child JVM printed, and how it ended. */
    record Child(List<String> command, int exitCode, String stdout, String stderr) {

        /** Runs {@link UringFallbackProbe} in a child JVM, through the launcher or not. */
        static Child run(boolean denyIoUring, String... jvmArgs) throws Exception {
            List<String> command = new ArrayList<>();
            if (denyIoUring) {
                command.add(launcher());
            }
            command.add(ProcessHandle.current().info().command()
                    .orElse(Paths.get(System.getProperty("java.home"), "bin", "java").toString()));
            command.add("--enable-native-access=ALL-UNNAMED");
            command.add(PROVIDER_FLAG);
            command.addAll(List.of(jvmArgs));
            command.add("-cp");
            command.add(System.getProperty("java.class.path"));
            command.add(UringFallbackProbe.class.getName());
            Path out = Files.createTempFile("uring-fallback-", ".out");
            Path err = Files.createTempFile("uring-fallback-", ".err");
            try {
                ProcessBuilder builder = new ProcessBuilder(command)
                        .redirectOutput(out.toFile())
                        .redirectError(err.toFile())
                        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
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
                return new Child(command, process.exitValue(), read(out), read(err));
            } finally {
                Files.deleteIfExists(out);
                Files.deleteIfExists(err);
            }
        }

        /** The launcher's path, which the build passes in; without it these tests cannot run. */
        private static String launcher() {
            String path = System.getProperty(LAUNCHER_PROPERTY);
            if (path == null || path.isBlank()) {
                fail("system property " + LAUNCHER_PROPERTY + " is not set: it names the deny_io_uring "
                        + "launcher (CMake target deny_io_uring), which mvn test builds and passes in");
            }
            if (!Files.isExecutable(Paths.get(path))) {
                fail(LAUNCHER_PROPERTY + "=" + path + " is not an executable file: build the CMake target "
                        + "deny_io_uring (mvn compile does)");
            }
            return path;
        }

        private static String read(Path file) throws IOException {
            return Files.readString(file, StandardCharsets.UTF_8);
        }

        /** The value of the first {@code key=value} line, or null. */
        String value(String key) {
            for (String line : stdout.split("\\R")) {
                if (line.startsWith(key + "=")) {
                    return line.substring(key.length() + 1);
                }
            }
            return null;
        }

        @Override
        public String toString() {
            return String.join(" ", command) + "\nexit " + exitCode + "\n--- stdout ---\n" + stdout
                    + "--- stderr ---\n" + stderr;
        }
    }
}
