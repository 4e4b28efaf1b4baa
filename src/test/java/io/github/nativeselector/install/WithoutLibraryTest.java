/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.install;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.nativeselector.Diagnostics;
import io.github.nativeselector.NativeSelectorProvider;
import io.github.nativeselector.internal.NativeLibrary;
import io.github.nativeselector.internal.NativeSelector;
import io.github.nativeselector.support.InstallChild;
import io.github.nativeselector.support.LeanRun;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A jar on the class path never breaks NIO: in child JVMs whose native library cannot be used (the
 * jar has none; the extraction directory is missing, read-only or mounted noexec; a stale library
 * on {@code java.library.path}), with no JVM flag but the native-access one, every channel opens,
 * {@code auto} gives the JDK's selector and says why once, and the JDK's HTTP client works.
 * {@code nativeselector.backend=epoll} fails {@code Selector.open()} with the reason instead.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class WithoutLibraryTest {

    private static final String FALLBACK = "native selector unavailable";

    @Test
    void jarWithoutALibrary(@TempDir Path dir) throws Exception {
        InstallChild.Result child = InstallChild.run(InstallTest.classPathWithoutNativeLibrary(dir),
                List.of("-Djava.library.path=" + InstallTest.emptyDirectory(dir)), WithoutLibraryProbe.class);
        assertJdkNio(child, "no native library for " + NativeLibrary.platform());
    }

    @Test
    void missingExtractionDirectory(@TempDir Path dir) throws Exception {
        Path missing = dir.resolve("missing");
        InstallChild.Result child = InstallChild.run(List.of(tmpdir(missing)), WithoutLibraryProbe.class);
        assertJdkNio(child, missing + ": it does not exist");
    }

    @Test
    void readOnlyExtractionDirectory(@TempDir Path dir) throws Exception {
        Path readOnly = Files.createDirectory(dir.resolve("read-only"));
        InstallChild.Result child = InstallChild.run(PrivateTmpfs.launcher(readOnly, "ro,size=1m"),
                InstallChild.testClassPath(), List.of(tmpdir(readOnly)), WithoutLibraryProbe.class);
        assertJdkNio(child, "Read-only file system");
    }

    @Test
    void noexecExtractionDirectory(@TempDir Path dir) throws Exception {
        Path noexec = Files.createDirectory(dir.resolve("noexec"));
        InstallChild.Result child = InstallChild.run(PrivateTmpfs.launcher(noexec, "noexec,size=16m"),
                InstallChild.testClassPath(), List.of(tmpdir(noexec)), WithoutLibraryProbe.class);
        assertJdkNio(child, noexec + " is mounted noexec");
    }

    @Test
    void staleLibraryWhoseOnLoadFailsGivesWayToTheJarsCopy(@TempDir Path dir) throws Exception {
        assertTheJarsCopyIsUsed(StaleLibrary.ONLOAD_FAILS.buildIn(dir), "JNI version");
    }

    @Test
    void staleLibraryWithAMissingNativeGivesWayToTheJarsCopy(@TempDir Path dir) throws Exception {
        assertTheJarsCopyIsUsed(StaleLibrary.WRONG_NATIVE.buildIn(dir), "NoSuchMethodError");
    }

    @Test
    void staleLibraryWhoseOnLoadFailsAndNoJarCopy(@TempDir Path dir) throws Exception {
        Path stale = StaleLibrary.ONLOAD_FAILS.buildIn(dir);
        InstallChild.Result child = InstallChild.run(List.of(libraryPath(stale), tmpdir(dir.resolve("missing"))),
                WithoutLibraryProbe.class);
        assertJdkNio(child, "it does not exist");
        assertTrue(fallbackWarning(child).contains(stale.resolve("libnativeselector.so") + " was refused"),
                () -> "the warning does not name the stale library: " + child);
    }

    @Test
    void staleLibraryWithAMissingNativeAndNoJarCopy(@TempDir Path dir) throws Exception {
        Path stale = StaleLibrary.WRONG_NATIVE.buildIn(dir);
        InstallChild.Result child = InstallChild.run(List.of(libraryPath(stale), tmpdir(dir.resolve("missing"))),
                WithoutLibraryProbe.class);
        assertJdkNio(child, "it does not exist");
        assertTrue(fallbackWarning(child).contains("NoSuchMethodError"),
                () -> "the warning does not give the stale library's error: " + child);
    }

    /**
     * A stale library that loads but registers none of the natives the classes call is found
     * wanting at its first constant: NIO stays the JDK's, saying why.
     */
    @Test
    void staleLibraryWithoutTheNativesLeavesNioToTheJdk(@TempDir Path dir) throws Exception {
        Path stale = StaleLibrary.REGISTERS_NOTHING.buildIn(dir);
        InstallChild.Result child = InstallChild.run(List.of(libraryPath(stale)), WithoutLibraryProbe.class);
        assertJdkNio(child, "C has none");
        assertTrue(fallbackWarning(child).contains("library loaded from " + stale.resolve("libnativeselector.so")),
                () -> "the warning does not name the stale library: " + child);
    }

    @Test
    void epollByNameFailsWithTheReasonWhileChannelsStillWork(@TempDir Path dir) throws Exception {
        Path missing = dir.resolve("missing");
        InstallChild.Result child = InstallChild.run(List.of(tmpdir(missing), "-Dnativeselector.backend=epoll"),
                WithoutLibraryProbe.class);
        assertEquals(0, child.exitCode(), child::toString);
        assertChannelsOpen(child);
        String selector = child.value("selector");
        assertTrue(selector.startsWith("failed java.io.IOException: "), () -> "not an IOException: " + child);
        assertTrue(selector.contains(missing + ": it does not exist"), () -> "not the reason: " + child);
        assertFalse(child.stderr().contains(FALLBACK), () -> "epoll must fail, not fall back: " + child);
    }

    // ---- helpers -------------------------------------------------------------------------

    private static String tmpdir(Path dir) {
        return "-Dnativeselector.tmpdir=" + dir;
    }

    private static String libraryPath(Path dir) {
        return "-Djava.library.path=" + dir;
    }

    /** The stale library is refused, the jar's copy loaded: a native selector, with no warning. */
    private static void assertTheJarsCopyIsUsed(Path staleFolder, String staleError) throws Exception {
        InstallChild.Result child = InstallChild.run(List.of(libraryPath(staleFolder)), WithoutLibraryProbe.class);
        assertEquals(0, child.exitCode(), child::toString);
        assertChannelsOpen(child);
        assertEquals("ok " + NativeSelector.class.getName(), child.value("selector"), child::toString);
        assertEquals("ok 200 hello, name=probe", child.value("http"), child::toString);
        assertTrue(child.stderr().isBlank(), child::toString);
        InstallChild.Result diagnostics = InstallChild.run(List.of(libraryPath(staleFolder)), Diagnostics.class);
        assertTrue(diagnostics.stdout().contains(staleFolder.resolve("libnativeselector.so") + " was refused"),
                () -> "diagnostics do not name the refused library: " + diagnostics);
        assertTrue(diagnostics.stdout().contains(staleError), () -> "diagnostics do not say why: " + diagnostics);
    }

    /** Every operation worked on the JDK's own implementation, and the reason was logged once. */
    private static void assertJdkNio(InstallChild.Result child, String reason) {
        assertEquals(0, child.exitCode(), child::toString);
        assertEquals(NativeSelectorProvider.class.getName(), child.value("provider"), child::toString);
        assertChannelsOpen(child);
        for (String selector : List.of("selector", "secondSelector")) {
            assertTrue(child.value(selector).startsWith("ok sun.nio.ch."), () -> "not the JDK's selector: " + child);
        }
        assertEquals("ok 200 hello, name=probe", child.value("http"), child::toString);
        assertTrue(fallbackWarning(child).contains(reason), () -> "the warning does not say why (" + reason + "): "
                + child);
        List<String> otherWarnings = child.stderr().lines()
                .filter(line -> line.contains("WARNING") && !line.contains(FALLBACK)
                        && !line.contains(LeanRun.FALLBACK_WARNING))
                .collect(Collectors.toList());
        assertEquals(List.of(), otherWarnings, child::toString);
        // Without the library, lean channels give way to the JDK's, saying why.
        assertEquals(LeanRun.requested(), child.stderr().contains(LeanRun.FALLBACK_WARNING), child::toString);
    }

    /**
     * Every channel opened: the JDK's, but for TCP sockets in the suite's run on lean channels
     * when the child loaded a library after all (from the jar), where they are lean.
     */
    private static void assertChannelsOpen(InstallChild.Result child) {
        boolean lean = LeanRun.requested() && ("ok " + NativeSelector.class.getName()).equals(child.value("selector"));
        List<String> failed = new ArrayList<>();
        for (String step : List.of("socketChannel", "serverSocketChannel", "unixSocketChannel", "datagramChannel",
                "pipe")) {
            String outcome = child.value(step);
            boolean tcp = step.equals("socketChannel") || step.equals("serverSocketChannel");
            String expected = lean && tcp ? "ok io.github.nativeselector.internal.lean." : "ok sun.nio.ch.";
            if (outcome == null || !outcome.startsWith(expected)) {
                failed.add(step + "=" + outcome);
            }
        }
        assertEquals(List.of(), failed, child::toString);
    }

    /** The one line that says why {@code auto} fell back; fails unless there is exactly one. */
    private static String fallbackWarning(InstallChild.Result child) {
        List<String> warnings = child.stderr().lines().filter(line -> line.contains(FALLBACK))
                .collect(Collectors.toList());
        assertEquals(1, warnings.size(), () -> "expected the reason logged once: " + child);
        return warnings.get(0);
    }
}
