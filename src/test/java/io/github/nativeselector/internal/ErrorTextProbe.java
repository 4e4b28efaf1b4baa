/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.internal;

import io.github.nativeselector.NativeSelectorProvider;
import io.github.nativeselector.internal.lean.LeanChannels;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.channels.spi.SelectorProvider;

/**
 * Run by {@link ErrorTextTest} in a child JVM of the test's locale: prints, as {@code \\uXXXX}
 * escapes so that no encoding of the output stands between, the text of a refused connection as
 * the JDK's channel words it ({@code JDK=}), as a lean channel does ({@code LEAN=}), and as the
 * library describes the errno ({@code DESCRIBED=}).
 */
public final class ErrorTextProbe {

    /** ECONNREFUSED on Linux. */
    private static final int CONNECTION_REFUSED = 111;

    private ErrorTextProbe() {
    }

    public static void main(String[] args) throws Exception {
        // A port bound and not listening, which no one else can take meanwhile, refuses connections.
        try (SocketChannel holder = SocketChannel.open()) {
            holder.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            InetSocketAddress refusing = (InetSocketAddress) holder.getLocalAddress();
            System.out.println("JDK=" + escaped(refusal(SelectorProvider.provider().openSocketChannel(), refusing)));
            System.out.println("LEAN=" + escaped(refusal(
                    LeanChannels.openSocketChannel(NativeSelectorProvider.provider(), null), refusing)));
        }
        System.out.println("DESCRIBED=" + escaped(Errno.describe(CONNECTION_REFUSED)));
    }

    private static String refusal(SocketChannel channel, InetSocketAddress closed) throws IOException {
        try (channel) {
            channel.connect(closed);
            return "connected";
        } catch (IOException e) {
            return e.getMessage();
        }
    }

    private static String escaped(String text) {
        StringBuilder escaped = new StringBuilder();
        text.chars().forEach(c -> escaped.append(c < 0x80 ? String.valueOf((char) c) : String.format("\\u%04x", c)));
        return escaped.toString();
    }
}
