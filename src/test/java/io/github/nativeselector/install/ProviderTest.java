/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.install;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.github.nativeselector.NativeSelectorProvider;
import io.github.nativeselector.SelectorStats;
import io.github.nativeselector.internal.NativeSelector;
import io.github.nativeselector.support.CloseReuseFds;
import io.github.nativeselector.support.InstallChild;
import io.github.nativeselector.support.LeanRun;
import java.io.IOException;
import java.lang.ref.Reference;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ProtocolFamily;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channel;
import java.nio.channels.DatagramChannel;
import java.nio.channels.Pipe;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.spi.SelectorProvider;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every factory method of {@link NativeSelectorProvider}: JDK channels that work and register with
 * our selector; the selector the settings ask for; bad settings; the shared instance; a constructor
 * that does nothing.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ProviderTest {

    private static final String BACKEND = "nativeselector.backend";
    private static final String THRESHOLD = "nativeselector.batchThreshold";

    private String savedBackend;
    private String savedThreshold;
    private final List<AutoCloseable> toClose = new ArrayList<>();

    @BeforeEach
    void clearSettings() {
        savedBackend = System.clearProperty(BACKEND);
        savedThreshold = System.clearProperty(THRESHOLD);
    }

    @AfterEach
    void restoreSettingsAndClose() throws Exception {
        restore(BACKEND, savedBackend);
        restore(THRESHOLD, savedThreshold);
        Exception failure = null;
        for (int i = toClose.size() - 1; i >= 0; i--) {
            try {
                toClose.get(i).close();
            } catch (Exception e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    private static void restore(String key, String value) {
        if (value == null) {
            System.clearProperty(key);
        } else {
            System.setProperty(key, value);
        }
    }

    private <T extends AutoCloseable> T closeLater(T resource) {
        toClose.add(resource);
        return resource;
    }

    private Selector nativeSelector(NativeSelectorProvider provider) throws IOException {
        Selector selector = closeLater(provider.openSelector());
        assertInstanceOf(NativeSelector.class, selector);
        assertSame(provider, selector.provider());
        return selector;
    }

    private static void assertOpenOfThisRunsClass(Channel channel) throws IOException {
        assertNotNull(channel);
        assertTrue(LeanRun.hasExpectedClass((SelectableChannel) channel),
                () -> "not the class this run gives it: " + channel.getClass().getName());
        assertTrue(channel.isOpen());
    }

    // ---- channels ------------------------------------------------------------------------

    @Test
    void socketChannelsConnectAcceptAndExchangeThroughOurSelector() throws Exception {
        NativeSelectorProvider provider = new NativeSelectorProvider();
        ServerSocketChannel server = closeLater(provider.openServerSocketChannel());
        SocketChannel client = closeLater(provider.openSocketChannel());
        streamExchange(provider, server, client, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    }

    @Test
    void socketChannelsOfTheInetFamilyWork() throws Exception {
        NativeSelectorProvider provider = new NativeSelectorProvider();
        ServerSocketChannel server = closeLater(provider.openServerSocketChannel(StandardProtocolFamily.INET));
        SocketChannel client = closeLater(provider.openSocketChannel(StandardProtocolFamily.INET));
        streamExchange(provider, server, client, new InetSocketAddress("127.0.0.1", 0));
    }

    @Test
    void unixDomainSocketChannelsBindConnectAndExchange(@TempDir Path dir) throws Exception {
        NativeSelectorProvider provider = new NativeSelectorProvider();
        ServerSocketChannel server = closeLater(provider.openServerSocketChannel(StandardProtocolFamily.UNIX));
        SocketChannel client = closeLater(provider.openSocketChannel(StandardProtocolFamily.UNIX));
        Path socket = dir.resolve("echo.sock");
        streamExchange(provider, server, client, UnixDomainSocketAddress.of(socket));
        assertEquals(UnixDomainSocketAddress.of(socket), server.getLocalAddress());
        assertTrue(Files.exists(socket), "bound socket file");
    }

    /** Binds, connects and accepts through a native selector, then exchanges bytes both ways and sees EOF. */
    private void streamExchange(NativeSelectorProvider provider, ServerSocketChannel server, SocketChannel client,
            SocketAddress bindTo) throws Exception {
        assertOpenOfThisRunsClass(server);
        assertOpenOfThisRunsClass(client);
        Selector selector = nativeSelector(provider);
        server.bind(bindTo);
        server.configureBlocking(false);
        client.configureBlocking(false);
        SelectionKey serverKey = server.register(selector, SelectionKey.OP_ACCEPT);
        assertSame(selector, serverKey.selector());
        boolean connected = client.connect(server.getLocalAddress());
        SelectionKey clientKey = client.register(selector, connected ? 0 : SelectionKey.OP_CONNECT);
        if (!connected) {
            awaitReady(selector, clientKey, SelectionKey.OP_CONNECT);
            assertTrue(client.finishConnect());
        }
        clientKey.interestOps(0);
        awaitReady(selector, serverKey, SelectionKey.OP_ACCEPT);
        SocketChannel accepted = closeLater(server.accept());
        assertOpenOfThisRunsClass(accepted);
        accepted.configureBlocking(false);
        SelectionKey acceptedKey = accepted.register(selector, SelectionKey.OP_READ);
        serverKey.interestOps(0);
        assertEquals(Set.of(serverKey, clientKey, acceptedKey), selector.keys());

        writeFully(client, "ping from the client");
        assertEquals("ping from the client", readExactly(selector, acceptedKey, "ping from the client".length()));
        acceptedKey.interestOps(0);
        clientKey.interestOps(SelectionKey.OP_READ);
        writeFully(accepted, "pong from the server");
        assertEquals("pong from the server", readExactly(selector, clientKey, "pong from the server".length()));

        clientKey.cancel();
        client.close();
        acceptedKey.interestOps(SelectionKey.OP_READ);
        awaitReady(selector, acceptedKey, SelectionKey.OP_READ);
        assertEquals(-1, accepted.read(ByteBuffer.allocate(16)), "EOF once the client is closed");
    }

    @Test
    void datagramChannelExchangesThroughOurSelector() throws Exception {
        NativeSelectorProvider provider = new NativeSelectorProvider();
        datagramExchange(provider, provider.openDatagramChannel(), provider.openDatagramChannel(),
                new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    }

    @Test
    void datagramChannelOfAFamilyExchangesThroughOurSelector() throws Exception {
        assumeTrue(ipv6LoopbackWorks(), "an IPv6 datagram channel cannot bind ::1 here (no IPv6 loopback)");
        NativeSelectorProvider provider = new NativeSelectorProvider();
        ProtocolFamily family = StandardProtocolFamily.INET6;
        datagramExchange(provider, provider.openDatagramChannel(family), provider.openDatagramChannel(family),
                new InetSocketAddress("::1", 0));
    }

    private static boolean ipv6LoopbackWorks() {
        try (DatagramChannel probe = DatagramChannel.open(StandardProtocolFamily.INET6)) {
            probe.bind(new InetSocketAddress("::1", 0));
            return true;
        } catch (IOException | UnsupportedOperationException e) {
            return false;
        }
    }

    private void datagramExchange(NativeSelectorProvider provider, DatagramChannel receiver, DatagramChannel sender,
            InetSocketAddress loopback) throws Exception {
        closeLater(receiver);
        closeLater(sender);
        assertOpenOfThisRunsClass(receiver);
        assertOpenOfThisRunsClass(sender);
        Selector selector = nativeSelector(provider);
        receiver.bind(loopback).configureBlocking(false);
        sender.bind(loopback).configureBlocking(false);
        SelectionKey receiveKey = receiver.register(selector, SelectionKey.OP_READ);
        SelectionKey sendKey = sender.register(selector, SelectionKey.OP_WRITE);
        awaitReady(selector, sendKey, SelectionKey.OP_WRITE);
        sendKey.interestOps(0);
        // Nothing sent yet: the receiver must not be reported ready.
        assertEquals(0, selector.selectNow());
        byte[] payload = "one datagram".getBytes(StandardCharsets.US_ASCII);
        assertEquals(payload.length, sender.send(ByteBuffer.wrap(payload), receiver.getLocalAddress()));
        awaitReady(selector, receiveKey, SelectionKey.OP_READ);
        ByteBuffer buffer = ByteBuffer.allocate(100);
        SocketAddress from = receiver.receive(buffer);
        assertEquals(sender.getLocalAddress(), from);
        assertEquals("one datagram", new String(buffer.array(), 0, buffer.position(), StandardCharsets.US_ASCII));
        assertEquals(0, selector.selectNow(), "the datagram was consumed: nothing is ready");
    }

    @Test
    void pipeExchangesThroughOurSelector() throws Exception {
        NativeSelectorProvider provider = new NativeSelectorProvider();
        Pipe pipe = provider.openPipe();
        assertNotNull(pipe);
        Pipe.SinkChannel sink = closeLater(pipe.sink());
        Pipe.SourceChannel source = closeLater(pipe.source());
        assertOpenOfThisRunsClass(sink);
        assertOpenOfThisRunsClass(source);
        Selector selector = nativeSelector(provider);
        sink.configureBlocking(false);
        source.configureBlocking(false);
        SelectionKey sinkKey = sink.register(selector, SelectionKey.OP_WRITE);
        SelectionKey sourceKey = source.register(selector, SelectionKey.OP_READ);
        awaitReady(selector, sinkKey, SelectionKey.OP_WRITE);
        sinkKey.interestOps(0);
        assertEquals(0, selector.selectNow(), "empty pipe: source not ready");
        writeFully(sink, "through the pipe");
        assertEquals("through the pipe", readExactly(selector, sourceKey, "through the pipe".length()));
        sinkKey.cancel();
        sink.close();
        awaitReady(selector, sourceKey, SelectionKey.OP_READ);
        assertEquals(-1, source.read(ByteBuffer.allocate(10)), "EOF once the sink is closed");
    }

    @Test
    void inheritedChannelIsNullWithoutThrowing() throws Exception {
        assertNull(new NativeSelectorProvider().inheritedChannel());
        assertNull(NativeSelectorProvider.provider().inheritedChannel());
    }

    // ---- selectors -----------------------------------------------------------------------

    @Test
    void openSelectorGivesANativeSelectorByDefault() throws Exception {
        NativeSelectorProvider provider = new NativeSelectorProvider();
        Selector selector = nativeSelector(provider);
        assertEquals("epoll", SelectorStats.of(selector).orElseThrow().backend());
        assertEquals(0, selector.selectNow());
        assertTrue(SelectorStats.of(selector).orElseThrow().polls() >= 1);
    }

    @Test
    void openSelectorGivesANativeSelectorForEpoll() throws Exception {
        System.setProperty(BACKEND, "epoll");
        System.setProperty(THRESHOLD, "1");
        assertInstanceOf(NativeSelector.class, closeLater(new NativeSelectorProvider().openSelector()));
    }

    @Test
    void openSelectorGivesTheJdkSelectorForJdk() throws Exception {
        System.setProperty(BACKEND, "jdk");
        NativeSelectorProvider provider = new NativeSelectorProvider();
        Selector selector = closeLater(provider.openSelector());
        assertFalse(selector instanceof NativeSelector, selector.getClass().getName());
        assertTrue(selector.getClass().getName().startsWith("sun.nio.ch."), selector.getClass().getName());
        assertTrue(SelectorStats.of(selector).isEmpty());
        // ...and it works with our provider's channels.
        Pipe pipe = provider.openPipe();
        closeLater(pipe.sink());
        closeLater(pipe.source());
        pipe.source().configureBlocking(false);
        SelectionKey key = pipe.source().register(selector, SelectionKey.OP_READ);
        writeFully(pipe.sink(), "x");
        awaitReady(selector, key, SelectionKey.OP_READ);
        // Selector.open() follows the same setting.
        Selector viaOpen = closeLater(Selector.open());
        assertFalse(viaOpen instanceof NativeSelector, viaOpen.getClass().getName());
    }

    @Test
    void theProviderInThisJvmIsOursThroughTheServicesFile() throws Exception {
        assertInstanceOf(NativeSelectorProvider.class, SelectorProvider.provider());
        assertInstanceOf(NativeSelector.class, closeLater(Selector.open()));
    }

    static Stream<Arguments> badSettings() {
        return Stream.of(
                Arguments.of(BACKEND, "kqueue", null),
                Arguments.of(BACKEND, "", null),
                Arguments.of(BACKEND, "epol", null),
                Arguments.of(THRESHOLD, "0", null),
                Arguments.of(THRESHOLD, "-1", null),
                Arguments.of(THRESHOLD, "abc", null),
                Arguments.of(THRESHOLD, "", null),
                Arguments.of(THRESHOLD, "1.5", null),
                Arguments.of(THRESHOLD, "99999999999", null),
                Arguments.of(THRESHOLD, "65537", null),
                Arguments.of(THRESHOLD, "30000000", null),
                Arguments.of(THRESHOLD, "89478486", null),
                Arguments.of(THRESHOLD, String.valueOf(Integer.MAX_VALUE), "epoll"),
                Arguments.of(THRESHOLD, "abc", "jdk"),
                Arguments.of(THRESHOLD, "0", "epoll"));
    }

    @ParameterizedTest(name = "{0}={1} (backend {2})")
    @MethodSource("badSettings")
    void badSettingsThrowIllegalArgumentExceptionNamingTheProperty(String property, String value, String backend)
            throws Exception {
        if (backend != null) {
            System.setProperty(BACKEND, backend);
        }
        System.setProperty(property, value);
        Map<Integer, String> before = CloseReuseFds.snapshot();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> closeLater(new NativeSelectorProvider().openSelector()));
        IllegalArgumentException viaOpen = assertThrows(IllegalArgumentException.class,
                () -> closeLater(Selector.open()));
        for (IllegalArgumentException thrown : List.of(e, viaOpen)) {
            String message = String.valueOf(thrown.getMessage());
            assertTrue(message.contains(property), () -> "message does not name " + property + ": " + message);
            if (property.equals(BACKEND)) {
                for (String accepted : List.of("auto", "epoll", "io_uring", "pollset", "jdk")) {
                    assertTrue(message.contains(accepted), () -> "message does not list " + accepted + ": " + message);
                }
            } else {
                assertTrue(message.contains("from 1 to 65536"), () -> "message does not say what is accepted: " + message);
            }
        }
        assertEquals(Map.of(), CloseReuseFds.opened(before, CloseReuseFds.snapshot()),
                "descriptors a rejected setting left open");
    }

    @Test
    void goodThresholdsAreAccepted() throws Exception {
        for (String value : List.of("1", "2", "64", "65536")) {
            System.setProperty(THRESHOLD, value);
            try (Selector selector = new NativeSelectorProvider().openSelector()) {
                assertInstanceOf(NativeSelector.class, selector, value);
            }
        }
    }

    // ---- the shared instance and the constructor -----------------------------------------

    @Test
    void providerIsASingletonAcrossThreads() throws Exception {
        NativeSelectorProvider first = NativeSelectorProvider.provider();
        assertNotNull(first);
        assertSame(first, NativeSelectorProvider.provider());
        int threads = 8;
        CyclicBarrier barrier = new CyclicBarrier(threads);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<NativeSelectorProvider>> results = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                Callable<NativeSelectorProvider> task = () -> {
                    barrier.await(10, TimeUnit.SECONDS);
                    return NativeSelectorProvider.provider();
                };
                results.add(pool.submit(task));
            }
            Set<NativeSelectorProvider> seen = ConcurrentHashMap.newKeySet();
            for (Future<NativeSelectorProvider> result : results) {
                seen.add(result.get(10, TimeUnit.SECONDS));
            }
            assertEquals(Set.of(first), seen);
        } finally {
            pool.shutdownNow();
            assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS));
        }
        Selector selector = closeLater(first.openSelector());
        assertSame(first, selector.provider());
    }

    @Test
    void constructingOpensNoFileDescriptors() throws Exception {
        NativeSelectorProvider.provider(); // classes loaded before counting
        Map<Integer, String> before = CloseReuseFds.snapshot();
        List<NativeSelectorProvider> made = new ArrayList<>(100_000);
        for (int i = 0; i < 100_000; i++) {
            made.add(new NativeSelectorProvider());
        }
        Map<Integer, String> after = CloseReuseFds.snapshot();
        // Counted while every provider is reachable: a descriptor one opened, and a cleaner closed
        // once it was collected, would otherwise escape the count.
        Reference.reachabilityFence(made);
        assertEquals(Map.of(), CloseReuseFds.opened(before, after),
                "file descriptors opened by constructing providers");
    }

    @Test
    void constructingInAFreshJvmLoadsNoNativeLibrary() throws Exception {
        InstallChild.Result child = InstallChild.run(List.of(), InstallConstructorProbe.class);
        assertEquals(0, child.exitCode(), child::toString);
        assertEquals("false", child.value("loadedBefore"), child::toString);
        assertEquals("1000", child.value("constructed"), child::toString);
        assertEquals("false", child.value("loadedAfterConstruct"), child::toString);
        assertEquals("0", child.value("fdDelta"), child::toString);
        // The control: opening a selector does load it, so the probe can see a load.
        assertEquals(NativeSelector.class.getName(), child.value("selector"), child::toString);
        assertEquals("true", child.value("loadedAfterOpen"), child::toString);
    }

    // ---- helpers -------------------------------------------------------------------------

    /** Selects until {@code key} is selected with {@code op} ready; fails after 10 s. */
    static void awaitReady(Selector selector, SelectionKey key, int op) throws IOException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            selector.select(200);
            boolean ready = selector.selectedKeys().contains(key) && (key.readyOps() & op) != 0;
            selector.selectedKeys().clear();
            if (ready) {
                return;
            }
            if (System.nanoTime() - deadline > 0) {
                fail("not ready within 10 s: op " + op + " on " + key.channel()
                        + " (interest " + (key.isValid() ? key.interestOps() : -1) + ")");
            }
        }
    }

    private static void writeFully(java.nio.channels.WritableByteChannel channel, String text) throws IOException {
        ByteBuffer buffer = ByteBuffer.wrap(text.getBytes(StandardCharsets.US_ASCII));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (buffer.hasRemaining()) {
            channel.write(buffer);
            if (System.nanoTime() - deadline > 0) {
                fail("could not write within 10 s");
            }
        }
    }

    /** Reads {@code length} bytes from the key's channel, waiting on the selector for each chunk. */
    private static String readExactly(Selector selector, SelectionKey key, int length) throws IOException {
        ReadableByteChannel channel = (ReadableByteChannel) key.channel();
        ByteBuffer buffer = ByteBuffer.allocate(length);
        key.interestOps(SelectionKey.OP_READ);
        while (buffer.hasRemaining()) {
            awaitReady(selector, key, SelectionKey.OP_READ);
            if (channel.read(buffer) < 0) {
                fail("EOF after " + buffer.position() + " of " + length + " bytes");
            }
        }
        return new String(buffer.array(), StandardCharsets.US_ASCII);
    }
}
