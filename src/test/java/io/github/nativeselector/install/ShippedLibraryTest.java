/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.install;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.github.nativeselector.Diagnostics;
import io.github.nativeselector.NativeSelectorProvider;
import io.github.nativeselector.SelectorStats;
import io.github.nativeselector.internal.Config;
import io.github.nativeselector.internal.NativeLibrary;
import io.github.nativeselector.internal.NativeSelector;
import io.github.nativeselector.support.InstallChild;
import io.github.nativeselector.support.TestSelectors;
import java.nio.channels.Selector;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * On Linux, the library the jar carries has epoll and io_uring only; the pollset backend over its
 * poll(2) emulation is in the test build, which this suite loads (from the test classes, ahead of
 * the main classes' copy). Child JVMs here load the shipped copy (the main classes'
 * {@code META-INF/native/<os>-<arch>/}, put on {@code java.library.path}): asked for by name,
 * pollset fails saying where it exists, and {@code auto} is unaffected.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class ShippedLibraryTest {

    private static final String ONLY_IN_THE_TEST_BUILD = "pollset is AIX's; on Linux it exists only in the test build";

    private static Path shipped;

    @BeforeAll
    static void linuxWithTheShippedLibraryBuilt() throws Exception {
        assumeTrue(NativeLibrary.platform().startsWith("linux-"), "the test build differs from the shipped one on Linux only");
        Path mainClasses = Paths.get(NativeSelectorProvider.class.getProtectionDomain().getCodeSource()
                .getLocation().toURI());
        shipped = mainClasses.resolve("META-INF/native").resolve(NativeLibrary.platform());
        assertTrue(Files.isRegularFile(shipped.resolve(System.mapLibraryName("nativeselector"))),
                () -> "the build has no shipped library in " + shipped);
    }

    @Test
    void thisSuiteRunsOnTheTestBuildWherePollsetOpens() throws Exception {
        try (Selector selector = TestSelectors.POLLSET_BATCHED.open()) {
            assertEquals("pollset", SelectorStats.of(selector).orElseThrow().backend());
        }
        String loadedFrom = NativeLibrary.loadedFrom();
        assertFalse(loadedFrom.contains(shipped.toString()), () -> "this JVM loaded the shipped library: " + loadedFrom);
    }

    @Test
    void pollsetByNameFailsSayingItExistsOnlyInTheTestBuild() throws Exception {
        InstallChild.Result child = runProbe("pollset");
        assertEquals(3, child.exitCode(), child::toString);
        String error = child.value("error");
        assertTrue(error != null && error.startsWith("java.io.IOException: " + ONLY_IN_THE_TEST_BUILD),
                () -> "not the IOException saying where pollset is: " + child);
        assertFalse(child.stderr().contains("native selector unavailable"),
                () -> "pollset asked for by name must fail, not fall back: " + child);
    }

    @Test
    void autoGivesEpoll() throws Exception {
        InstallChild.Result child = runProbe("auto");
        assertEquals(0, child.exitCode(), child::toString);
        assertEquals(NativeSelector.class.getName(), child.value("selector"), child::toString);
        assertEquals("epoll", child.value("backend"), child::toString);
        assertEquals("ok rounds=5", child.value("roundtrip"), child::toString);
        assertTrue(child.stderr().isBlank(), child::toString);
    }

    @Test
    void diagnosticsSayWherePollsetIs() throws Exception {
        InstallChild.Result child = InstallChild.run(List.of(libraryPath()), Diagnostics.class);
        assertEquals(0, child.exitCode(), child::toString);
        List<String> lines = child.stdout().lines().collect(Collectors.toList());
        for (String expected : List.of(
                line("native library", "loaded from " + shipped.resolve(System.mapLibraryName("nativeselector"))),
                line("backend epoll", "available"),
                line("backend pollset", "not available: " + ONLY_IN_THE_TEST_BUILD + " (AIX's API emulated over poll(2))"),
                line("selected", "epoll (nativeselector.backend=auto)"))) {
            assertTrue(lines.contains(expected), () -> "no line \"" + expected + "\": " + child);
        }
    }

    /**
     * A symbolic link on java.library.path to a versioned file, as packagers install libraries:
     * the JVM loads the file the link names, whose name the library takes its package from.
     */
    @Test
    void aLinkToAVersionedLibraryIsLoaded(@TempDir Path directory) throws Exception {
        String name = System.mapLibraryName("nativeselector");
        Path versioned = Files.copy(shipped.resolve(name), directory.resolve(name + ".0.1.0"));
        Files.createSymbolicLink(directory.resolve(name), versioned.getFileName());
        InstallChild.Result child = InstallChild.run(List.of("-Djava.library.path=" + directory), Diagnostics.class);
        assertEquals(0, child.exitCode(), child::toString);
        String expected = line("native library", "loaded from " + directory.resolve(name));
        assertTrue(child.stdout().lines().anyMatch(expected::equals), () -> "no line \"" + expected + "\": " + child);
    }

    /** A line as {@link Diagnostics} prints it. */
    private static String line(String label, String value) {
        return String.format("%-18s%s", label + ":", value);
    }

    private static InstallChild.Result runProbe(String backend) throws Exception {
        return InstallChild.run(List.of(libraryPath(), InstallChild.FLAG, "-D" + Config.BACKEND_PROPERTY + "=" + backend),
                UringFallbackProbe.class);
    }

    private static String libraryPath() {
        return "-Djava.library.path=" + shipped;
    }
}
