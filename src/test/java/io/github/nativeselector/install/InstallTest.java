/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.install;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.nativeselector.NativeSelectorProvider;
import io.github.nativeselector.internal.NativeSelector;
import io.github.nativeselector.support.InstallChild;
import io.github.nativeselector.support.LeanRun;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The ways an application installs the provider, each in a fresh JVM: the system property, the
 * services file, {@code -Dnativeselector.backend=jdk}, and the JDK's HTTP client and server on it.
 * {@link WithoutLibraryTest} installs it where the native library cannot be used.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class InstallTest {

    private static final String PROVIDER = NativeSelectorProvider.class.getName();
    private static final String NATIVE_SELECTOR = NativeSelector.class.getName();
    private static final Pattern COUNTERS = Pattern.compile("polls=(\\d+) readyEvents=(\\d+) changesApplied=(\\d+)");

    @Test
    void systemPropertyInstallsTheNativeSelector() throws Exception {
        InstallChild.Result child = InstallChild.run(List.of(InstallChild.FLAG), InstallProbe.class);
        assertNativeProbe(child);
    }

    @Test
    void servicesFileInstallsTheNativeSelectorWithoutAnyFlag() throws Exception {
        InstallChild.Result child = InstallChild.run(List.of(), InstallProbe.class);
        assertNativeProbe(child);
    }

    @Test
    void backendJdkGivesTheJdkSelectorWhichStillWorks() throws Exception {
        InstallChild.Result child = InstallChild.run(
                List.of(InstallChild.FLAG, "-Dnativeselector.backend=jdk"), InstallProbe.class);
        assertEquals(0, child.exitCode(), child::toString);
        assertEquals(PROVIDER, child.value("provider"), child::toString);
        assertJdkSelector(child.value("selector"), child);
        assertEquals("ok rounds=20", child.value("echo"), child::toString);
        assertEquals("absent", child.value("stats"), child::toString);
        // Lean channels, which the JDK's selector cannot take, give way to the JDK's, saying so.
        assertEquals(LeanRun.requested(), child.stderr().contains(LeanRun.FALLBACK_WARNING), child::toString);
        assertTrue(LeanRun.withoutFallbackWarning(child.stderr()).isBlank(), child::toString);
    }

    @Test
    void jdkHttpClientAndServerRunOnTheNativeSelectorUnderTheFlag() throws Exception {
        InstallChild.Result child = InstallChild.run(List.of(InstallChild.FLAG), InstallHttpProbe.class);
        assertEquals(0, child.exitCode(), child::toString);
        assertEquals(PROVIDER, child.value("provider"), child::toString);
        List<String> lines = List.of(child.stdout().split("\\R"));
        assertEquals(List.of("200", "200", "200"), valuesOf(lines, "status"), child::toString);
        assertEquals(List.of("hello, name=probe", "hello, name=probe", "hello, name=probe"),
                valuesOf(lines, "body"), child::toString);
        String threads = child.value("nativeSelectorThreads");
        assertNotNull(threads, child::toString);
        assertTrue(threads.contains("SelectorManager"), () -> "HttpClient's selector thread is not in a native selector: "
                + child);
        assertTrue(threads.contains("HTTP-Dispatcher"), () -> "HttpServer's dispatcher is not in a native selector: "
                + child);
        // Client and server each wait for every response and request to be ready.
        Map<String, Long> totals = SelectorTotals.parse(child.value("totals"));
        assertTrue(totals.getOrDefault("selectorsOpened", 0L) >= 2, () -> "client and server selectors: " + child);
        assertTrue(totals.get("readyEvents") >= 6, () -> "ready events counted by the native selectors: " + child);
        assertTrue(child.stderr().isBlank(), child::toString);
    }

    // ---- helpers -------------------------------------------------------------------------

    private static void assertNativeProbe(InstallChild.Result child) {
        assertEquals(0, child.exitCode(), child::toString);
        assertEquals(PROVIDER, child.value("provider"), child::toString);
        assertEquals(NATIVE_SELECTOR, child.value("selector"), child::toString);
        assertEquals(NATIVE_SELECTOR, child.value("second"), child::toString);
        assertEquals("ok rounds=20", child.value("echo"), child::toString);
        assertEquals("present", child.value("stats"), child::toString);
        Matcher counters = COUNTERS.matcher(child.stdout());
        assertTrue(counters.find(), child::toString);
        long polls = Long.parseLong(counters.group(1));
        long readyEvents = Long.parseLong(counters.group(2));
        long changes = Long.parseLong(counters.group(3));
        // 20 round trips, each at least one wait for the echo to come back.
        assertTrue(polls >= 20, () -> "polls: " + child);
        assertTrue(readyEvents >= 20, () -> "readyEvents: " + child);
        assertTrue(changes >= 3, () -> "changesApplied (three registrations at least): " + child);
        assertTrue(child.stderr().isBlank(), child::toString);
    }

    private static void assertJdkSelector(String className, InstallChild.Result child) {
        assertNotNull(className, child::toString);
        assertTrue(className.startsWith("sun.nio.ch."), () -> "not the JDK's selector: " + child);
    }

    private static List<String> valuesOf(List<String> lines, String key) {
        return lines.stream().filter(l -> l.startsWith(key + "=")).map(l -> l.substring(key.length() + 1))
                .collect(Collectors.toList());
    }

    /**
     * Copies of the main classes and the test classes (which hold the probe) without
     * {@code META-INF/native}: neither the jar's library nor the test build.
     */
    static String classPathWithoutNativeLibrary(Path dir) throws Exception {
        return classPathWithout(dir, "META-INF/native");
    }

    /**
     * Copies of the main classes and the test classes without {@code META-INF/services}: the JDK's
     * built-in provider stays the system-wide one.
     */
    static String classPathWithoutServicesFile(Path dir) throws Exception {
        return classPathWithout(dir, "META-INF/services");
    }

    /**
     * Copies of the main classes and of the test classes (which carry the test build of the native
     * library, ahead of the main classes' copy) without the folder {@code leftOut}.
     */
    private static String classPathWithout(Path dir, String leftOut) throws Exception {
        Path mainClasses = Paths.get(NativeSelectorProvider.class.getProtectionDomain().getCodeSource()
                .getLocation().toURI());
        Path testClasses = Paths.get(InstallProbe.class.getProtectionDomain().getCodeSource()
                .getLocation().toURI());
        assertTrue(Files.isDirectory(mainClasses), "main classes are a directory: " + mainClasses);
        assertTrue(Files.isDirectory(testClasses.resolve("io/github/nativeselector")), testClasses.toString());
        assertFalse(Files.exists(testClasses.resolve("META-INF/services")), "test classes carry no META-INF/services");
        assertTrue(Files.isDirectory(mainClasses.resolve(leftOut)), "the build has a folder " + leftOut + " to leave out");
        String without = "-without-" + Paths.get(leftOut).getFileName();
        Path mainCopy = copyWithout(mainClasses, leftOut, dir.resolve("classes" + without));
        Path testCopy = copyWithout(testClasses, leftOut, dir.resolve("test-classes" + without));
        assertTrue(Files.exists(mainCopy.resolve(NativeSelectorProvider.class.getName().replace('.', '/') + ".class")));
        return String.join(File.pathSeparator, mainCopy.toString(), testCopy.toString());
    }

    private static Path copyWithout(Path classes, String leftOut, Path copy) throws Exception {
        Path leftOutFolder = classes.resolve(leftOut);
        List<Path> sources;
        try (Stream<Path> walk = Files.walk(classes)) {
            sources = walk.filter(p -> !p.startsWith(leftOutFolder)).collect(Collectors.toList());
        }
        for (Path source : sources) {
            Path target = copy.resolve(classes.relativize(source).toString());
            if (Files.isDirectory(source)) {
                Files.createDirectories(target);
            } else {
                Files.copy(source, target);
            }
        }
        assertFalse(Files.exists(copy.resolve(leftOut)));
        return copy;
    }

    static String emptyDirectory(Path dir) throws Exception {
        return Files.createDirectories(dir.resolve("empty-library-path")).toString();
    }
}
