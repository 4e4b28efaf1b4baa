package io.github.nativeselector.internal;

import java.nio.channels.spi.SelectorProvider;

/**
 * The JDK's internals a selector needs, reached through JNI (which applies no module checks),
 * so no {@code --add-exports} is needed: the built-in provider, and each channel's fd and
 * {@code kill()} from {@code sun.nio.ch.SelChImpl}.
 */
final class JdkChannels {

    private JdkChannels() {
    }

    /** {@code sun.nio.ch.DefaultSelectorProvider.get()}. */
    static native SelectorProvider builtInProvider();

    /** The channel's fd, or -1 when it is not one of the JDK's selectable channels. */
    static native int fd(Object channel);

    /** Finishes closing a channel that is closed and no longer registered: releases its fd. */
    static native void kill(Object channel) throws java.io.IOException;
}
