/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector;

import io.github.nativeselector.internal.BackendChoice;
import io.github.nativeselector.internal.ChannelChoice;
import io.github.nativeselector.internal.ChannelProviders;
import io.github.nativeselector.internal.Config;
import io.github.nativeselector.internal.NativeLibrary;
import io.github.nativeselector.internal.NativeSelectors;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.module.ModuleDescriptor;
import java.nio.channels.Selector;
import java.util.List;

/**
 * {@code java -jar native-selector.jar}: what this library can do on this machine. Prints the
 * system, the JDK, the native library, which provider the channels report (this one, or the JDK's
 * and why), each backend (opened for real: "available", or why not), whether epoll sends batches
 * of changes through io_uring, what {@code nativeselector.backend} gives, the batch threshold, and
 * which socket channels {@code nativeselector.channels} gives.
 * Exit status 0 when at least one native backend works, 1 when none does, 2 when a
 * {@code nativeselector.*} property is bad.
 */
public final class Diagnostics {

    private static final List<BackendChoice> BACKENDS = List.of(BackendChoice.EPOLL, BackendChoice.IO_URING,
            BackendChoice.POLLSET);

    private final PrintStream out;

    private Diagnostics(PrintStream out) {
        this.out = out;
    }

    /**
     * Prints the diagnostics to standard output and exits with the status above.
     *
     * @param args ignored
     */
    public static void main(String[] args) {
        System.exit(new Diagnostics(System.out).run());
    }

    private int run() {
        out.println("native-selector " + version());
        line("os", System.getProperty("os.name") + " " + System.getProperty("os.arch"));
        line("kernel", System.getProperty("os.version"));
        line("jdk", Runtime.version() + " (" + System.getProperty("java.vendor") + ", "
                + System.getProperty("java.home") + ")");
        List<String> carried = NativeLibrary.carriedPlatforms();
        line("platform", NativeLibrary.platform() + " (this jar carries: "
                + (carried.isEmpty() ? "none" : String.join(", ", carried)) + ")");
        Config config;
        ChannelChoice channels;
        try {
            config = Config.fromSystemProperties();
            channels = ChannelChoice.fromSystemProperties();
        } catch (IllegalArgumentException e) {
            line("configuration", e.getMessage());
            return 2;
        }
        line("native library", libraryState());
        line("channels", ChannelProviders.unavailableBecause()
                .map(why -> "report the JDK's provider (" + why + ")")
                .orElse("report this provider"));
        line("socket channels", socketChannels(channels));
        int working = 0;
        for (BackendChoice backend : BACKENDS) {
            String state = probe(config.unpublishedOn(backend));
            if (state.startsWith("available")) {
                working++;
            }
            line("backend " + backend.propertyValue(), state);
        }
        line("epoll ring", ringState(config.unpublishedOn(BackendChoice.EPOLL)));
        line("selected", opens(config.unpublishedOn(config.backend()))
                + " (" + Config.BACKEND_PROPERTY + "=" + config.backend().propertyValue() + ")");
        line("batch threshold", String.valueOf(config.batchThreshold())
                + (System.getProperty(Config.THRESHOLD_PROPERTY) == null ? " (default)" : " (from " + Config.THRESHOLD_PROPERTY + ")"));
        return working > 0 ? 0 : 1;
    }

    /** What {@code openSocketChannel} opens with the settings given. */
    private static String socketChannels(ChannelChoice channels) {
        String setting = " (" + ChannelChoice.PROPERTY + "=" + channels.propertyValue() + ")";
        if (channels == ChannelChoice.JDK) {
            return "the JDK's" + setting;
        }
        return ChannelChoice.leanUnavailableBecause().map(why -> "the JDK's, not lean: " + why)
                .orElse("lean") + setting;
    }

    /** From the jar's manifest on the class path, from the jar's name on the module path. */
    private static String version() {
        String version = Diagnostics.class.getPackage().getImplementationVersion();
        ModuleDescriptor module = Diagnostics.class.getModule().getDescriptor();
        if (version == null && module != null) {
            version = module.rawVersion().orElse(null);
        }
        return version == null ? "(not run from its jar: version unknown)" : version;
    }

    private void line(String label, String value) {
        out.printf("%-18s%s%n", label + ":", value);
    }

    private static String libraryState() {
        try {
            NativeLibrary.ensureLoaded();
            return "loaded from " + NativeLibrary.loadedFrom();
        } catch (IOException e) {
            return "not loaded: " + e.getMessage();
        }
    }

    /** Opens a selector on the backend and selects once: "available", or the reason it cannot. */
    private static String probe(Config config) {
        try (Selector selector = NativeSelectorProvider.provider().openSelector(config)) {
            selector.selectNow();
            if (config.backend() == BackendChoice.POLLSET && NativeLibrary.platform().startsWith("linux-")) {
                return "available (AIX's pollset API emulated over poll(2), to test the AIX backend; not for production)";
            }
            return "available";
        } catch (IOException | RuntimeException e) {
            return "not available: " + e.getMessage();
        }
    }

    /** How a selector opened with {@code config} sends its registration changes to the kernel. */
    private static String ringState(Config config) {
        try (Selector selector = NativeSelectorProvider.provider().openSelector(config)) {
            return NativeSelectors.ringState(selector).orElse("none (" + selector.getClass().getName() + ")");
        } catch (IOException | RuntimeException e) {
            return "unknown: " + e.getMessage();
        }
    }

    /** The backend a selector opened with {@code config} runs on. */
    private static String opens(Config config) {
        try (Selector selector = NativeSelectorProvider.provider().openSelector(config)) {
            return SelectorStats.of(selector).map(SelectorStats::backend)
                    .orElse("the JDK's built-in selector (" + selector.getClass().getName() + ")");
        } catch (IOException | RuntimeException e) {
            return "nothing: " + e.getMessage();
        }
    }
}
