/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.internal;

import io.github.nativeselector.internal.lean.LeanChannels;
import java.lang.System.Logger.Level;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The values of {@code -Dnativeselector.channels}: which implementation the provider's
 * {@code openSocketChannel} and {@code openServerSocketChannel} return. Read at every such call, as
 * the selector's settings are read at every {@code openSelector}.
 */
public enum ChannelChoice {
    /** The JDK's own channels, reporting this provider (the default). */
    JDK("jdk"),
    /** This library's socket channels on a descriptor of their own ({@link LeanChannels}), where they can work. */
    LEAN("lean");

    public static final String PROPERTY = "nativeselector.channels";

    private static final System.Logger LOG = System.getLogger("io.github.nativeselector");
    private static final AtomicBoolean FALLBACK_LOGGED = new AtomicBoolean();

    private final String propertyValue;

    ChannelChoice(String propertyValue) {
        this.propertyValue = propertyValue;
    }

    public String propertyValue() {
        return propertyValue;
    }

    /** What the system property asks for; a bad value fails naming the property. */
    public static ChannelChoice fromSystemProperties() {
        return Config.parseChoice(PROPERTY, System.getProperty(PROPERTY, JDK.propertyValue), values(),
                ChannelChoice::propertyValue);
    }

    /**
     * Whether the socket channels opened now are lean: asked for, and able to work. When they are
     * asked for but cannot work the JDK's are opened, and the reason is logged once per JVM.
     */
    public static boolean leanNow() {
        if (fromSystemProperties() != LEAN) {
            return false;
        }
        Optional<String> unavailable = leanUnavailableBecause();
        if (unavailable.isPresent() && FALLBACK_LOGGED.compareAndSet(false, true)) {
            LOG.log(Level.WARNING, PROPERTY + "=lean, but the JDK's channels are used: " + unavailable.get());
        }
        return unavailable.isEmpty();
    }

    /**
     * Why lean channels cannot work with the current settings, if they cannot: they need the
     * native library on Linux, and a native selector to watch them, since the JDK's selectors take
     * only the JDK's channels.
     */
    public static Optional<String> leanUnavailableBecause() {
        if (Config.parseBackend(System.getProperty(Config.BACKEND_PROPERTY, "auto")) == BackendChoice.JDK) {
            return Optional.of(Config.BACKEND_PROPERTY + "=jdk: the JDK's selector takes only the JDK's channels");
        }
        return LeanChannels.unavailableBecause();
    }
}
