/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.install;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.github.nativeselector.Diagnostics;
import io.github.nativeselector.internal.NativeLibrary;
import io.github.nativeselector.support.InstallChild;
import io.github.nativeselector.support.LeanRun;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The jar's main class, {@link Diagnostics}, in child JVMs: here, with io_uring refused, and without a library. */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class DiagnosticsTest {

    private static final String PLATFORM = NativeLibrary.platform();

    @Test
    void reportsEveryBackendAvailableHere() throws Exception {
        InstallChild.Result child = InstallChild.run(List.of(), Diagnostics.class);
        assertEquals(0, child.exitCode(), child::toString);
        assertLine(child, "kernel", System.getProperty("os.version"));
        assertTrue(line(child, "jdk").startsWith(Runtime.version().toString()), child::toString);
        assertTrue(line(child, "platform").startsWith(PLATFORM + " (this jar carries: "), child::toString);
        assertTrue(line(child, "platform").contains(PLATFORM), child::toString);
        assertTrue(line(child, "native library").startsWith("loaded from "), child::toString);
        assertLine(child, "channels", "report this provider");
        assertLine(child, "backend epoll", "available");
        assertLine(child, "backend io_uring", "available");
        assertTrue(line(child, "backend pollset").startsWith("available (AIX's pollset API emulated over poll(2)"),
                child::toString);
        assertLine(child, "epoll ring", "on: a batch of changes is one io_uring_enter of IORING_OP_EPOLL_CTL entries"
                + " (a small one, one epoll_ctl each)");
        assertLine(child, "selected", "epoll (nativeselector.backend=auto)");
        assertLine(child, "batch threshold", "64 (default)");
        assertLine(child, "socket channels", LeanRun.requested() ? "lean (nativeselector.channels=lean)"
                : "the JDK's (nativeselector.channels=jdk)");
    }

    @Test
    void saysWhichSocketChannelsTheSettingGives() throws Exception {
        InstallChild.Result lean = InstallChild.run(List.of("-Dnativeselector.channels=lean"), Diagnostics.class);
        assertEquals(0, lean.exitCode(), lean::toString);
        assertLine(lean, "socket channels", "lean (nativeselector.channels=lean)");
        InstallChild.Result jdkSelector = InstallChild.run(
                List.of("-Dnativeselector.channels=lean", "-Dnativeselector.backend=jdk"), Diagnostics.class);
        assertEquals(0, jdkSelector.exitCode(), jdkSelector::toString);
        assertLine(jdkSelector, "socket channels", "the JDK's, not lean: nativeselector.backend=jdk: the JDK's"
                + " selector takes only the JDK's channels (nativeselector.channels=lean)");
        InstallChild.Result bad = InstallChild.run(List.of("-Dnativeselector.channels=fast"), Diagnostics.class);
        assertEquals(2, bad.exitCode(), bad::toString);
        assertLine(bad, "configuration", "nativeselector.channels=fast: accepted values are jdk, lean");
    }

    @Test
    void saysTheEpollRingIsOffWhenThePropertyTurnsItOff() throws Exception {
        InstallChild.Result child = InstallChild.run(List.of("-Dnativeselector.epollRing=false"), Diagnostics.class);
        assertEquals(0, child.exitCode(), child::toString);
        assertLine(child, "epoll ring", "off, one epoll_ctl per change: nativeselector.epollRing=false");
        assertLine(child, "selected", "epoll (nativeselector.backend=auto)");
    }

    @Test
    void saysWhyIoUringIsUnavailableUnderSeccompAndStillSucceeds() throws Exception {
        InstallChild.Result child = InstallChild.runThrough(InstallChild.denyIoUringLauncher(),
                List.of("-Dnativeselector.batchThreshold=8"), Diagnostics.class);
        assertEquals(0, child.exitCode(), child::toString);
        assertLine(child, "backend epoll", "available");
        String uring = line(child, "backend io_uring");
        assertTrue(uring.startsWith("not available: io_uring is unavailable: io_uring_setup was refused"),
                child::toString);
        assertTrue(uring.contains("seccomp") && uring.contains("errno 1"), child::toString);
        assertLine(child, "epoll ring",
                "off, one epoll_ctl per change: io_uring refused the ring: Operation not permitted (errno 1)");
        assertLine(child, "selected", "epoll (nativeselector.backend=auto)");
        assertLine(child, "batch threshold", "8 (from nativeselector.batchThreshold)");
    }

    @Test
    void failsWhenNoNativeBackendWorks(@TempDir Path dir) throws Exception {
        InstallChild.Result child = InstallChild.run(InstallTest.classPathWithoutNativeLibrary(dir),
                List.of("-Djava.library.path=" + InstallTest.emptyDirectory(dir)), Diagnostics.class);
        assertEquals(1, child.exitCode(), child::toString);
        assertLine(child, "platform", PLATFORM + " (this jar carries: none)");
        String expected = "no native library for " + PLATFORM + " in this jar";
        assertTrue(line(child, "native library").startsWith("not loaded: " + expected), child::toString);
        assertTrue(line(child, "channels").startsWith("report the JDK's provider (" + expected), child::toString);
        for (String backend : List.of("epoll", "io_uring", "pollset")) {
            assertTrue(line(child, "backend " + backend).startsWith("not available: " + expected), child::toString);
        }
    }

    /** A JVM on another platform (os.arch given on the command line) is told what the jar has. */
    @Test
    void namesThePlatformsTheJarCarriesWhenItHasNoneForThisOne() throws Exception {
        InstallChild.Result child = InstallChild.run(List.of("-Dos.arch=riscv64"), Diagnostics.class);
        assertEquals(1, child.exitCode(), child::toString);
        String carried = String.join(", ", NativeLibrary.carriedPlatforms());
        assertTrue(carried.contains(PLATFORM), carried);
        assertEquals("not loaded: no native library for linux-riscv64 in this jar "
                + "(/META-INF/native/linux-riscv64/libnativeselector.so is missing); it has: " + carried,
                line(child, "native library"), child::toString);
    }

    /**
     * An ARM64 JVM reports os.arch {@code aarch64}: it finds the cross-built library in the jar's
     * linux-aarch64 folder, and this x86-64 JVM, posing as one, refuses it as the AArch64 code it is.
     */
    @Test
    void anArm64JvmFindsTheAarch64Library() throws Exception {
        assumeTrue(NativeLibrary.carriedPlatforms().contains("linux-aarch64"),
                "this build has no linux-aarch64 library (no cross compiler)");
        assumeTrue(PLATFORM.equals("linux-x86_64"), "the refusal is checked on x86-64");
        InstallChild.Result child = InstallChild.run(List.of("-Dos.arch=aarch64"), Diagnostics.class);
        assertEquals(1, child.exitCode(), child::toString);
        String library = line(child, "native library");
        assertTrue(library.startsWith("not loaded: cannot load the native library libnativeselector.so: "
                + "the library in this jar was built for another platform than linux-aarch64"), child::toString);
        assertTrue(library.contains("AARCH64"), () -> "the JVM does not see AArch64 code: " + child);
    }

    @Test
    void aBadPropertyIsNamedWithExitStatusTwo() throws Exception {
        InstallChild.Result child = InstallChild.run(List.of("-Dnativeselector.jmx=maybe"), Diagnostics.class);
        assertEquals(2, child.exitCode(), child::toString);
        assertLine(child, "configuration", "nativeselector.jmx=maybe: accepted values are true, false");
        InstallChild.Result ring = InstallChild.run(List.of("-Dnativeselector.epollRing=no"), Diagnostics.class);
        assertEquals(2, ring.exitCode(), ring::toString);
        assertLine(ring, "configuration", "nativeselector.epollRing=no: accepted values are true, false");
    }

    private static void assertLine(InstallChild.Result child, String label, String expected) {
        assertEquals(expected, line(child, label), child::toString);
    }

    /** The value of the line {@code label: value}, aligned as Diagnostics prints it. */
    private static String line(InstallChild.Result child, String label) {
        for (String line : child.stdout().split("\\R")) {
            if (line.startsWith(label + ":")) {
                return line.substring(label.length() + 1).strip();
            }
        }
        throw new AssertionError("no line " + label + ": in\n" + child);
    }
}
