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
import io.github.nativeselector.internal.Config;
import io.github.nativeselector.internal.NativeSelector;
import io.github.nativeselector.support.InstallChild;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * io_uring where it is refused and where it is not. Child JVMs run {@link UringFallbackProbe}
 * under {@code fail_syscalls} (a seccomp launcher built with the native library), io_uring's
 * system calls failing with EPERM as container runtimes' default profiles make them: asked for
 * by name, io_uring fails saying why; {@code auto} still gives a working native selector, epoll,
 * which then applies a batch with one {@code epoll_ctl} per change instead of one
 * {@code io_uring_enter}.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class UringFallbackTest {

    @Test
    void ioUringByNameFailsUnderSeccompSayingWhy() throws Exception {
        InstallChild.Result child = runProbe(true, "-D" + Config.BACKEND_PROPERTY + "=io_uring");
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
        InstallChild.Result child = runProbe(true, "-D" + Config.BACKEND_PROPERTY + "=auto");
        assertEquals(0, child.exitCode(), child::toString);
        assertEquals(NativeSelector.class.getName(), child.value("selector"), child::toString);
        assertEquals("epoll", child.value("backend"), child::toString);
        assertEquals("ok rounds=5", child.value("roundtrip"), child::toString);
        assertEquals("10", child.value("batchCalls"), () -> "10 changes without io_uring: " + child);
        assertFalse(child.stderr().contains("native selector unavailable"), child::toString);
    }

    @Test
    void epollWithoutTheLauncherAppliesABatchInOneIoUringEnter() throws Exception {
        InstallChild.Result child = runProbe(false, "-D" + Config.BACKEND_PROPERTY + "=epoll");
        assertEquals(0, child.exitCode(), child::toString);
        assertEquals("epoll", child.value("backend"), child::toString);
        assertEquals("1", child.value("batchCalls"), () -> "10 changes through epoll's ring: " + child);
    }

    @Test
    void epollWithItsRingTurnedOffMakesOneEpollCtlPerChange() throws Exception {
        InstallChild.Result child = runProbe(false, "-D" + Config.BACKEND_PROPERTY + "=epoll",
                "-D" + Config.EPOLL_RING_PROPERTY + "=false");
        assertEquals(0, child.exitCode(), child::toString);
        assertEquals("epoll", child.value("backend"), child::toString);
        assertEquals("10", child.value("batchCalls"), () -> "10 changes with the ring turned off: " + child);
    }

    /**
     * Under a filter that kills a process calling io_uring (as a deny list without an errno does),
     * epoll with its ring turned off, as the README advises there, makes no such call: the child
     * lives, and its selector works.
     */
    @Test
    void epollWithItsRingTurnedOffLivesUnderAFilterThatKillsOnIoUring() throws Exception {
        List<String> killing = InstallChild.failingSyscalls("KILL:io_uring_setup", "KILL:io_uring_enter",
                "KILL:io_uring_register");
        InstallChild.Result child = InstallChild.runThrough(killing, List.of(InstallChild.FLAG,
                "-D" + Config.EPOLL_RING_PROPERTY + "=false"), UringFallbackProbe.class);
        assertEquals(0, child.exitCode(), child::toString);
        assertEquals("epoll", child.value("backend"), child::toString);
        assertEquals("ok rounds=5", child.value("roundtrip"), child::toString);
    }

    @Test
    void ioUringByNameWorksWithoutTheLauncher() throws Exception {
        InstallChild.Result child = runProbe(false, "-D" + Config.BACKEND_PROPERTY + "=io_uring");
        assertEquals(0, child.exitCode(), () -> "io_uring could not be used on this machine at all, so the "
                + "refusal under seccomp proves nothing: " + child);
        assertEquals(NativeSelector.class.getName(), child.value("selector"), child::toString);
        assertEquals("io_uring", child.value("backend"), child::toString);
        assertEquals("ok rounds=5", child.value("roundtrip"), child::toString);
    }

    // ---- child JVMs ----------------------------------------------------------------------

    /** Runs {@link UringFallbackProbe} under the flag in a child JVM, through the launcher or not. */
    private static InstallChild.Result runProbe(boolean denyIoUring, String... properties) throws Exception {
        List<String> launcher = denyIoUring ? InstallChild.denyIoUringLauncher() : List.of();
        List<String> jvmArgs = new ArrayList<>(List.of(InstallChild.FLAG));
        jvmArgs.addAll(List.of(properties));
        return InstallChild.runThrough(launcher, jvmArgs, UringFallbackProbe.class);
    }
}
