/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.lean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.nativeselector.NativeSelectorProvider;
import io.github.nativeselector.internal.ChannelChoice;
import io.github.nativeselector.internal.Config;
import io.github.nativeselector.internal.lean.LeanChannel;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What {@code nativeselector.channels} makes the provider open: lean TCP channels when asked for
 * and possible, the JDK's otherwise, and a clear failure on a bad value. The property is read at
 * every open, so each test sets it and puts back what the JVM had.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ChannelSettingTest {

    private final NativeSelectorProvider provider = new NativeSelectorProvider();
    private String savedChannels;
    private String savedBackend;

    @BeforeEach
    void saveSettings() {
        savedChannels = System.getProperty(ChannelChoice.PROPERTY);
        savedBackend = System.clearProperty(Config.BACKEND_PROPERTY);
    }

    @AfterEach
    void restoreSettings() {
        restore(ChannelChoice.PROPERTY, savedChannels);
        restore(Config.BACKEND_PROPERTY, savedBackend);
    }

    @Test
    void leanGivesLeanTcpChannelsAndTheSocketsTheyAccept() throws Exception {
        System.setProperty(ChannelChoice.PROPERTY, "lean");
        try (ServerSocketChannel server = provider.openServerSocketChannel();
                SocketChannel client = provider.openSocketChannel();
                SocketChannel inet6 = provider.openSocketChannel(StandardProtocolFamily.INET6);
                ServerSocketChannel inet = provider.openServerSocketChannel(StandardProtocolFamily.INET)) {
            assertTrue(server instanceof LeanChannel && client instanceof LeanChannel, server + " " + client);
            assertTrue(inet6 instanceof LeanChannel && inet instanceof LeanChannel, inet6 + " " + inet);
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            client.connect(server.getLocalAddress());
            try (SocketChannel accepted = server.accept()) {
                assertTrue(accepted instanceof LeanChannel, accepted.toString());
                assertSame(provider, accepted.provider());
            }
            assertSame(provider, client.provider());
        }
    }

    @Test
    void unixDomainChannelsStayTheJdks() throws Exception {
        System.setProperty(ChannelChoice.PROPERTY, "lean");
        try (SocketChannel unix = provider.openSocketChannel(StandardProtocolFamily.UNIX);
                ServerSocketChannel unixServer = provider.openServerSocketChannel(StandardProtocolFamily.UNIX)) {
            assertFalse(unix instanceof LeanChannel || unixServer instanceof LeanChannel, unix + " " + unixServer);
            assertTrue(unix.getClass().getName().startsWith("sun.nio.ch."), unix.getClass().getName());
        }
    }

    @Test
    void theJdksSelectorMeansTheJdksChannels() throws Exception {
        System.setProperty(ChannelChoice.PROPERTY, "lean");
        System.setProperty(Config.BACKEND_PROPERTY, "jdk");
        try (SocketChannel socket = provider.openSocketChannel()) {
            assertFalse(socket instanceof LeanChannel, socket.getClass().getName());
        }
    }

    @Test
    void jdkAndTheDefaultGiveTheJdksChannels() throws Exception {
        System.clearProperty(ChannelChoice.PROPERTY);
        try (SocketChannel socket = provider.openSocketChannel()) {
            assertFalse(socket instanceof LeanChannel, socket.getClass().getName());
        }
        System.setProperty(ChannelChoice.PROPERTY, " JDK ");
        try (ServerSocketChannel server = provider.openServerSocketChannel()) {
            assertFalse(server instanceof LeanChannel, server.getClass().getName());
        }
    }

    @Test
    void aBadValueFailsNamingThePropertyAndTheAcceptedValues() {
        System.setProperty(ChannelChoice.PROPERTY, "fast");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, provider::openSocketChannel);
        assertEquals("nativeselector.channels=fast: accepted values are jdk, lean", e.getMessage());
        assertThrows(IllegalArgumentException.class, provider::openServerSocketChannel);
    }

    private static void restore(String property, String value) {
        if (value == null) {
            System.clearProperty(property);
        } else {
            System.setProperty(property, value);
        }
    }
}
