/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.github.nativeselector.support.InstallChild;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The C library's text of an error, in a locale whose encoding is not UTF-8 (Russian in KOI8-R),
 * reaches Java as the JDK's channels word it: decoded in the locale's encoding, where taking its
 * bytes for modified UTF-8 made nonsense of every letter. The locale is made for the child JVM
 * with localedef, from Debian's {@code locales} package, and its messages come from
 * {@code libc-l10n}: scripts/test installs both; without them the test is skipped, with the reason.
 * The child runs under -Xcheck:jni, which the decoding's calls into Java must satisfy.
 */
@Timeout(120)
class ErrorTextTest {

    private static final String LOCALE = "ru_RU.KOI8-R";

    @Test
    void anErrorsTextInALocaleOfAnotherEncodingReadsAsTheJdks(@TempDir Path locales) throws Exception {
        Process localedef = new ProcessBuilder("localedef", "-i", "ru_RU", "-f", "KOI8-R",
                locales.resolve(LOCALE).toString()).redirectErrorStream(true).start();
        String output = new String(localedef.getInputStream().readAllBytes());
        assumeTrue(localedef.waitFor(60, TimeUnit.SECONDS) && Files.isDirectory(locales.resolve(LOCALE)),
                () -> "no " + LOCALE + " locale can be made (Debian: the locales package): " + output);
        InstallChild.Result child = InstallChild.runThrough(
                List.of("env", "LOCPATH=" + locales, "LC_ALL=" + LOCALE), List.of("-Xcheck:jni"), ErrorTextProbe.class);
        assertEquals(0, child.exitCode(), child::toString);
        assertFalse(child.stderr().contains("WARNING in native method"), () -> "-Xcheck:jni complained: " + child);
        String jdk = child.value("JDK");
        assumeTrue(jdk.contains("\\u"),
                () -> "the C library has no Russian text for the error (Debian: the libc-l10n package): " + jdk);
        assertEquals(jdk, child.value("LEAN"), child::toString);
        assertEquals(jdk, child.value("DESCRIBED"), child::toString);
    }
}
