/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.support;

import io.github.nativeselector.internal.ChannelChoice;
import io.github.nativeselector.internal.lean.LeanChannel;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.channels.NetworkChannel;
import java.nio.channels.SelectableChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.stream.Collectors;

/**
 * The suite runs twice: on the JDK's socket channels, and with {@code nativeselector.channels=lean}
 * (Maven's {@code lean-channels} execution), where {@code SocketChannel.open()} and
 * {@code ServerSocketChannel.open()} give lean channels. What a test expects of a channel's class
 * depends on which run it is in.
 */
public final class LeanRun {

    private LeanRun() {
    }

    /**
     * What a JVM asked for lean channels logs, once, when it cannot have them (no native library,
     * or the JDK's selector): the children of the lean run log it where their test takes those away.
     */
    public static final String FALLBACK_WARNING = ChannelChoice.PROPERTY + "=lean, but the JDK's channels are used";

    /** Whether this JVM, and the children it starts ({@link InstallChild}), are asked for lean channels. */
    public static boolean requested() {
        return ChannelChoice.fromSystemProperties() == ChannelChoice.LEAN;
    }

    /**
     * {@code stderr} of a child without the two lines of {@link #FALLBACK_WARNING} (the logger's
     * header and the warning), which a child of the lean run that cannot have lean channels prints.
     */
    public static String withoutFallbackWarning(String stderr) {
        return stderr.lines()
                .filter(line -> !line.contains(FALLBACK_WARNING) && !line.endsWith(ChannelChoice.class.getName() + " leanNow"))
                .collect(Collectors.joining("\n"));
    }

    /** Whether TCP socket channels opened through this library's provider are lean in this JVM. */
    public static boolean active() {
        return requested() && ChannelChoice.leanUnavailableBecause().isEmpty();
    }

    /**
     * Whether {@code channel}, opened through this library's provider, has a class this run gives
     * it: lean for TCP socket channels in the lean run, the JDK's ({@code sun.nio.ch}) for everything
     * else. A channel's family is told by its local address: for an unbound one, which has none,
     * either class passes, and the test asks {@link #active()} itself.
     */
    public static boolean hasExpectedClass(SelectableChannel channel) throws IOException {
        if (channel instanceof LeanChannel) {
            return active();
        }
        SocketAddress local = channel instanceof NetworkChannel network ? network.getLocalAddress() : null;
        boolean tcp = (channel instanceof SocketChannel || channel instanceof ServerSocketChannel)
                && local instanceof InetSocketAddress;
        return channel.getClass().getName().startsWith("sun.nio.ch.") && !(tcp && active());
    }
}
