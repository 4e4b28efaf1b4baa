/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.jmh;

import io.github.nativeselector.bench.selectors.SelectorKind;
import io.github.nativeselector.bench.selectors.SelectorStatsFields;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.DatagramChannel;
import java.nio.channels.Selector;
import java.util.List;

/** What every benchmark sets up the same way: its selector, idle channels, the log line of counters. */
final class Fixtures {

    /** The JVM flags of every fork: the native library may load, the JDK's poll selector may be opened. */
    static final String NATIVE_ACCESS = "--enable-native-access=ALL-UNNAMED";
    static final String JDK_POLL_ACCESS = SelectorKind.JDK_POLL_JVM_FLAG;

    private Fixtures() {}

    /** The selector the {@code backend} parameter names, checked to be that one. */
    static Selector open(String backend, int batchThreshold) throws IOException {
        return SelectorKind.named(backend).open(batchThreshold);
    }

    /**
     * A channel that costs one descriptor and is never ready unless sent to: a non-blocking UDP
     * socket bound to the loopback address.
     */
    static DatagramChannel udpChannel() throws IOException {
        DatagramChannel channel = DatagramChannel.open();
        channel.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        channel.configureBlocking(false);
        return channel;
    }

    static void closeAll(DatagramChannel[] channels) throws IOException {
        if (channels == null) {
            return;
        }
        for (DatagramChannel channel : channels) {
            if (channel != null) {
                channel.close();
            }
        }
    }

    /** One line for the fork's log: the selector's counters, or a note that it has none. */
    static String counters(Selector selector) {
        return SelectorStatsFields.of(List.of(selector)).map(c -> "stats " + SelectorStatsFields.fields(c))
                .orElse("stats: none (" + selector.getClass().getName() + ")");
    }
}
