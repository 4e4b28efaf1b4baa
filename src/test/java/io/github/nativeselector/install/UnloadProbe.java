/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.install;

import io.github.nativeselector.NativeSelectorProvider;
import java.lang.management.ManagementFactory;
import java.lang.ref.WeakReference;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.ByteBuffer;
import java.nio.channels.Pipe;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.spi.SelectorProvider;
import java.nio.file.Paths;
import java.util.concurrent.TimeUnit;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import jdk.jfr.Recording;

/**
 * Child-JVM main for {@link UnloadTest}: {@code <main classes>} loads the library in a class loader
 * of its own, as a web application carries it, with a flight recording running and a selector of
 * the system class loader's copy open; opens a selector through it on a thread whose context class
 * loader it is, selects a ready pipe, closes all, drops the loader, and prints whether the loader
 * was then collected ({@code collected=}), the selector and totals MBeans of both copies while both
 * selectors were open ({@code selectorMBeans=}, {@code totalsMBeans=}), and whether that copy's
 * totals MBean was there while its selector was open ({@code totalsOpen=}) and after
 * ({@code totalsClosed=}).
 */
public final class UnloadProbe {

    private static final long COLLECT_SECONDS = 20;
    /** The key that a copy of the library that another class loader loaded adds to its MBeans' names. */
    private static final String LOADER_KEY = "loader";

    private UnloadProbe() {
    }

    public static void main(String[] args) throws Exception {
        try (Recording recording = new Recording();
                Selector systemCopys = new NativeSelectorProvider().openSelector()) {
            recording.start();
            WeakReference<ClassLoader> loader = useAndDrop(args[0]);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(COLLECT_SECONDS);
            while (loader.get() != null && System.nanoTime() < deadline) {
                System.gc();
                Thread.sleep(50);
            }
            System.out.println("collected=" + (loader.get() == null));
        }
    }

    private static WeakReference<ClassLoader> useAndDrop(String mainClasses) throws Exception {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        ObjectName totals = new ObjectName("io.github.nativeselector:type=Selectors," + LOADER_KEY + "=*");
        URLClassLoader loader = new URLClassLoader(new URL[] {Paths.get(mainClasses).toUri().toURL()},
                ClassLoader.getPlatformClassLoader());
        Thread thread = Thread.currentThread();
        ClassLoader context = thread.getContextClassLoader();
        thread.setContextClassLoader(loader);
        try {
            SelectorProvider provider = (SelectorProvider) loader
                    .loadClass("io.github.nativeselector.NativeSelectorProvider").getConstructor().newInstance();
            Pipe pipe = provider.openPipe();
            try (Selector selector = provider.openSelector(); Pipe.SourceChannel source = pipe.source();
                    Pipe.SinkChannel sink = pipe.sink()) {
                System.out.println("selector=" + selector.getClass().getName());
                source.configureBlocking(false);
                source.register(selector, SelectionKey.OP_READ);
                sink.write(ByteBuffer.wrap(new byte[1]));
                System.out.println("selected=" + selector.select(TimeUnit.SECONDS.toMillis(COLLECT_SECONDS)));
                System.out.println("totalsOpen=" + !server.queryNames(totals, null).isEmpty());
                System.out.println("selectorMBeans="
                        + server.queryNames(new ObjectName("io.github.nativeselector:type=Selector,*"), null).size());
                System.out.println("totalsMBeans="
                        + server.queryNames(new ObjectName("io.github.nativeselector:type=Selectors,*"), null).size());
            }
            System.out.println("totalsClosed=" + !server.queryNames(totals, null).isEmpty());
        } finally {
            thread.setContextClassLoader(context);
        }
        loader.close();
        return new WeakReference<>(loader);
    }
}
