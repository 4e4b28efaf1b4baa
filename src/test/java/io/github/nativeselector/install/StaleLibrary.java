/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.install;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.abort;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * A stale {@code libnativeselector.so}, as an old install leaves on {@code java.library.path}:
 * built with gcc from a C file of the test resources into a directory of its own.
 */
enum StaleLibrary {

    /** JNI_OnLoad returns JNI_ERR. */
    ONLOAD_FAILS("stale_onload_fails.c"),
    /** JNI_OnLoad registers a native method that no longer exists: a NoSuchMethodError is pending. */
    WRONG_NATIVE("stale_wrong_native.c"),
    /** JNI_OnLoad succeeds and registers nothing: the first native called is missing. */
    REGISTERS_NOTHING("stale_registers_nothing.c");

    private final String source;

    StaleLibrary(String source) {
        this.source = source;
    }

    /** Builds the library into {@code dir/<name>/} and returns that directory, for java.library.path. */
    Path buildIn(Path dir) throws Exception {
        Path include = jniInclude();
        Path folder = Files.createDirectories(dir.resolve(name().toLowerCase()));
        Path c = folder.resolve(source);
        try (InputStream in = StaleLibrary.class.getResourceAsStream(source)) {
            Files.copy(in, c);
        }
        Path library = folder.resolve(System.mapLibraryName("nativeselector"));
        Process gcc = new ProcessBuilder("gcc", "-shared", "-fPIC", "-o", library.toString(),
                "-I" + include, "-I" + include.resolve("linux"), c.toString())
                .redirectErrorStream(true).start();
        String output = new String(gcc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, gcc.waitFor(), () -> "gcc failed to build " + source + ":\n" + output);
        return folder;
    }

    /** The JDK's {@code include} folder (jni.h): this JVM's, or $JAVA_HOME's when this runtime has none. */
    private static Path jniInclude() {
        Optional<Path> found = Stream.of(System.getProperty("java.home"), System.getenv("JAVA_HOME"))
                .filter(home -> home != null && !home.isBlank())
                .map(home -> Paths.get(home, "include"))
                .filter(include -> Files.isRegularFile(include.resolve("jni.h")))
                .findFirst();
        if (found.isEmpty()) {
            abort("no jni.h to build a stale library with: neither this runtime nor $JAVA_HOME is a JDK "
                    + List.of(String.valueOf(System.getProperty("java.home")), String.valueOf(System.getenv("JAVA_HOME"))));
        }
        return found.get();
    }
}
