/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

/**
 * A drop-in {@link java.nio.channels.spi.SelectorProvider} whose selectors run on the kernel's
 * scalable readiness interfaces. Only {@code io.github.nativeselector} is exported; the
 * implementation, {@code io.github.nativeselector.internal}, is neither exported nor opened.
 */
module io.github.nativeselector {
    exports io.github.nativeselector;

    // Each is used only where the module graph has it, as on the class path: the MBeans need
    // java.management and the flight recorder's events jdk.jfr (a runtime built with jlink may have
    // neither); the JDK's built-in provider is made with sun.misc.Unsafe, found by reflection, when
    // jdk.unsupported is there, and through the native library when it is not.
    requires static java.management;
    requires static jdk.jfr;
    requires static jdk.unsupported;

    provides java.nio.channels.spi.SelectorProvider with io.github.nativeselector.NativeSelectorProvider;
}
