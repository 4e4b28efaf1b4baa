/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.internal;

import java.nio.channels.spi.AbstractSelectableChannel;
import java.nio.channels.spi.SelectorProvider;

/**
 * The JDK's internals this library needs, reached through JNI (which applies no module checks),
 * so no {@code --add-exports} is needed: each channel's fd and {@code kill()} from
 * {@code sun.nio.ch.SelChImpl}, the provider a channel reports, and the built-in provider for
 * where {@link BuiltInProvider} cannot make it.
 */
final class JdkChannels {

    private JdkChannels() {
    }

    /** {@code sun.nio.ch.DefaultSelectorProvider.get()}. */
    static native SelectorProvider builtInProvider();

    /** How each class's channels give their fd ({@link #fdAccess}), asked once per class. */
    private static final ClassValue<Integer> FD_ACCESS = new ClassValue<>() {
        @Override
        protected Integer computeValue(Class<?> type) {
            return fdAccess(type);
        }
    };

    /** The channel's fd, or -1 when it is not one of the JDK's selectable channels. */
    static int fd(Object channel) {
        return fd(channel, FD_ACCESS.get(channel.getClass()));
    }

    /**
     * The fd of a channel whose class {@link #fdAccess} answered {@code access} for: read from the
     * JDK's field where it has one, else asked of {@code SelChImpl.getFDVal()}.
     */
    private static native int fd(Object channel, int access);

    /** How channels of this class give their fd, for {@link #fd(Object, int)}. */
    private static native int fdAccess(Class<?> type);

    /** Finishes closing a channel that is closed and no longer registered: releases its fd. */
    static native void kill(Object channel) throws java.io.IOException;

    /** Whether this JDK's {@code AbstractSelectableChannel} has the field {@link #setProvider} sets. */
    static native boolean providerFieldFound();

    /** Makes {@code channel.provider()} return {@code provider}: sets the final field its constructor set. */
    static native void setProvider(AbstractSelectableChannel channel, SelectorProvider provider);
}
