/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.install;

import io.github.nativeselector.NativeSelectorProvider;
import io.github.nativeselector.support.CloseReuseFds;
import java.io.IOException;
import java.nio.channels.Selector;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;

/**
 * Child-JVM main: constructs many providers in a fresh JVM and reports whether that mapped the
 * native library or opened file descriptors; then opens a selector, which must load it.
 */
public final class InstallConstructorProbe {

    private InstallConstructorProbe() {
    }

    public static void main(String[] args) throws Exception {
        System.out.println("loadedBefore=" + libraryMapped());
        long fdsBefore = CloseReuseFds.snapshot().size();
        List<NativeSelectorProvider> providers = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            providers.add(new NativeSelectorProvider());
        }
        long fdsAfter = CloseReuseFds.snapshot().size();
        System.out.println("constructed=" + providers.size());
        System.out.println("loadedAfterConstruct=" + libraryMapped());
        System.out.println("fdDelta=" + (fdsAfter - fdsBefore));
        try (Selector selector = providers.get(0).openSelector()) {
            System.out.println("selector=" + selector.getClass().getName());
            System.out.println("loadedAfterOpen=" + libraryMapped());
        }
        System.out.flush();
    }

    static boolean libraryMapped() throws IOException {
        return Files.readAllLines(Paths.get("/proc/self/maps")).stream()
                .anyMatch(line -> line.contains(System.mapLibraryName("nativeselector")));
    }
}
