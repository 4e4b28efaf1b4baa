/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.install;

import io.github.nativeselector.NativeSelectorProvider;
import io.github.nativeselector.SelectorStats;
import java.lang.management.ManagementFactory;
import java.lang.module.ModuleDescriptor;
import java.lang.reflect.Method;
import java.nio.channels.Selector;
import java.nio.channels.spi.SelectorProvider;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordingFile;

/**
 * Child-JVM main, run from the class path with the library as a module on the module path: prints
 * {@code key=value} lines saying what the module declares, which provider the JVM installed, what
 * an echo round trip on a selector from {@link NativeSelectorProvider#provider()} gave, and what
 * reflection reaches of the module's internal package. Where the module graph has
 * {@code java.management} and {@code jdk.jfr}, also the selector's MBean and its flight-recorder
 * events, from classes of their own, loaded only then.
 */
public final class ModulePathProbe {

    static final String INTERNAL = "io.github.nativeselector.internal";

    private ModulePathProbe() {
    }

    public static void main(String[] args) throws Exception {
        Module module = NativeSelectorProvider.class.getModule();
        System.out.println("module=" + (module.isNamed() ? module.getName() : "unnamed"));
        ModuleDescriptor descriptor = module.getDescriptor();
        System.out.println("exports=" + descriptor.exports().stream().map(e -> e.source()).sorted()
                .collect(Collectors.toList()));
        System.out.println("opens=" + descriptor.opens().stream().map(o -> o.source()).sorted()
                .collect(Collectors.toList()));
        System.out.println("provides=" + descriptor.provides().stream().map(p -> p.service() + " with " + p.providers())
                .sorted().collect(Collectors.toList()));
        System.out.println("internalExported=" + module.isExported(INTERNAL));
        System.out.println("internalOpen=" + module.isOpen(INTERNAL));
        Set<String> present = new TreeSet<>();
        for (String name : new String[] {"java.management", "jdk.jfr", "jdk.unsupported"}) {
            if (ModuleLayer.boot().findModule(name).isPresent()) {
                present.add(name);
            }
        }
        System.out.println("optionalModules=" + present);
        System.out.println("provider=" + SelectorProvider.provider().getClass().getName());
        Events events = present.contains("jdk.jfr") ? Events.start() : null;
        try (Selector selector = NativeSelectorProvider.provider().openSelector()) {
            System.out.println("selector=" + selector.getClass().getName());
            System.out.println("echo=ok rounds=" + InstallProbe.echoRoundTrip(selector, 20));
            Optional<SelectorStats> stats = SelectorStats.of(selector);
            System.out.println("stats=" + stats.map(s -> s.backend() + " polls>0=" + (s.polls() > 0)).orElse("absent"));
            System.out.println("internalCall=" + callInternal(selector));
            System.out.println("internalSetAccessible=" + makeInternalAccessible());
            if (present.contains("java.management")) {
                System.out.println("mbean=" + MBeans.backendOfTheOnlySelector());
            }
        }
        if (events != null) {
            System.out.println("batchEvents=" + events.stopAndCountBatches());
        }
        System.out.flush();
    }

    /** Calls the internal package's public way to a selector's counters, as code outside the module would. */
    private static String callInternal(Selector selector) {
        try {
            Method of = Class.forName(INTERNAL + ".CounterSnapshot").getMethod("of", Selector.class);
            return "returned " + of.invoke(null, selector);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return e.getClass().getSimpleName();
        }
    }

    private static String makeInternalAccessible() {
        try {
            Class.forName(INTERNAL + ".CounterSnapshot").getDeclaredMethod("plus",
                    Class.forName(INTERNAL + ".CounterSnapshot")).setAccessible(true);
            return "made accessible";
        } catch (ReflectiveOperationException | RuntimeException e) {
            return e.getClass().getSimpleName();
        }
    }

    /** The selectors' MBeans, where {@code java.management} is in the module graph. */
    private static final class MBeans {

        static String backendOfTheOnlySelector() throws Exception {
            MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            Set<ObjectName> names = server.queryNames(new ObjectName("io.github.nativeselector:type=Selector,*"), null);
            if (names.size() != 1) {
                return "selector MBeans: " + names;
            }
            return String.valueOf(server.getAttribute(names.iterator().next(), "Backend"));
        }
    }

    /** A flight recording of the library's Batch events, where {@code jdk.jfr} is in the module graph. */
    private static final class Events {

        private static final String BATCH = "io.github.nativeselector.Batch";

        private final Recording recording;

        private Events(Recording recording) {
            this.recording = recording;
        }

        static Events start() {
            Recording recording = new Recording();
            recording.enable(BATCH).with("minimumChanges", "1");
            recording.start();
            return new Events(recording);
        }

        long stopAndCountBatches() throws Exception {
            Path file = Files.createTempFile("module-path-probe-", ".jfr");
            try (Recording finished = recording) {
                finished.stop();
                finished.dump(file);
                return RecordingFile.readAllEvents(file).stream()
                        .filter(e -> e.getEventType().getName().equals(BATCH)).count();
            } finally {
                Files.deleteIfExists(file);
            }
        }
    }
}
