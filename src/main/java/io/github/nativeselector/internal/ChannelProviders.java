/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.internal;

import java.io.IOException;
import java.nio.channels.spi.AbstractSelectableChannel;
import java.nio.channels.spi.SelectorProvider;
import java.util.Optional;

/**
 * Makes a channel the JDK's built-in provider opened report this library's provider, as the
 * specification asks ({@code channel.provider()} is the provider that created it, and
 * {@code SocketChannel.open()} creates it through the system-wide provider), while it stays the
 * JDK's own implementation. Code that calls {@code channel.provider().openSelector()} then gets a
 * native selector. The JDK's channels take their provider from a constructor argument into a final
 * field, which the native library sets ({@link JdkChannels#setProvider}); sockets accepted by a
 * server channel take its {@code provider()}, so they follow.
 *
 * <p>Where that is impossible (the native library cannot load, or this JDK lacks the field),
 * channels keep reporting the JDK's provider, as before; {@link #unavailableBecause()} says why,
 * and {@code java -jar} prints it. The decision is made once, when first needed; the holder class's
 * initialisation makes it thread-safe without a lock.
 */
public final class ChannelProviders {

    private static final class Decision {
        static final Optional<String> UNAVAILABLE_BECAUSE = decide();
    }

    private ChannelProviders() {
    }

    /** Makes {@code channel}, not yet handed to anyone, report {@code provider}, where possible. */
    public static <C extends AbstractSelectableChannel> C adopt(C channel, SelectorProvider provider) {
        if (Decision.UNAVAILABLE_BECAUSE.isEmpty()) {
            JdkChannels.setProvider(channel, provider);
        }
        return channel;
    }

    /** Empty when channels report this library's provider; otherwise why they report the JDK's. */
    public static Optional<String> unavailableBecause() {
        return Decision.UNAVAILABLE_BECAUSE;
    }

    private static Optional<String> decide() {
        try {
            NativeLibrary.ensureLoaded();
        } catch (IOException e) {
            return Optional.of(e.getMessage());
        }
        try {
            if (!JdkChannels.providerFieldFound()) {
                return Optional.of("this JDK's java.nio.channels.spi.AbstractSelectableChannel has no field provider");
            }
        } catch (UnsatisfiedLinkError olderLibrary) {
            return Optional.of("the native library loaded (" + NativeLibrary.loadedFrom()
                    + ") is another version, without " + olderLibrary.getMessage());
        }
        return Optional.empty();
    }
}
