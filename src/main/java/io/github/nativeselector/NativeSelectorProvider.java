/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector;

import io.github.nativeselector.internal.BuiltInProvider;
import io.github.nativeselector.internal.ChannelChoice;
import io.github.nativeselector.internal.ChannelProviders;
import io.github.nativeselector.internal.Config;
import io.github.nativeselector.internal.NativeSelectors;
import io.github.nativeselector.internal.lean.LeanChannels;
import java.io.IOException;
import java.net.ProtocolFamily;
import java.net.StandardProtocolFamily;
import java.nio.channels.Channel;
import java.nio.channels.DatagramChannel;
import java.nio.channels.Pipe;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.spi.AbstractSelectableChannel;
import java.nio.channels.spi.AbstractSelector;
import java.nio.channels.spi.SelectorProvider;

/**
 * A {@link SelectorProvider} whose selectors run on the kernel's scalable readiness interface
 * (epoll on Linux) with batched registration changes. Channels are the JDK's own: every
 * {@code open*} method delegates to the JDK's built-in provider, and the channel it returns
 * reports this provider as its {@code provider()} where the JDK allows it ({@code java -jar} says
 * whether it does here). With {@code nativeselector.channels=lean}, TCP socket channels (IPv4 and
 * IPv6, and those they accept) are this library's own instead, on Linux.
 *
 * <p>Install it with {@code -Djava.nio.channels.spi.SelectorProvider=io.github.nativeselector.NativeSelectorProvider},
 * by putting the jar on the class path (it registers itself as a service), or by handing
 * {@link #provider()} to code that takes a provider.
 *
 * <p>Settings are read when a selector is opened: {@code nativeselector.backend} ({@code auto},
 * {@code epoll}, {@code io_uring}, {@code pollset}, {@code jdk}), {@code nativeselector.batchThreshold}
 * (1 to 65,536), {@code nativeselector.jmx} ({@code true}, {@code false}) and
 * {@code nativeselector.epollRing} ({@code true}, {@code false}); {@code nativeselector.channels}
 * ({@code jdk}, {@code lean}) when a socket channel is opened; {@code nativeselector.tmpdir} (a
 * directory) when the native library is first loaded. The README says what each does.
 */
public class NativeSelectorProvider extends SelectorProvider {

    private static final class Holder {
        static final NativeSelectorProvider INSTANCE = new NativeSelectorProvider();
    }

    /** Opens nothing and loads nothing: the JDK may construct it while choosing its provider. */
    public NativeSelectorProvider() {
    }

    /** {@return the shared instance} */
    public static NativeSelectorProvider provider() {
        return Holder.INSTANCE;
    }

    /**
     * A selector on the backend {@code nativeselector.backend} names.
     *
     * @throws IllegalArgumentException when a {@code nativeselector.*} property has a bad value
     * @throws IOException when the backend asked for by name cannot start
     */
    @Override
    public AbstractSelector openSelector() throws IOException {
        return openSelector(Config.fromSystemProperties());
    }

    AbstractSelector openSelector(Config config) throws IOException {
        return NativeSelectors.open(this, config);
    }

    @Override
    public DatagramChannel openDatagramChannel() throws IOException {
        return own(BuiltInProvider.get().openDatagramChannel());
    }

    @Override
    public DatagramChannel openDatagramChannel(ProtocolFamily family) throws IOException {
        return own(BuiltInProvider.get().openDatagramChannel(family));
    }

    @Override
    public Pipe openPipe() throws IOException {
        Pipe pipe = BuiltInProvider.get().openPipe();
        own(pipe.source());
        own(pipe.sink());
        return pipe;
    }

    @Override
    public ServerSocketChannel openServerSocketChannel() throws IOException {
        if (ChannelChoice.leanNow()) {
            return LeanChannels.openServerSocketChannel(this, null);
        }
        return own(BuiltInProvider.get().openServerSocketChannel());
    }

    @Override
    public ServerSocketChannel openServerSocketChannel(ProtocolFamily family) throws IOException {
        if (isInternet(family) && ChannelChoice.leanNow()) {
            return LeanChannels.openServerSocketChannel(this, family);
        }
        return own(BuiltInProvider.get().openServerSocketChannel(family));
    }

    @Override
    public SocketChannel openSocketChannel() throws IOException {
        if (ChannelChoice.leanNow()) {
            return LeanChannels.openSocketChannel(this, null);
        }
        return own(BuiltInProvider.get().openSocketChannel());
    }

    @Override
    public SocketChannel openSocketChannel(ProtocolFamily family) throws IOException {
        if (isInternet(family) && ChannelChoice.leanNow()) {
            return LeanChannels.openSocketChannel(this, family);
        }
        return own(BuiltInProvider.get().openSocketChannel(family));
    }

    /** Lean channels are TCP's: UNIX-domain ones, and families the JDK refuses, stay with the JDK. */
    private static boolean isInternet(ProtocolFamily family) {
        return family == StandardProtocolFamily.INET || family == StandardProtocolFamily.INET6;
    }

    /**
     * The channel the JVM inherited, made once by the JDK for the whole JVM with the system-wide
     * provider. When that is a provider of this class it is left alone; otherwise (this provider
     * used explicitly) it reports this provider.
     */
    @Override
    public Channel inheritedChannel() throws IOException {
        Channel inherited = BuiltInProvider.get().inheritedChannel();
        if (inherited instanceof AbstractSelectableChannel
                && !(((AbstractSelectableChannel) inherited).provider() instanceof NativeSelectorProvider)) {
            own((AbstractSelectableChannel) inherited);
        }
        return inherited;
    }

    /** The JDK's channel, reporting this provider where the JDK allows it ({@link ChannelProviders}). */
    private <C extends AbstractSelectableChannel> C own(C channel) {
        return ChannelProviders.adopt(channel, this);
    }
}
