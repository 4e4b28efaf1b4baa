/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.lean;

import static java.net.StandardSocketOptions.IP_TOS;
import static java.net.StandardSocketOptions.SO_KEEPALIVE;
import static java.net.StandardSocketOptions.SO_LINGER;
import static java.net.StandardSocketOptions.SO_RCVBUF;
import static java.net.StandardSocketOptions.SO_REUSEADDR;
import static java.net.StandardSocketOptions.SO_SNDBUF;
import static java.net.StandardSocketOptions.TCP_NODELAY;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.SocketOption;
import java.net.StandardSocketOptions;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.NetworkChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Socket options of socket and server channels: the set supported, the defaults, what setting
 * each to good and bad values does, and the checks on names. The JDK's channel of the same family,
 * in the same state, is the reference for every value; the kernel decides some of them (buffer
 * sizes), and the JDK reports them its way (halved on Linux).
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class SocketOptionTest {

    /**
     * Values each option is set to in turn, good and bad; options not listed get
     * {@link #OTHER_INTEGERS} or booleans.
     */
    private static final Map<String, List<Integer>> INTEGER_VALUES = Map.of(
            "SO_LINGER", List.of(0, 10, 65535, 65536, -1, -5, 1),
            "SO_RCVBUF", List.of(0, 1, 4096, 70000, 1 << 20, Integer.MAX_VALUE, -1),
            "SO_SNDBUF", List.of(0, 1, 4096, 70000, 1 << 20, Integer.MAX_VALUE, -1),
            "IP_TOS", List.of(0x10, 0x20, 255, 0, 256, -1),
            "TCP_KEEPIDLE", List.of(1, 60, 32767, 32768, 0, -1),
            "TCP_KEEPINTERVAL", List.of(1, 60, 32767, 32768, 0, -1),
            "TCP_KEEPCOUNT", List.of(1, 5, 127, 128, 0, -1));
    private static final List<Integer> OTHER_INTEGERS = List.of(1, 0, -1);

    @ParameterizedTest
    @MethodSource(Impl.WITH_FAMILIES)
    void supportedOptionsAreTheJdks(Impl impl, Family family) throws Exception {
        try (SocketChannel ch = impl.openSocket(family); SocketChannel jdk = Impl.JDK.openSocket(family);
                ServerSocketChannel server = impl.openServer(family);
                ServerSocketChannel jdkServer = Impl.JDK.openServer(family)) {
            assertTrue(ch.supportedOptions().containsAll(
                    Set.of(SO_SNDBUF, SO_RCVBUF, SO_KEEPALIVE, SO_REUSEADDR, SO_LINGER, TCP_NODELAY, IP_TOS)));
            assertTrue(server.supportedOptions().containsAll(Set.of(SO_RCVBUF, SO_REUSEADDR)));
            assertEquals(names(jdk.supportedOptions()), names(ch.supportedOptions()), "socket channel");
            assertEquals(names(jdkServer.supportedOptions()), names(server.supportedOptions()), "server channel");
            assertEquals(Set.of(), lookAlikes(jdk, ch), "socket channel options that are not the JDK's objects");
            assertEquals(Set.of(), lookAlikes(jdkServer, server),
                    "server channel options that are not the JDK's objects");
            assertThrows(UnsupportedOperationException.class, () -> ch.supportedOptions().add(SO_RCVBUF),
                    "the set cannot be changed");
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.WITH_FAMILIES)
    void defaultsAreTheJdks(Impl impl, Family family) throws Exception {
        try (SocketChannel ch = impl.openSocket(family); SocketChannel jdk = Impl.JDK.openSocket(family);
                ServerSocketChannel server = impl.openServer(family);
                ServerSocketChannel jdkServer = Impl.JDK.openServer(family)) {
            assertEquals(-1, ch.getOption(SO_LINGER));
            assertEquals(false, ch.getOption(TCP_NODELAY));
            assertEquals(false, ch.getOption(SO_KEEPALIVE));
            assertEquals(false, ch.getOption(SO_REUSEADDR));
            assertEquals(0, ch.getOption(IP_TOS));
            assertEquals(true, server.getOption(SO_REUSEADDR), "a server channel reuses addresses by default");
            assertEquals(values(jdk), values(ch), "socket channel");
            assertEquals(values(jdkServer), values(server), "server channel");
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.WITH_FAMILIES)
    void connectedChannelsStartWithTheJdksValues(Impl impl, Family family) throws Exception {
        try (Pair p = Pair.open(impl, family); Pair jdk = Pair.open(Impl.JDK, family)) {
            assertEquals(values(jdk.client), values(p.client), "connected channel");
            assertEquals(values(jdk.accepted), values(p.accepted), "accepted channel");
            assertEquals(values(jdk.server), values(p.server), "listening channel");
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.WITH_FAMILIES)
    void settingEachOptionOfAnUnconnectedChannel(Impl impl, Family family) throws Exception {
        try (SocketChannel ch = impl.openSocket(family); SocketChannel jdk = Impl.JDK.openSocket(family)) {
            assertSettings(jdk, ch);
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.WITH_FAMILIES)
    void settingEachOptionOfConnectedChannels(Impl impl, Family family) throws Exception {
        try (Pair p = Pair.open(impl, family); Pair jdk = Pair.open(Impl.JDK, family)) {
            assertSettings(jdk.client, p.client);
            assertSettings(jdk.accepted, p.accepted);
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.WITH_FAMILIES)
    void settingEachOptionOfServerChannels(Impl impl, Family family) throws Exception {
        try (ServerSocketChannel server = impl.openServer(family);
                ServerSocketChannel jdk = Impl.JDK.openServer(family)) {
            assertSettings(jdk, server);
            server.bind(family.loopback(0));
            jdk.bind(family.loopback(0));
            assertSettings(jdk, server);
        }
    }

    /**
     * Sets each option the JDK's channel supports to each of its values in turn, reading it back
     * after each, on both channels; the outcomes must be the same. Values known to the JDK are
     * checked outright too, so that the JDK's run is a test of its own.
     */
    private static void assertSettings(NetworkChannel jdk, NetworkChannel ch) {
        for (SocketOption<?> option : jdk.supportedOptions()) {
            assertEquals(settings(jdk, option), settings(ch, named(ch, option)), option.name());
        }
        if (jdk.supportedOptions().contains(TCP_NODELAY)) {
            assertEquals(List.of("set true: returned true", "set false: returned false", "set true: returned true"),
                    settings(ch, TCP_NODELAY));
        }
        if (jdk.supportedOptions().contains(SO_LINGER)) {
            List<String> linger = settings(ch, SO_LINGER);
            assertEquals("set 10: returned 10", linger.get(1));
            assertEquals("set 65536: returned 65535", linger.get(3), "the JDK caps the linger time");
            assertEquals("set -5: returned -1", linger.get(5), "any negative time turns linger off");
        }
        assertEquals("set -1: java.lang.IllegalArgumentException: Invalid send/receive buffer size",
                settings(ch, SO_RCVBUF).get(6));
        assertEquals("set true: returned true", settings(ch, SO_REUSEADDR).get(0));
    }

    @SuppressWarnings("unchecked")
    private static List<String> settings(NetworkChannel ch, SocketOption<?> option) {
        List<String> outcomes = new ArrayList<>();
        if (option.type() == Boolean.class) {
            for (boolean value : new boolean[] {true, false, true}) {
                outcomes.add("set " + value + ": " + setAndGet(ch, (SocketOption<Boolean>) option, value));
            }
        } else {
            for (int value : INTEGER_VALUES.getOrDefault(option.name(), OTHER_INTEGERS)) {
                outcomes.add("set " + value + ": " + setAndGet(ch, (SocketOption<Integer>) option, value));
            }
        }
        return outcomes;
    }

    private static <T> String setAndGet(NetworkChannel ch, SocketOption<T> option, T value) {
        return Outcome.of(() -> ch.setOption(option, value).getOption(option));
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void badValues(Impl impl) throws Exception {
        try (SocketChannel ch = impl.openSocket(); SocketChannel jdk = Impl.JDK.openSocket();
                ServerSocketChannel server = impl.openServer(); ServerSocketChannel jdkServer = Impl.JDK.openServer()) {
            for (SocketOption<?> option : jdk.supportedOptions()) {
                assertBadValue(jdk, ch, option, null);
                assertBadValue(jdk, ch, option, "not a " + option.type().getSimpleName());
            }
            for (SocketOption<?> option : jdkServer.supportedOptions()) {
                assertBadValue(jdkServer, server, option, null);
            }
            assertThrows(IllegalArgumentException.class, () -> ch.setOption(SO_LINGER, null));
            assertThrows(IllegalArgumentException.class, () -> ch.setOption(IP_TOS, 256));
            assertThrows(IllegalArgumentException.class, () -> ch.setOption(SO_SNDBUF, -1));
        }
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static void assertBadValue(NetworkChannel jdk, NetworkChannel ch, SocketOption option, Object value) {
        SocketOption own = named(ch, option);
        assertThrows(IllegalArgumentException.class, () -> ch.setOption(own, value), option + " = " + value);
        assertEquals(Outcome.of(() -> jdk.setOption(option, value)), Outcome.of(() -> ch.setOption(own, value)),
                option + " = " + value);
    }

    /**
     * The channel's own option of that name, so that an option object of its own that is not the
     * JDK's (which {@link #supportedOptionsAreTheJdks} reports) fails one test, not all of them.
     */
    private static SocketOption<?> named(NetworkChannel ch, SocketOption<?> option) {
        return ch.supportedOptions().stream().filter(o -> o.name().equals(option.name())).findFirst().orElse(option);
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void unsupportedOptions(Impl impl) throws Exception {
        try (SocketChannel ch = impl.openSocket(); SocketChannel jdk = Impl.JDK.openSocket();
                ServerSocketChannel server = impl.openServer(); ServerSocketChannel jdkServer = Impl.JDK.openServer()) {
            List<SocketOption<?>> notForSockets = List.of(StandardSocketOptions.IP_MULTICAST_IF,
                    StandardSocketOptions.IP_MULTICAST_LOOP, StandardSocketOptions.SO_BROADCAST);
            for (SocketOption<?> option : notForSockets) {
                assertUnsupported(jdk, ch, option);
                assertUnsupported(jdkServer, server, option);
            }
            for (SocketOption<?> option : jdk.supportedOptions()) {
                if (!jdkServer.supportedOptions().contains(option)) {
                    assertUnsupported(jdkServer, server, option);
                }
            }
            UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class,
                    () -> server.setOption(TCP_NODELAY, true));
            assertEquals("'TCP_NODELAY' not supported", e.getMessage());
            ch.close();
            server.close();
            jdk.close();
            jdkServer.close();
            for (SocketOption<?> option : notForSockets) {
                assertUnsupported(jdk, ch, option);
                assertUnsupported(jdkServer, server, option);
            }
        }
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static void assertUnsupported(NetworkChannel jdk, NetworkChannel ch, SocketOption option) {
        Object value = option.type() == Boolean.class ? (Object) true : (Object) 1;
        assertThrows(UnsupportedOperationException.class, () -> ch.setOption(option, value), option.name());
        assertThrows(UnsupportedOperationException.class, () -> ch.getOption(option), option.name());
        assertEquals(Outcome.of(() -> jdk.setOption(option, value)), Outcome.of(() -> ch.setOption(option, value)));
        assertEquals(Outcome.of(() -> jdk.getOption(option)), Outcome.of(() -> ch.getOption(option)));
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void nullNames(Impl impl) throws Exception {
        SocketChannel ch = impl.openSocket();
        ServerSocketChannel server = impl.openServer();
        for (int round = 0; round < 2; round++) {
            assertThrows(NullPointerException.class, () -> ch.setOption(null, 1));
            assertThrows(NullPointerException.class, () -> ch.getOption(null));
            assertThrows(NullPointerException.class, () -> server.setOption(null, 1));
            assertThrows(NullPointerException.class, () -> server.getOption(null));
            ch.close(); // and the same once closed
            server.close();
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void closedChannels(Impl impl) throws Exception {
        SocketChannel ch = impl.openSocket();
        ServerSocketChannel server = impl.openServer();
        Set<SocketOption<?>> supported = ch.supportedOptions();
        ch.close();
        server.close();
        assertEquals(supported, ch.supportedOptions(), "still known once closed");
        for (SocketOption<?> option : supported) {
            assertThrows(ClosedChannelException.class, () -> ch.getOption(option), option.name());
        }
        for (SocketOption<?> option : server.supportedOptions()) {
            assertThrows(ClosedChannelException.class, () -> server.getOption(option), option.name());
        }
        assertThrows(ClosedChannelException.class, () -> ch.setOption(TCP_NODELAY, true));
        assertThrows(ClosedChannelException.class, () -> server.setOption(SO_RCVBUF, 8192));
    }

    /** The names of the channel's options that the JDK's channel does not know as the same objects. */
    private static Set<String> lookAlikes(NetworkChannel jdk, NetworkChannel ch) {
        return ch.supportedOptions().stream().filter(o -> !jdk.supportedOptions().contains(o)).map(SocketOption::name)
                .collect(Collectors.toCollection(TreeSet::new));
    }

    private static Set<String> names(Set<SocketOption<?>> options) {
        return options.stream().map(SocketOption::name).collect(Collectors.toCollection(TreeSet::new));
    }

    /** Every supported option's value (or what reading it threw), by name. */
    private static Map<String, String> values(NetworkChannel ch) {
        Map<String, String> values = new TreeMap<>();
        for (SocketOption<?> option : ch.supportedOptions()) {
            values.put(option.name(), Outcome.of(() -> ch.getOption(option)));
        }
        return values;
    }
}
