/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.lean;

import static io.github.nativeselector.support.CloseReuseFds.assertBackToBaseline;
import static io.github.nativeselector.support.CloseReuseFds.count;
import static io.github.nativeselector.support.CloseReuseFds.singleOpened;
import static io.github.nativeselector.support.CloseReuseFds.snapshot;
import static io.github.nativeselector.support.ContractSupport.awaitReadyOps;
import static io.github.nativeselector.support.ContractSupport.awaitSelected;
import static java.nio.channels.SelectionKey.OP_ACCEPT;
import static java.nio.channels.SelectionKey.OP_CONNECT;
import static java.nio.channels.SelectionKey.OP_READ;
import static java.nio.channels.SelectionKey.OP_WRITE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.github.nativeselector.internal.BuiltInProvider;
import io.github.nativeselector.support.ContractSupport.Background;
import io.github.nativeselector.support.RaceSupport;
import io.github.nativeselector.support.TestSelectors;
import java.io.IOException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.IllegalSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Channels under a selector: the JDK's channels under the JDK's selector (the reference), lean
 * ones under each native backend. Readiness for accept, connect, read and write; an echo server
 * of many connections; what a close of a registered channel does to the peer and to the
 * descriptor; and keys that never get another channel's events when descriptors are reused.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class SelectorTest {

    private static final String DESCRIPTOR_AFTER_CLOSE = "the JDK keeps a closed channel's descriptor open until"
            + " every selector has deregistered it; a lean channel with nothing unread takes it out of the kernel"
            + " sets and closes it";

    static Stream<Arguments> selectors() {
        return Stream.concat(Stream.of(Arguments.of(Impl.JDK, TestSelectors.JDK)),
                TestSelectors.natives().map(s -> Arguments.of(Impl.LEAN, s)));
    }

    /**
     * A registered non-blocking lean channel whose key one thread cancels and then closes it,
     * while the selector's thread selects, and so deregisters the key and may finish the close
     * ({@code kill}), and a third thread reads in a loop: the reader ends with
     * ClosedChannelException, never with the kernel's failure for a descriptor closed under it
     * (which could as well have read another socket's bytes, once its number was given out
     * again). The adaptor makes the close ask the kernel for the local address, and a short spin
     * that grows from round to round moves the close against the select, to widen the race. The
     * JDK's channels are not run: on JDK 17 theirs fail it within a few rounds ("Bad file
     * descriptor"), their deferred close not waiting for a read under way.
     */
    @ParameterizedTest
    @MethodSource("io.github.nativeselector.support.TestSelectors#natives")
    void closeFinishedBySelectorWhileAThreadReads(TestSelectors selectors) throws Exception {
        for (int round = 0; round < 300; round++) {
            try (Selector selector = selectors.open(); Pair p = Pair.open(Impl.LEAN)) {
                p.accepted.configureBlocking(false);
                p.accepted.socket();
                SelectionKey key = p.accepted.register(selector, OP_READ);
                AtomicReference<Throwable> readerEnd = new AtomicReference<>();
                Thread reader = RaceSupport.start("reader", readerEnd, () -> {
                    ByteBuffer buffer = ByteBuffer.allocate(16);
                    while (true) {
                        p.accepted.read(buffer.clear());
                    }
                });
                AtomicReference<Throwable> selectorFailure = new AtomicReference<>();
                Thread selecting = RaceSupport.start("selector", selectorFailure, () -> {
                    while (p.accepted.isRegistered() || p.accepted.isOpen()) {
                        selector.selectNow();
                    }
                });
                key.cancel();
                for (int spin = round % 32; spin > 0; spin--) {
                    Thread.onSpinWait();
                }
                p.accepted.close();
                RaceSupport.joinWithin(reader, "the reader after the close");
                RaceSupport.joinWithin(selecting, "the selector after the close");
                assertNull(selectorFailure.get(), "round " + round);
                Throwable e = readerEnd.get();
                assertTrue(e instanceof ClosedChannelException, "round " + round + ": the reader ended with " + e);
            }
        }
    }

    @ParameterizedTest
    @MethodSource("selectors")
    void acceptReadiness(Impl impl, TestSelectors selectors) throws Exception {
        try (Selector selector = selectors.open(); ServerSocketChannel server = impl.listen(Family.INET);
                SocketChannel client = impl.openSocket()) {
            server.configureBlocking(false);
            SelectionKey key = server.register(selector, OP_ACCEPT);
            assertEquals(0, selector.selectNow(), "nobody has connected");
            client.connect(server.getLocalAddress());
            awaitSelected(selector, key);
            assertEquals(OP_ACCEPT, key.readyOps());
            try (SocketChannel accepted = server.accept()) {
                assertNotNull(accepted);
                assertTrue(accepted.isBlocking());
            }
            selector.selectedKeys().clear();
            assertEquals(0, selector.selectNow(), "nothing more to accept");
            assertNull(server.accept());
        }
    }

    @ParameterizedTest
    @MethodSource("selectors")
    void connectReadiness(Impl impl, TestSelectors selectors) throws Exception {
        try (Selector selector = selectors.open(); FullBacklog full = FullBacklog.open(Family.INET);
                SocketChannel ch = impl.openSocket()) {
            ch.configureBlocking(false);
            assertFalse(ch.connect(full.address));
            SelectionKey key = ch.register(selector, OP_CONNECT);
            assertEquals(0, selector.select(300), "not connectable while pending");
            full.makeRoom();
            awaitSelected(selector, key);
            assertEquals(OP_CONNECT, key.readyOps());
            assertTrue(ch.finishConnect());
            key.interestOps(OP_WRITE);
            selector.selectedKeys().clear();
            awaitReadyOps(selector, key, OP_WRITE);
        }
    }

    @ParameterizedTest
    @MethodSource("selectors")
    void readReadiness(Impl impl, TestSelectors selectors) throws Exception {
        try (Selector selector = selectors.open(); Pair p = Pair.open(impl)) {
            p.accepted.configureBlocking(false);
            SelectionKey key = p.accepted.register(selector, OP_READ);
            assertEquals(0, selector.selectNow(), "nothing to read");
            p.client.write(ByteBuffer.wrap(new byte[] {1, 2, 3}));
            awaitReadyOps(selector, key, OP_READ);
            assertEquals(3, p.accepted.read(ByteBuffer.allocate(8)));
            selector.selectedKeys().clear();
            assertEquals(0, selector.selectNow(), "everything read");
            p.client.shutdownOutput();
            awaitReadyOps(selector, key, OP_READ);
            assertEquals(-1, p.accepted.read(ByteBuffer.allocate(8)), "end of stream is a read event");
        }
    }

    @ParameterizedTest
    @MethodSource("selectors")
    void resetIsAReadEvent(Impl impl, TestSelectors selectors) throws Exception {
        try (Selector selector = selectors.open(); Pair p = Pair.open(impl)) {
            p.accepted.configureBlocking(false);
            SelectionKey key = p.accepted.register(selector, OP_READ);
            p.client.setOption(StandardSocketOptions.SO_LINGER, 0);
            p.client.close();
            awaitSelected(selector, key);
            assertEquals(OP_READ, key.readyOps());
            assertThrows(IOException.class, () -> p.accepted.read(ByteBuffer.allocate(8)));
        }
    }

    @ParameterizedTest
    @MethodSource("selectors")
    void writeReadiness(Impl impl, TestSelectors selectors) throws Exception {
        try (Selector selector = selectors.open(); Pair p = Pair.open(impl)) {
            p.client.configureBlocking(false);
            p.accepted.configureBlocking(false);
            SelectionKey key = p.client.register(selector, OP_WRITE);
            awaitReadyOps(selector, key, OP_WRITE);
            long written = Bytes.fillUntilFull(p.client, 80);
            selector.selectedKeys().clear();
            assertEquals(0, selector.selectNow(), "a full socket is not writable");
            Bytes.readAndCheck(p.accepted, 0, written, 80, false);
            awaitReadyOps(selector, key, OP_WRITE);
        }
    }

    @ParameterizedTest
    @MethodSource("selectors")
    void echoOfManyConnections(Impl impl, TestSelectors selectors) throws Exception {
        int connections = 200;
        int size = 4096;
        try (Selector selector = selectors.open(); ServerSocketChannel server = impl.listen(Family.INET)) {
            server.configureBlocking(false);
            server.register(selector, OP_ACCEPT);
            try (BlockedCall<Integer> loop = BlockedCall.start(() -> echo(selector, connections * (long) size))) {
                List<SocketChannel> clients = new ArrayList<>();
                try {
                    for (int i = 0; i < connections; i++) {
                        SocketChannel client = impl.openSocket();
                        clients.add(client);
                        client.connect(server.getLocalAddress());
                        ByteBuffer src = Bytes.pattern(0, size, i, i % 2 == 0);
                        assertEquals(size, client.write(src));
                    }
                    for (int i = 0; i < connections; i++) {
                        Bytes.readAndCheck(clients.get(i), 0, size, i, i % 2 == 1);
                    }
                    assertEquals(connections, loop.get(), "connections the echo server accepted");
                } finally {
                    for (SocketChannel client : clients) {
                        client.close();
                    }
                }
            }
        }
    }

    /** A single-threaded echo server: returns the number of connections once it has echoed {@code total} bytes. */
    private static int echo(Selector selector, long total) throws IOException {
        Map<SelectionKey, Queue<ByteBuffer>> pending = new HashMap<>();
        long echoed = 0;
        int accepted = 0;
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(BlockedCall.WAIT_MS * 2);
        while (echoed < total) {
            if (System.nanoTime() > deadline) {
                fail("echoed " + echoed + " of " + total + " bytes in time");
            }
            selector.select(1000);
            for (SelectionKey key : selector.selectedKeys()) {
                if (key.isAcceptable()) {
                    SocketChannel ch;
                    while ((ch = ((ServerSocketChannel) key.channel()).accept()) != null) {
                        ch.configureBlocking(false);
                        pending.put(ch.register(selector, OP_READ), new ArrayDeque<>());
                        accepted++;
                    }
                    continue;
                }
                SocketChannel ch = (SocketChannel) key.channel();
                Queue<ByteBuffer> queue = pending.get(key);
                if (key.isReadable()) {
                    ByteBuffer buf = ByteBuffer.allocate(1500);
                    int n = ch.read(buf);
                    if (n < 0) {
                        key.cancel();
                        ch.close();
                        continue;
                    }
                    queue.add(buf.flip());
                }
                while (!queue.isEmpty()) {
                    ByteBuffer head = queue.peek();
                    echoed += ch.write(head);
                    if (head.hasRemaining()) {
                        break;
                    }
                    queue.remove();
                }
                key.interestOps(queue.isEmpty() ? OP_READ : OP_READ | OP_WRITE);
            }
            selector.selectedKeys().clear();
        }
        for (SelectionKey key : pending.keySet()) {
            key.channel().close();
        }
        return accepted;
    }

    @Test
    void theJdksSelectorRefusesLeanChannels() throws Exception {
        try (Selector jdk = BuiltInProvider.get().openSelector(); Pair p = Pair.open(Impl.LEAN)) {
            p.client.configureBlocking(false);
            p.server.configureBlocking(false);
            assertThrows(IllegalSelectorException.class, () -> p.client.register(jdk, OP_READ));
            assertThrows(IllegalSelectorException.class, () -> p.server.register(jdk, OP_ACCEPT));
            assertFalse(p.client.isRegistered());
            assertFalse(p.server.isRegistered());
            assertTrue(jdk.keys().isEmpty());
            p.client.configureBlocking(true);
            assertEquals(1, p.client.write(ByteBuffer.wrap(new byte[] {5})), "the channel is still fine");
            Bytes.assertReads(p.accepted, new byte[] {5});
        }
    }

    @ParameterizedTest
    @MethodSource("selectors")
    void closingARegisteredChannel(Impl impl, TestSelectors selectors) throws Exception {
        try (Selector selector = selectors.open(); ServerSocketChannel server = impl.listen(Family.INET);
                SocketChannel client = impl.openSocket()) {
            client.connect(server.getLocalAddress());
            Map<Integer, String> before = snapshot();
            SocketChannel accepted = server.accept();
            Map<Integer, String> after = snapshot();
            String file = after.get(singleOpened(before, after));
            accepted.configureBlocking(false);
            SelectionKey key = accepted.register(selector, OP_READ);
            assertEquals(0, selector.selectNow());
            accepted.close();
            assertFalse(key.isValid());
            assertEquals(-1, client.read(ByteBuffer.allocate(8)), "the peer sees the close before any select");
            assertEquals(1, count(file), "the descriptor stays open while registered");
            assertEquals(1, client.write(ByteBuffer.wrap(new byte[] {1})), "the socket is not closed yet");
            assertEquals(0, selector.selectNow());
            assertFalse(selector.keys().contains(key));
            assertEquals(0, count(file), "the select released the descriptor");
            client.configureBlocking(false);
            assertThrows(IOException.class, () -> {
                long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(BlockedCall.WAIT_MS);
                while (System.nanoTime() < deadline) {
                    client.write(ByteBuffer.wrap(new byte[] {1}));
                    Bytes.awaitReadable(client); // the reset of the closed socket
                    client.read(ByteBuffer.allocate(8));
                }
            }, "writes to the closed socket are answered with a reset");
        }
    }

    @ParameterizedTest
    @MethodSource("selectors")
    void closingTheSelectorReleasesAClosedChannel(Impl impl, TestSelectors selectors) throws Exception {
        try (ServerSocketChannel server = impl.listen(Family.INET)) {
            Map<Integer, String> before = snapshot();
            SocketChannel client = impl.openSocket();
            Map<Integer, String> after = snapshot();
            String file = after.get(singleOpened(before, after));
            client.connect(server.getLocalAddress());
            try (SocketChannel accepted = server.accept()) {
                Selector selector = selectors.open();
                client.configureBlocking(false);
                client.register(selector, OP_READ);
                selector.selectNow();
                client.close();
                assertEquals(1, count(file), "the descriptor stays open while registered");
                selector.close();
                assertEquals(0, count(file), "closing the selector released the descriptor");
                assertEquals(-1, accepted.read(ByteBuffer.allocate(1)));
            }
        }
    }

    @ParameterizedTest
    @MethodSource("selectors")
    void aChannelInTwoSelectorsIsReleasedByTheLast(Impl impl, TestSelectors selectors) throws Exception {
        try (ServerSocketChannel server = impl.listen(Family.INET); Selector first = selectors.open();
                Selector second = selectors.open()) {
            Map<Integer, String> before = snapshot();
            SocketChannel client = impl.openSocket();
            Map<Integer, String> after = snapshot();
            String file = after.get(singleOpened(before, after));
            client.connect(server.getLocalAddress());
            try (SocketChannel accepted = server.accept()) {
                client.configureBlocking(false);
                client.register(first, OP_READ);
                client.register(second, OP_WRITE);
                first.selectNow();
                second.selectNow();
                client.close();
                first.selectNow();
                assertTrue(client.isRegistered(), "still registered with the second selector");
                assertEquals(1, count(file), "the descriptor stays open while any selector has it");
                second.selectNow();
                assertFalse(client.isRegistered());
                assertEquals(0, count(file), "the last selector released the descriptor");
                assertEquals(-1, accepted.read(ByteBuffer.allocate(1)));
            }
        }
    }

    @ParameterizedTest
    @MethodSource("selectors")
    void noDescriptorLeaks(Impl impl, TestSelectors selectors) throws Exception {
        try (Selector selector = selectors.open(); ServerSocketChannel server = impl.listen(Family.INET)) {
            server.configureBlocking(false);
            SelectionKey serverKey = server.register(selector, OP_ACCEPT);
            Map<Integer, String> baseline = null;
            for (int i = -3; i < 300; i++) {
                if (i == 0) {
                    baseline = snapshot(); // after a few rounds, so that anything opened once for good is in it
                }
                SocketChannel client = impl.openSocket();
                client.configureBlocking(false);
                if (!client.connect(server.getLocalAddress())) {
                    client.register(selector, OP_CONNECT);
                }
                awaitSelected(selector, serverKey);
                SocketChannel accepted = server.accept();
                accepted.configureBlocking(false);
                accepted.register(selector, OP_READ);
                if (!client.isRegistered()) {
                    client.register(selector, OP_READ | OP_WRITE);
                }
                selector.selectNow();
                selector.selectedKeys().clear();
                switch (Math.floorMod(i, 3)) {
                    case 0:
                        client.close();
                        accepted.close();
                        break;
                    case 1:
                        accepted.close();
                        client.close();
                        selector.selectNow();
                        break;
                    default:
                        client.keyFor(selector).cancel();
                        selector.selectNow();
                        client.close();
                        accepted.close();
                        break;
                }
                selector.selectNow();
                selector.selectedKeys().clear();
            }
            SocketChannel neverRegistered = impl.openSocket();
            neverRegistered.close();
            selector.selectNow();
            assertEquals(1, selector.keys().size(), "only the server's key is left");
            assertBackToBaseline(baseline, "after 300 connections opened, registered and closed");
        }
    }

    @ParameterizedTest
    @MethodSource("selectors")
    void reusedDescriptorsGetNoStrayEvents(Impl impl, TestSelectors selectors) throws Exception {
        try (Selector selector = selectors.open(); ServerSocketChannel server = impl.listen(Family.INET)) {
            int reused = 0;
            for (int i = 0; i < 200; i++) {
                try (SocketChannel oldClient = impl.openSocket(); SocketChannel newClient = impl.openSocket()) {
                    oldClient.connect(server.getLocalAddress());
                    Map<Integer, String> before = snapshot();
                    SocketChannel old = server.accept();
                    int oldFd = singleOpened(before, snapshot());
                    old.configureBlocking(false);
                    SelectionKey oldKey = old.register(selector, OP_READ | OP_WRITE, "old " + i);
                    oldClient.write(ByteBuffer.wrap(new byte[] {1}));
                    awaitReadyOps(selector, oldKey, OP_READ | OP_WRITE);
                    old.close();
                    selector.selectNow();
                    selector.selectedKeys().clear();
                    newClient.connect(server.getLocalAddress());
                    before = snapshot();
                    SocketChannel fresh = server.accept();
                    if (singleOpened(before, snapshot()) == oldFd) {
                        reused++;
                    }
                    fresh.configureBlocking(false);
                    SelectionKey freshKey = fresh.register(selector, OP_READ, "new " + i);
                    assertEquals(0, selector.selectNow(), "the new channel has nothing to read, the old key is gone");
                    try {
                        oldClient.write(ByteBuffer.wrap(new byte[] {2}));
                    } catch (IOException reset) {
                        // the old socket was closed with a byte unread, so it reset the connection
                    }
                    newClient.write(ByteBuffer.wrap(new byte[] {3}));
                    awaitSelected(selector, freshKey);
                    for (SelectionKey key : selector.selectedKeys()) {
                        assertSame(freshKey, key, "only the new channel's key is selected");
                    }
                    assertEquals(OP_READ, freshKey.readyOps());
                    assertFalse(oldKey.isValid());
                    ByteBuffer got = ByteBuffer.allocate(4);
                    assertEquals(1, fresh.read(got));
                    assertEquals(3, got.get(0));
                    fresh.close();
                    selector.selectNow();
                    selector.selectedKeys().clear();
                }
            }
            assertTrue(reused > 100, "the descriptor number was reused only " + reused + " times in 200");
        }
    }

    /**
     * Whether a closed channel's descriptor, read to the end of its stream, is still open while a
     * selector that is not polling has it registered.
     */
    private static int openWhileRegistered(Impl impl) {
        return impl == Impl.LEAN ? 0 : 1;
    }

    /**
     * An accepted connection registered for reads, whose peer sent one byte and its end, read to
     * that end as a server does before it closes; with its descriptor's number and entry in
     * /proc/self/fd.
     */
    private record EndedConnection(SocketChannel channel, SelectionKey key, int fd, String file) {

        static EndedConnection accept(ServerSocketChannel server, SocketChannel client, Selector selector)
                throws IOException {
            client.connect(server.getLocalAddress());
            Map<Integer, String> before = snapshot();
            SocketChannel accepted = server.accept();
            Map<Integer, String> after = snapshot();
            int fd = singleOpened(before, after);
            accepted.configureBlocking(false);
            SelectionKey key = accepted.register(selector, OP_READ);
            client.write(ByteBuffer.wrap(new byte[] {1}));
            client.shutdownOutput();
            readToTheEnd(selector, accepted);
            return new EndedConnection(accepted, key, fd, after.get(fd));
        }
    }

    /** Reads the registered channel until the end of its stream, as a server does before it closes. */
    private static void readToTheEnd(Selector selector, SocketChannel channel) throws IOException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(BlockedCall.WAIT_MS);
        ByteBuffer in = ByteBuffer.allocate(8);
        while (channel.read(in) >= 0) {
            in.clear();
            assertTrue(System.nanoTime() < deadline, "no end of stream in " + BlockedCall.WAIT_MS + " ms");
            selector.select(100);
            selector.selectedKeys().clear();
        }
    }

    @ParameterizedTest
    @MethodSource("selectors")
    void closingARegisteredChannelReadToItsEnd(Impl impl, TestSelectors selectors) throws Exception {
        try (Selector selector = selectors.open(); ServerSocketChannel server = impl.listen(Family.INET);
                SocketChannel client = impl.openSocket()) {
            EndedConnection ended = EndedConnection.accept(server, client, selector);
            assertEquals(1, ended.channel().write(ByteBuffer.wrap(new byte[] {2})));
            ended.channel().close();
            assertEquals(openWhileRegistered(impl), count(ended.file()), DESCRIPTOR_AFTER_CLOSE);
            ByteBuffer reply = ByteBuffer.allocate(8);
            assertEquals(1, client.read(reply), "the byte written before the close arrives");
            assertEquals(-1, client.read(reply), "then the end of the stream, not a reset");
            assertTrue(selector.keys().contains(ended.key()), "the key stays in the key set until a select");
            assertEquals(0, selector.selectNow());
            assertFalse(selector.keys().contains(ended.key()));
            assertFalse(ended.channel().isRegistered());
            assertEquals(0, count(ended.file()));
        }
    }

    /** With SO_LINGER on, a close now could block: lean waits for the selector, as the JDK does. */
    @ParameterizedTest
    @MethodSource("selectors")
    void closingARegisteredChannelWithLingerOnWaitsForTheSelect(Impl impl, TestSelectors selectors) throws Exception {
        try (Selector selector = selectors.open(); ServerSocketChannel server = impl.listen(Family.INET);
                SocketChannel client = impl.openSocket()) {
            EndedConnection ended = EndedConnection.accept(server, client, selector);
            ended.channel().setOption(StandardSocketOptions.SO_LINGER, 5);
            ended.channel().close();
            assertEquals(1, count(ended.file()), "the descriptor stays open while registered");
            assertEquals(-1, client.read(ByteBuffer.allocate(8)), "the peer sees the close before any select");
            assertEquals(0, selector.selectNow());
            assertFalse(selector.keys().contains(ended.key()));
            assertEquals(0, count(ended.file()));
        }
    }

    @ParameterizedTest
    @MethodSource("selectors")
    void closingARegisteredServerFreesItsPortAtOnceWhenLean(Impl impl, TestSelectors selectors) throws Exception {
        try (Selector selector = selectors.open()) {
            Map<Integer, String> before = snapshot();
            ServerSocketChannel server = impl.listen(Family.INET);
            String file = snapshot().get(singleOpened(before, snapshot()));
            server.configureBlocking(false);
            SelectionKey key = server.register(selector, OP_ACCEPT);
            assertEquals(0, selector.selectNow());
            server.close();
            assertEquals(openWhileRegistered(impl), count(file), DESCRIPTOR_AFTER_CLOSE);
            assertEquals(0, selector.selectNow());
            assertFalse(selector.keys().contains(key));
            assertEquals(0, count(file));
            assertFalse(server.isRegistered());
        }
    }

    /**
     * A channel closed with an interest change still queued, whose descriptor number a new
     * channel gets before any select: the queued change must not put the number back under the
     * old key, and only the new channel's events are reported.
     */
    @ParameterizedTest
    @MethodSource("selectors")
    void aQueuedChangeOfAClosedChannelDoesNotReachItsReusedDescriptor(Impl impl, TestSelectors selectors)
            throws Exception {
        try (Selector selector = selectors.open(); ServerSocketChannel server = impl.listen(Family.INET)) {
            int reused = 0;
            for (int i = 0; i < 100; i++) {
                try (SocketChannel oldClient = impl.openSocket(); SocketChannel newClient = impl.openSocket()) {
                    EndedConnection old = EndedConnection.accept(server, oldClient, selector);
                    SelectionKey oldKey = old.key();
                    oldKey.interestOps(OP_READ | OP_WRITE); // queued where the selector batches
                    old.channel().close();
                    newClient.connect(server.getLocalAddress());
                    Map<Integer, String> before = snapshot();
                    try (SocketChannel fresh = server.accept()) {
                        if (singleOpened(before, snapshot()) == old.fd()) {
                            reused++;
                        }
                        fresh.configureBlocking(false);
                        SelectionKey freshKey = fresh.register(selector, OP_READ, "new " + i);
                        assertEquals(0, selector.selectNow(),
                                "nothing to read on the new channel, the old key is gone");
                        assertFalse(selector.keys().contains(oldKey));
                        newClient.write(ByteBuffer.wrap(new byte[] {3}));
                        awaitSelected(selector, freshKey);
                        for (SelectionKey key : selector.selectedKeys()) {
                            assertSame(freshKey, key, "only the new channel's key is selected");
                        }
                        assertEquals(OP_READ, freshKey.readyOps());
                        ByteBuffer got = ByteBuffer.allocate(4);
                        assertEquals(1, fresh.read(got));
                        assertEquals(3, got.get(0));
                        fresh.close();
                        selector.selectNow();
                        selector.selectedKeys().clear();
                    }
                }
            }
            if (impl == Impl.LEAN) {
                assertTrue(reused > 50, "the descriptor number was reused only " + reused + " times in 100");
            }
        }
    }

    /**
     * A close while another thread is blocked in a select: the descriptor is closed at once by a
     * backend that takes changes during a poll, and by the select's end at the latest.
     */
    @ParameterizedTest
    @MethodSource("selectors")
    void closingDuringABlockedSelect(Impl impl, TestSelectors selectors) throws Exception {
        try (Selector selector = selectors.open(); ServerSocketChannel server = impl.listen(Family.INET);
                SocketChannel client = impl.openSocket()) {
            EndedConnection ended = EndedConnection.accept(server, client, selector);
            ended.key().interestOps(0);
            try (Background<Integer> select = Background.start("selector", self -> {
                self.aboutToBlock();
                return selector.select();
            })) {
                select.awaitBlockedInSelect();
                ended.channel().close();
                if (impl == Impl.LEAN && selectors.appliesDuringPoll()) {
                    assertEquals(0, count(ended.file()), "closed at once: the kernel set took the removal during the poll");
                }
                assertEquals(-1, client.read(ByteBuffer.allocate(8)), "the peer sees the close before the select ends");
                selector.wakeup();
                select.get(BlockedCall.WAIT_MS);
            }
            selector.selectNow();
            assertFalse(selector.keys().contains(ended.key()));
            assertEquals(0, count(ended.file()), "released by the next select at the latest");
        }
    }
}
