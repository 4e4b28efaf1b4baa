/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.install;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.nativeselector.NativeSelectorProvider;
import io.github.nativeselector.internal.NativeSelector;
import io.github.nativeselector.internal.lean.LeanChannel;
import io.github.nativeselector.support.ContractChannels.DatagramPair;
import io.github.nativeselector.support.ContractChannels.Listener;
import io.github.nativeselector.support.ContractChannels.PipePair;
import io.github.nativeselector.support.ContractChannels.SocketKind;
import io.github.nativeselector.support.ContractChannels.SocketPair;
import io.github.nativeselector.support.ContractSupport;
import io.github.nativeselector.support.InstallChild;
import io.github.nativeselector.support.LeanRun;
import io.github.nativeselector.support.TestSelectors;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.channels.Pipe;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.channels.spi.SelectorProvider;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A channel's {@code provider()} is the provider that created it (the specification, and OpenJDK's
 * own tests): every channel this provider opens, or accepts, or inherits, reports it while it stays
 * one of the JDK's own channels (TCP sockets are lean ones in the suite's run on lean channels). So {@code channel.provider().openSelector()} is a native selector,
 * and the JDK's selector still takes these channels. This JVM has the provider installed through
 * the services file.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ChannelProviderTest {

    @ParameterizedTest
    @EnumSource(SocketKind.class)
    void socketsOpenedAndAcceptedReportTheSystemWideProvider(SocketKind kind) throws Exception {
        try (SocketPair pair = SocketPair.open(kind)) {
            assertReport(SelectorProvider.provider(), pair.listener.channel, pair.local, pair.peer);
        }
    }

    @Test
    void socketsAcceptedThroughTheServerSocketAdaptorReportIt() throws Exception {
        try (Listener listener = Listener.open(SocketKind.INET);
                SocketChannel client = listener.connectBlocking();
                Socket accepted = listener.channel.socket().accept()) {
            assertReport(SelectorProvider.provider(), client, accepted.getChannel());
        }
    }

    @Test
    void datagramChannelsAndPipesReportIt() throws Exception {
        try (DatagramPair datagrams = DatagramPair.open();
                DatagramChannel inet = DatagramChannel.open(StandardProtocolFamily.INET);
                PipePair pipe = PipePair.open()) {
            assertReport(SelectorProvider.provider(), datagrams.local, datagrams.peer, inet, pipe.source, pipe.sink);
        }
    }

    @Test
    void aProviderUsedExplicitlyIsTheOneItsChannelsReport() throws Exception {
        NativeSelectorProvider provider = new NativeSelectorProvider();
        Pipe pipe = provider.openPipe();
        try (SocketChannel socket = provider.openSocketChannel();
                SocketChannel unix = provider.openSocketChannel(StandardProtocolFamily.UNIX);
                ServerSocketChannel server = provider.openServerSocketChannel();
                ServerSocketChannel unixServer = provider.openServerSocketChannel(StandardProtocolFamily.UNIX);
                DatagramChannel datagram = provider.openDatagramChannel();
                DatagramChannel inet = provider.openDatagramChannel(StandardProtocolFamily.INET);
                Pipe.SourceChannel source = pipe.source();
                Pipe.SinkChannel sink = pipe.sink()) {
            assertReport(provider, socket, unix, server, unixServer, datagram, inet, source, sink);
            assertEquals(LeanRun.active(), socket instanceof LeanChannel, socket.getClass().getName());
            assertEquals(LeanRun.active(), server instanceof LeanChannel, server.getClass().getName());
            assertFalse(unix instanceof LeanChannel || unixServer instanceof LeanChannel);
        }
    }

    @Test
    void theChannelsProviderOpensANativeSelectorThatSelectsIt() throws Exception {
        try (SocketPair pair = SocketPair.open(SocketKind.INET);
                Selector selector = pair.local.provider().openSelector()) {
            assertInstanceOf(NativeSelector.class, selector);
            assertReadableOnceWritten(selector, pair.local, pair.peer);
        }
    }

    @Test
    void theJdksSelectorTakesTheseChannels() throws Exception {
        try (SocketPair pair = SocketPair.open(SocketKind.UNIX);
                PipePair pipe = PipePair.open();
                Selector selector = TestSelectors.JDK.open()) {
            assertTrue(selector.getClass().getName().startsWith("sun.nio.ch."), selector.getClass().getName());
            assertReport(SelectorProvider.provider(), pair.local, pipe.source);
            assertReadableOnceWritten(selector, pair.local, pair.peer);
            pipe.source.configureBlocking(false);
            assertReadableOnceWritten(selector, pipe.source, pipe.sink);
        }
    }

    /** Installed, the JDK made the inherited channel with this provider already. */
    @Test
    void theInheritedChannelReportsTheSystemWideProvider() throws Exception {
        String received = inheritSocket(InstallChild.testClassPath(), "system", InstallChild.FLAG);
        assertEquals("hello", received);
    }

    /** Not installed, the JDK made it with its own provider; asked through this one, it reports this one. */
    @Test
    void theInheritedChannelReportsThisProviderWhenAskedThroughIt(@TempDir Path dir) throws Exception {
        String received = inheritSocket(InstallTest.classPathWithoutServicesFile(dir), "explicit");
        assertEquals("hello", received);
    }

    @Test
    void leanChannelsTakeIpv6AsTheJdksDo() throws Exception {
        assertIpv6ChoiceAlike(List.of("bash", "-c", "exec \"$@\" </dev/null", "bash"));
    }

    /**
     * A server started with an IPv4 socket as its standard input (inetd, systemd): JDK 17 takes no
     * IPv6 then, later JDKs do; lean channels do as the running JDK.
     */
    @Test
    void leanChannelsTakeIpv6AsTheJdksDoWhenStartedWithAnIpv4Socket() throws Exception {
        try (Listener listener = Listener.open(SocketKind.INET)) {
            int port = ((InetSocketAddress) listener.address).getPort();
            assertIpv6ChoiceAlike(List.of("bash", "-c", "exec \"$@\" 0<>/dev/tcp/127.0.0.1/" + port, "bash"));
        }
    }

    // ---- helpers -------------------------------------------------------------------------

    /** Runs {@link Inet6ChoiceProbe} on lean channels through {@code launcher}: lean as the JDK's. */
    private static void assertIpv6ChoiceAlike(List<String> launcher) throws Exception {
        InstallChild.Result child = InstallChild.run(launcher, InstallChild.testClassPath(),
                List.of("-Dnativeselector.channels=lean"), Inet6ChoiceProbe.class);
        assertEquals(0, child.exitCode(), child::toString);
        assertEquals("io.github.nativeselector.internal.lean.LeanSocketChannel", child.value("lean.class"),
                child::toString);
        for (String what : List.of("bindToIpv6Loopback", "inet6Socket")) {
            assertEquals(child.value("jdk." + what), child.value("lean." + what), what + ": " + child);
        }
    }

    /**
     * OpenJDK's check, for each channel: {@code ch.provider() == provider}, on the JDK's own channel
     * class (or lean's, for TCP sockets in the suite's run on lean channels).
     */
    private static void assertReport(SelectorProvider provider, SelectableChannel... channels) throws IOException {
        assertInstanceOf(NativeSelectorProvider.class, provider);
        for (SelectableChannel channel : channels) {
            assertNotNull(channel);
            assertTrue(LeanRun.hasExpectedClass(channel), () -> "not the class this run gives it: "
                    + channel.getClass().getName() + (LeanRun.active() ? " (lean channels)" : " (the JDK's channels)"));
            assertSame(provider, channel.provider(), () -> channel.getClass().getName() + " reports "
                    + channel.provider() + ", not the provider that created it");
        }
    }

    /** {@code channel}, registered for reading, is selected once {@code peer} wrote to it. */
    private static void assertReadableOnceWritten(Selector selector, SelectableChannel channel,
            WritableByteChannel peer) throws IOException {
        channel.configureBlocking(false);
        SelectionKey key = channel.register(selector, SelectionKey.OP_READ);
        assertEquals(0, selector.selectNow(), "nothing written yet");
        peer.write(ByteBuffer.wrap("x".getBytes(StandardCharsets.US_ASCII)));
        ContractSupport.awaitReadyOps(selector, key, SelectionKey.OP_READ);
        key.cancel();
        selector.selectNow();
    }

    /**
     * Runs {@link InheritedChannelProbe} with a socket connected to a loopback listener as its
     * standard input (bash's {@code /dev/tcp}), checks what it printed, and returns what it sent.
     */
    private static String inheritSocket(String classPath, String asked, String... jvmArgs) throws Exception {
        try (Listener listener = Listener.open(SocketKind.INET)) {
            int port = ((InetSocketAddress) listener.address).getPort();
            List<String> launcher = List.of("bash", "-c", "exec \"$@\" 0<>/dev/tcp/127.0.0.1/" + port, "bash");
            InstallChild.Result child = InstallChild.run(launcher, classPath, List.of(jvmArgs),
                    InheritedChannelProbe.class, asked);
            assertEquals(0, child.exitCode(), child::toString);
            assertTrue(child.value("inherited").startsWith("sun.nio.ch."), child::toString);
            assertEquals("the provider asked", child.value("reports"), child::toString);
            assertEquals(NativeSelector.class.getName(), child.value("selector"), child::toString);
            listener.channel.configureBlocking(false);
            try (SocketChannel accepted = listener.channel.accept()) {
                assertNotNull(accepted, () -> "the child never connected: " + child);
                accepted.configureBlocking(true);
                ByteBuffer buffer = ByteBuffer.allocate(64);
                while (accepted.read(buffer) >= 0) {
                    // The child has exited: its end is closed, so this ends.
                }
                return new String(buffer.array(), 0, buffer.position(), StandardCharsets.US_ASCII);
            }
        }
    }
}
