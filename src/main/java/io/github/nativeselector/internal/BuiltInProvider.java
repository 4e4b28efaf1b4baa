/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.internal;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.channels.spi.SelectorProvider;
import java.util.Locale;

/**
 * The JDK's built-in {@link SelectorProvider}, which opens every channel this library's provider
 * hands out and the JDK's own selector ({@code backend=jdk} and {@code auto}'s fallback). No public
 * API returns it once another provider is installed, and it must be reachable without the native
 * library and without JVM flags, or a jar on the class path whose library cannot load would break
 * NIO for the whole JVM.
 *
 * <p>It is made the way the JDK's {@code DefaultSelectorProvider} makes it, minus the constructor:
 * {@code Class.forName} may name a class of a package {@code java.base} does not export, and
 * {@code sun.misc.Unsafe.allocateInstance} (module {@code jdk.unsupported}, which opens
 * {@code sun.misc}) creates an instance without running a constructor. That instance is complete
 * because the provider classes hold no state, which is checked class by class before allocating.
 * {@code allocateInstance} is not one of the memory-access methods JDK 24 and later warn about.
 *
 * <p>Where that cannot work, the native library's JNI call to {@code DefaultSelectorProvider.get()}
 * is the second way (JNI applies no module checks): a modular application, or a runtime, whose
 * module graph lacks {@code jdk.unsupported} cannot see {@code sun.misc.Unsafe}, and a later JDK
 * may give the class state. When neither works the failure gives both reasons.
 */
public final class BuiltInProvider {

    private static SelectorProvider provider;

    private BuiltInProvider() {
    }

    public static synchronized SelectorProvider get() throws IOException {
        if (provider == null) {
            provider = find();
        }
        return provider;
    }

    /**
     * The class the JDK's {@code DefaultSelectorProvider} instantiates on this operating system
     * (JDK 17 to 25).
     */
    static String builtInClassName() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        if (os.startsWith("linux")) {
            return "sun.nio.ch.EPollSelectorProvider";
        } else if (os.startsWith("mac")) {
            return "sun.nio.ch.KQueueSelectorProvider";
        } else if (os.startsWith("windows")) {
            return "sun.nio.ch.WindowsSelectorProvider";
        }
        return "sun.nio.ch.PollSelectorProvider";
    }

    private static SelectorProvider find() throws IOException {
        try {
            return allocate(builtInClassName());
        } catch (ReflectiveOperationException | RuntimeException | LinkageError withoutConstructor) {
            try {
                NativeLibrary.ensureLoaded();
                return JdkChannels.builtInProvider();
            } catch (IOException nativeFailure) {
                IOException e = new IOException("the JDK's built-in SelectorProvider is out of reach: "
                        + "sun.misc.Unsafe cannot create " + builtInClassName() + " (" + why(withoutConstructor)
                        + "), and the native library cannot reach it: " + nativeFailure.getMessage(), nativeFailure);
                e.addSuppressed(withoutConstructor);
                throw e;
            }
        }
    }

    private static String why(Throwable withoutConstructor) {
        if (ModuleLayer.boot().findModule("jdk.unsupported").isEmpty()) {
            return "module jdk.unsupported is not in this application's module graph: "
                    + "add 'requires jdk.unsupported' to the application's module or run with --add-modules jdk.unsupported";
        }
        return withoutConstructor.toString();
    }

    private static SelectorProvider allocate(String className) throws ReflectiveOperationException {
        Class<?> builtIn = Class.forName(className, false, null);
        for (Class<?> c = builtIn; c != Object.class; c = c.getSuperclass()) {
            for (Field field : c.getDeclaredFields()) {
                if (!Modifier.isStatic(field.getModifiers())) {
                    throw new IllegalStateException(c.getName() + " has state (" + field.getName()
                            + ") that only its constructor can set");
                }
            }
        }
        Class<?> unsafeClass = Class.forName("sun.misc.Unsafe");
        Field theUnsafe = unsafeClass.getDeclaredField("theUnsafe");
        theUnsafe.setAccessible(true);
        Object unsafe = theUnsafe.get(null);
        return (SelectorProvider) unsafeClass.getMethod("allocateInstance", Class.class).invoke(unsafe, builtIn);
    }
}
