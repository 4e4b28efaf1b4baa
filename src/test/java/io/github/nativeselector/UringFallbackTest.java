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
 * by name, io_uring fails saying why; {@code auto} still gives a working native selector.
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
