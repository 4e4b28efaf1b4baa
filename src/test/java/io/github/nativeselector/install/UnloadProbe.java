/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.install;

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
import javax.management.ObjectName;
import jdk.jfr.Recording;

/**
 * Child-JVM main for {@link UnloadTest}: {@code <main classes>} loads the library in a class loader
 * of its own, as a web application carries it, with a flight recording running; opens a selector
 * through it on a thread whose context class loader it is, selects a ready pipe, closes all, drops
 * the loader, and prints whether the loader was then collected ({@code collected=}), and whether
 * the totals MBean was there while the selector was open ({@code totalsOpen=}) and after
 * ({@code totalsClosed=}).
 */
public final class UnloadProbe {

    private static final long COLLECT_SECONDS = 20;

    private UnloadProbe() {
    }

    public static void main(String[] args) throws Exception {
        try (Recording recording = new Recording()) {
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
        ObjectName totals = new ObjectName("io.github.nativeselector:type=Selectors");
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
                System.out.println("totalsOpen=" + ManagementFactory.getPlatformMBeanServer().isRegistered(totals));
            }
            System.out.println("totalsClosed=" + ManagementFactory.getPlatformMBeanServer().isRegistered(totals));
        } finally {
            thread.setContextClassLoader(context);
        }
        loader.close();
        return new WeakReference<>(loader);
    }
}
