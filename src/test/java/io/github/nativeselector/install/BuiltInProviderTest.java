/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.install;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.nativeselector.internal.BuiltInProvider;
import io.github.nativeselector.internal.NativeSelector;
import io.github.nativeselector.support.InstallChild;
import io.github.nativeselector.support.LeanRun;
import java.nio.channels.Selector;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The JDK's built-in provider as this library reaches it: the class the JDK itself picks when no
 * other provider is installed, made without JVM flags; and, where {@code jdk.unsupported} is not
 * in the module graph, through the native library, or a failure that says why.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class BuiltInProviderTest {

    /** Every module the probes use, and not {@code jdk.unsupported}. */
    private static final String WITHOUT_JDK_UNSUPPORTED =
            "--limit-modules=java.base,java.logging,java.management,java.net.http,jdk.httpserver";

    @Test
    void isWhatTheJdkPicksWhenNoOtherProviderIsInstalled(@TempDir Path dir) throws Exception {
        InstallChild.Result child = InstallChild.run(InstallTest.classPathWithoutServicesFile(dir), List.of(),
                InstallProbe.class);
        assertEquals(0, child.exitCode(), child::toString);
        assertEquals(child.value("provider"), BuiltInProvider.get().getClass().getName(), child::toString);
        try (Selector selector = BuiltInProvider.get().openSelector()) {
            assertEquals(child.value("selector"), selector.getClass().getName(), child::toString);
        }
    }

    @Test
    void isReachedThroughTheNativeLibraryWithoutJdkUnsupported() throws Exception {
        InstallChild.Result child = InstallChild.run(List.of(WITHOUT_JDK_UNSUPPORTED), WithoutLibraryProbe.class);
        assertEquals(0, child.exitCode(), child::toString);
        for (String step : List.of("unixSocketChannel", "datagramChannel", "pipe")) {
            assertTrue(child.value(step).startsWith("ok sun.nio.ch."), child::toString);
        }
        String tcp = LeanRun.active() ? "ok io.github.nativeselector.internal.lean." : "ok sun.nio.ch.";
        for (String step : List.of("socketChannel", "serverSocketChannel")) {
            assertTrue(child.value(step).startsWith(tcp), child::toString);
        }
        assertEquals("ok " + NativeSelector.class.getName(), child.value("selector"), child::toString);
        assertEquals("ok 200 hello, name=probe", child.value("http"), child::toString);
    }

    @Test
    void withoutJdkUnsupportedOrTheNativeLibraryChannelsFailSayingWhy(@TempDir Path dir) throws Exception {
        Path missing = dir.resolve("missing");
        InstallChild.Result child = InstallChild.run(
                List.of(WITHOUT_JDK_UNSUPPORTED, "-Dnativeselector.tmpdir=" + missing), WithoutLibraryProbe.class);
        assertEquals(0, child.exitCode(), child::toString);
        String socket = child.value("socketChannel");
        assertTrue(socket.startsWith("failed java.io.IOException: the JDK's built-in SelectorProvider is out of reach"),
                child::toString);
        assertTrue(socket.contains("--add-modules jdk.unsupported"), () -> "does not give the fix: " + socket);
        assertTrue(socket.contains(missing + ": it does not exist"), () -> "does not give the library's reason: "
                + socket);
    }
}
