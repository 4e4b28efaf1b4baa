/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.install;

import java.io.File;
import java.lang.reflect.InvocationTargetException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Paths;
import java.util.Arrays;

/**
 * Child-JVM main: {@code <class path> <main class> <args...>} runs the main class in a class loader
 * of its own over that class path, whose parent is the platform class loader, as a fat jar's
 * launcher or a servlet container's web application loader runs an application: the system class
 * path holds this launcher only, so the JDK's {@code ServiceLoader} lookup of the system-wide
 * {@code SelectorProvider}, and the flag's, never see the classes the application loads.
 */
public final class OwnLoaderLauncher {

    /** The name of the loader, as {@link ClassLoader#getName()} reports it. */
    static final String LOADER_NAME = "application";

    private OwnLoaderLauncher() {
    }

    public static void main(String[] args) throws Throwable {
        String[] entries = args[0].split(File.pathSeparator);
        URL[] urls = new URL[entries.length];
        for (int i = 0; i < entries.length; i++) {
            urls[i] = Paths.get(entries[i]).toUri().toURL();
        }
        ClassLoader loader = new URLClassLoader(LOADER_NAME, urls, ClassLoader.getPlatformClassLoader());
        Thread.currentThread().setContextClassLoader(loader);
        try {
            loader.loadClass(args[1]).getMethod("main", String[].class)
                    .invoke(null, (Object) Arrays.copyOfRange(args, 2, args.length));
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
