/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.closereuse;

import static io.github.nativeselector.support.CloseReuseFds.assertBackToBaseline;
import static io.github.nativeselector.support.CloseReuseFds.assertReadsEof;
import static io.github.nativeselector.support.CloseReuseFds.count;
import static io.github.nativeselector.support.CloseReuseFds.singleOpened;
import static io.github.nativeselector.support.CloseReuseFds.snapshot;
import static io.github.nativeselector.support.ContractChannels.openServer;
import static io.github.nativeselector.support.ContractSupport.selectUntilSelected;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.github.nativeselector.support.CloseReuseFds;
import io.github.nativeselector.support.ContractSupport;
import io.github.nativeselector.support.RaceSupport;
import io.github.nativeselector.support.TestSelectors;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.Pipe;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Closing registered channels, and what happens to their file descriptors: a closed channel's
 * key leaves the selector at the next select, its fd is released then (the peer sees
 * end-of-stream, the fd leaves {@code /proc/self/fd}), and a channel that reuses the fd number
 * never inherits the old channel's key or events.
 */
class CloseAndReuseTest {

    private static final int PIPE_CYCLES = 10_000;
    private static final int TCP_CYCLES = 1_000;

    /** The state of a key when its channel is closed. */
    private enum KeyState {
        /** Registered, no select since. */
        QUEUED,
        /** Registered and through a select, not selected. */
        APPLIED,
        /** In the selected-key set. */
        SELECTED,
        /** Cancelled with {@link SelectionKey#cancel()}, no select since. */
        CANCELLED
    }

    @ParameterizedTest
    @MethodSource("io.github.nativeselector.support.TestSelectors#all")
    @Timeout(value = 20, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void closeWhileQueued(TestSelectors selectors) throws IOException {
        closeInState(selectors, KeyState.QUEUED);
    }

    @ParameterizedTest
    @MethodSource("io.github.nativeselector.support.TestSelectors#all")
    @Timeout(value = 20, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void closeWhileApplied(TestSelectors selectors) throws IOException {
        closeInState(selectors, KeyState.APPLIED);
    }

    @ParameterizedTest
    @MethodSource("io.github.nativeselector.support.TestSelectors#all")
    @Timeout(value = 20, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void closeWhileSelected(TestSelectors selectors) throws IOException {
        closeInState(selectors, KeyState.SELECTED);
    }

    @ParameterizedTest
    @MethodSource("io.github.nativeselector.support.TestSelectors#all")
    @Timeout(value = 20, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void closeAfterCancel(TestSelectors selectors) throws IOException {
        closeInState(selectors, KeyState.CANCELLED);
    }

    /**
     * A TCP socket (interest READ) and a pipe's write end (interest WRITE) are registered, put
     * in the state, closed, and the selector selects once.
     */
    private static void closeInState(TestSelectors selectors, KeyState state) throws IOException {
        try (Selector selector = selectors.open();
                ServerSocketChannel server = openServer()) {
            Map<Integer, String> before = snapshot();
            SocketChannel client = SocketChannel.open(server.getLocalAddress());
            Map<Integer, String> withClient = snapshot();
            String clientFile = withClient.get(singleOpened(before, withClient));
            try (SocketChannel peer = server.accept()) {
                Map<Integer, String> beforePipe = snapshot();
                Pipe pipe = Pipe.open();
                String pipeFile = fileOfOpenedPipe(beforePipe);
                try (Pipe.SourceChannel source = pipe.source()) {
                    assertEquals(2, count(pipeFile), "both ends of the new pipe");
                    client.configureBlocking(false);
                    peer.configureBlocking(false);
                    pipe.sink().configureBlocking(false);
                    source.configureBlocking(false);

                    SelectionKey clientKey = client.register(selector, SelectionKey.OP_READ, "client");
                    SelectionKey sinkKey = pipe.sink().register(selector, SelectionKey.OP_WRITE, "sink");
                    putInState(selector, state, clientKey, sinkKey, peer);

                    client.close();
                    pipe.sink().close();
                    assertFalse(clientKey.isValid(), "closing a channel cancels its key");
                    assertFalse(sinkKey.isValid(), "closing a channel cancels its key");

                    assertEquals(0, selector.selectNow(), "nothing else is registered");

                    for (SelectionKey key : List.of(clientKey, sinkKey)) {
                        SelectableChannel channel = key.channel();
                        String name = key.attachment() + " closed while " + state;
                        assertFalse(selector.keys().contains(key), name + ": key still in keys()");
                        assertFalse(selector.selectedKeys().contains(key), name + ": key still in selectedKeys()");
                        assertFalse(channel.isRegistered(), name + ": channel still registered");
                        assertNull(channel.keyFor(selector), name + ": keyFor(selector)");
                    }
                    assertTrue(selector.keys().isEmpty(), () -> "keys() after the select: " + selector.keys());
                    assertEquals(0, count(clientFile), "client closed while " + state + ": its fd ("
                            + clientFile + ") is still open after the select");
                    assertEquals(1, count(pipeFile), "sink closed while " + state + ": its fd is still open after the"
                            + " select (only the read end should remain)");
                    assertReadsEof(peer, "peer of the client closed while " + state);
                    assertReadsEof(source, "read end of the sink closed while " + state);
                }
            }
        }
    }

    private static void putInState(Selector selector, KeyState state, SelectionKey clientKey,
            SelectionKey sinkKey, SocketChannel peer) throws IOException {
        switch (state) {
            case QUEUED -> {
            }
            case APPLIED -> {
                assertEquals(1, selector.selectNow(), "the sink is writable, the client has nothing to read");
                assertEquals(Set.of(sinkKey), selector.selectedKeys());
                selector.selectedKeys().clear();
            }
            case SELECTED -> {
                assertEquals(1, peer.write(ByteBuffer.wrap(new byte[] {42})));
                selectUntilSelected(selector, clientKey, sinkKey);
                // Drained so that the close sends FIN (unread data would make it a reset), but still selected.
                SocketChannel client = (SocketChannel) clientKey.channel();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                while (client.read(ByteBuffer.allocate(8)) == 0) {
                    assertTrue(System.nanoTime() < deadline, "the byte the peer wrote never arrived");
                }
                assertTrue(selector.selectedKeys().containsAll(List.of(clientKey, sinkKey)));
            }
            case CANCELLED -> {
                clientKey.cancel();
                sinkKey.cancel();
            }
        }
    }

    /**
     * A channel closed while registered, with nothing ready anywhere: the next select releases
     * its fd before it blocks (cancelled keys are processed before the kernel wait), so the
     * peer sees the close while that select is still blocked.
     */
    @ParameterizedTest
    @MethodSource("io.github.nativeselector.support.TestSelectors#all")
    @Timeout(value = 20, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void closedChannelReleasedBeforeSelectBlocks(TestSelectors selectors) throws Exception {
        try (Selector selector = selectors.open();
                ServerSocketChannel server = openServer()) {
            Map<Integer, String> before = snapshot();
            SocketChannel client = SocketChannel.open(server.getLocalAddress());
            Map<Integer, String> withClient = snapshot();
            String clientFile = withClient.get(singleOpened(before, withClient));
            try (SocketChannel peer = server.accept()) {
                Map<Integer, String> beforePipe = snapshot();
                Pipe pipe = Pipe.open();
                String pipeFile = fileOfOpenedPipe(beforePipe);
                try (Pipe.SinkChannel sink = pipe.sink()) {
                    client.configureBlocking(false);
                    peer.configureBlocking(false);
                    pipe.source().configureBlocking(false);
                    sink.configureBlocking(false);
                    SelectionKey clientKey = client.register(selector, SelectionKey.OP_READ, "client");
                    SelectionKey sourceKey = pipe.source().register(selector, SelectionKey.OP_READ, "source");
                    assertEquals(0, selector.selectNow());
                    client.close();
                    pipe.source().close();

                    Semaphore done = new Semaphore(0);
                    AtomicReference<Throwable> failure = new AtomicReference<>();
                    Thread selecting = RaceSupport.start("selecting", failure, () -> {
                        try {
                            selector.select();
                        } finally {
                            done.release();
                        }
                    });
                    try {
                        RaceSupport.awaitBlockedInSelect(selecting);
                        assertEquals(0, count(clientFile), "the closed client's fd is still open while select() blocks");
                        assertEquals(1, count(pipeFile), "the closed read end's fd is still open while select() blocks");
                        assertReadsEof(peer, "peer of the client closed before a blocking select()");
                        assertTrue(selecting.isAlive());
                    } finally {
                        selector.wakeup();
                    }
                    RaceSupport.acquire(done, selecting, failure, "select() after wakeup()");
                    RaceSupport.joinWithin(selecting, "selecting thread");
                    assertNull(failure.get(), () -> RaceSupport.stackOf(failure.get()));
                    assertFalse(selector.keys().contains(clientKey));
                    assertFalse(selector.keys().contains(sourceKey));
                    assertThrows(IOException.class, () -> sink.write(ByteBuffer.wrap(new byte[] {1})),
                            "writing to a pipe whose read end was closed and released");
                }
            }
        }
    }

    /**
     * Channel A's key is selected with A readable; A is closed, B is opened (taking A's fd
     * number once A's fd is released by a select) and registered with the same selector. Only
     * B's key is ever selected afterwards, with B's ready set.
     */
    @ParameterizedTest
    @MethodSource("io.github.nativeselector.support.TestSelectors#all")
    @Timeout(value = 20, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void reusedFdNumberWithSelectBetween(TestSelectors selectors) throws IOException {
        reuse(selectors, true, true);
        reuse(selectors, true, false);
    }

    /** As {@link #reusedFdNumberWithSelectBetween} with B opened and registered before the select that drops A. */
    @ParameterizedTest
    @MethodSource("io.github.nativeselector.support.TestSelectors#all")
    @Timeout(value = 20, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void closedChannelsKeyNeverSelectedAgain(TestSelectors selectors) throws IOException {
        reuse(selectors, false, true);
        reuse(selectors, false, false);
    }

    private static void reuse(TestSelectors selectors, boolean selectBetween, boolean bReadable) throws IOException {
        String variant = (selectBetween ? "select between" : "no select between")
                + (bReadable ? ", B readable" : ", B not readable");
        try (Selector selector = selectors.open();
                ServerSocketChannel server = openServer()) {
            Map<Integer, String> beforeA = snapshot();
            SocketChannel a = SocketChannel.open(server.getLocalAddress());
            Map<Integer, String> withA = snapshot();
            int aFd = singleOpened(beforeA, withA);
            String aFile = withA.get(aFd);
            try (SocketChannel aPeer = server.accept()) {
                a.configureBlocking(false);
                SelectionKey aKey = a.register(selector, SelectionKey.OP_READ, "A");
                assertEquals(1, aPeer.write(ByteBuffer.wrap(new byte[] {1})));
                selectUntilSelected(selector, aKey);
                assertEquals(SelectionKey.OP_READ, aKey.readyOps());

                // A is readable, selected, and in the kernel's interest set when it is closed.
                a.close();
                if (selectBetween) {
                    assertEquals(0, selector.selectNow(), variant);
                    assertFalse(selector.selectedKeys().contains(aKey), variant + ": A's key still selected");
                    assertEquals(0, count(aFile), variant + ": A's fd still open after the select");
                }

                SocketChannel b = selectBetween ? openOnNumber(aFd, variant) : SocketChannel.open();
                b.connect(server.getLocalAddress());
                try (SocketChannel bPeer = server.accept(); b) {
                    b.configureBlocking(false);
                    SelectionKey bKey = b.register(selector, SelectionKey.OP_READ | SelectionKey.OP_WRITE, "B");
                    if (bReadable) {
                        assertEquals(1, bPeer.write(ByteBuffer.wrap(new byte[] {2})));
                    }
                    int expected = SelectionKey.OP_WRITE | (bReadable ? SelectionKey.OP_READ : 0);

                    int seen = 0;
                    int selects = 0;
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                    // Select until B shows its full ready set, then a few times more.
                    for (int extra = 0; extra < 5; ) {
                        selector.selectedKeys().clear();
                        int n = selector.select(100);
                        selects++;
                        for (SelectionKey key : selector.selectedKeys()) {
                            assertSame(bKey, key, variant + ": select " + selects + " selected " + key.attachment()
                                    + "'s key");
                        }
                        assertEquals(selector.selectedKeys().size(), n, variant);
                        if (selector.selectedKeys().contains(bKey)) {
                            int ops = bKey.readyOps();
                            assertEquals(0, ops & ~expected, () -> variant + ": B's readyOps " + bKey.readyOps());
                            seen |= ops;
                        }
                        if (seen == expected) {
                            extra++;
                        } else {
                            assertTrue(System.nanoTime() < deadline, variant + ": B's readyOps reached only " + seen
                                    + ", expected " + expected);
                        }
                    }
                    assertEquals(expected, bKey.readyOps(), variant + ": B's readyOps");
                    assertFalse(aKey.isValid());
                    assertFalse(selector.keys().contains(aKey), variant + ": A's key still in keys()");
                    assertEquals(Set.of(bKey), selector.keys(), variant);
                    assertFalse(a.isRegistered(), variant);
                    assertNull(a.keyFor(selector), variant);
                    assertSame(bKey, b.keyFor(selector), variant);
                    assertEquals(0, count(aFile), variant + ": A's fd still open");
                }
            }
        }
    }

    /**
     * An unconnected channel on descriptor number {@code fd}, which A's release left free. The
     * lowest free number is not always A's: the JVM opens and closes files of its own on other
     * threads (see {@link CloseReuseFds}), so a lower number may come free meanwhile, or A's be
     * taken for a moment. Channels that land below {@code fd} are held, so the next one goes
     * higher, and closed once it is reached; one that lands above it is closed and tried again.
     */
    private static SocketChannel openOnNumber(int fd, String variant) throws IOException {
        List<SocketChannel> held = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ContractSupport.AWAIT_MS);
        try {
            while (true) {
                Map<Integer, String> before = snapshot();
                SocketChannel channel = SocketChannel.open();
                int opened = singleOpened(before, snapshot());
                if (opened == fd) {
                    return channel;
                }
                if (opened < fd) {
                    held.add(channel);
                } else {
                    channel.close();
                    assertTrue(System.nanoTime() < deadline,
                            variant + ": fd " + fd + " was never free for B after A's release");
                    CloseReuseFds.sleep(1);
                }
            }
        } finally {
            for (SocketChannel channel : held) {
                channel.close();
            }
        }
    }

    /**
     * Ten thousand cycles of (open a pipe, register both ends, select, close, select) leave
     * exactly the fds there were before, and each select sees only the current cycle's keys.
     */
    @ParameterizedTest
    @MethodSource("io.github.nativeselector.support.TestSelectors#all")
    @Timeout(value = 40, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void noFdLeakOverPipeCycles(TestSelectors selectors) throws IOException {
        try (Selector selector = selectors.open()) {
            pipeCycles(selector, 0, 100); // warm-up: whatever the JVM opens once is open before the baseline
            Map<Integer, String> baseline = snapshot();
            // In steps, so that a leak fails the test long before the process runs out of fds.
            for (int from = 100; from < PIPE_CYCLES; from += 1_000) {
                pipeCycles(selector, from, Math.min(from + 1_000, PIPE_CYCLES));
                assertBackToBaseline(baseline, Math.min(from + 1_000, PIPE_CYCLES) + " pipe cycles on " + selectors);
            }
        }
    }

    private static void pipeCycles(Selector selector, int from, int to) throws IOException {
        ByteBuffer one = ByteBuffer.allocate(1);
        for (int i = from; i < to; i++) {
            Integer cycle = i;
            Pipe pipe = Pipe.open();
            pipe.source().configureBlocking(false);
            pipe.sink().configureBlocking(false);
            SelectionKey readKey = pipe.source().register(selector, SelectionKey.OP_READ, cycle);
            SelectionKey writeKey = pipe.sink().register(selector, SelectionKey.OP_WRITE, cycle);
            boolean readable = i % 2 == 0;
            if (readable) {
                pipe.sink().write(one.clear());
            }
            int n = selector.selectNow();
            for (SelectionKey key : selector.selectedKeys()) {
                if (!cycle.equals(key.attachment())) {
                    fail("cycle " + i + ": selected the key of cycle " + key.attachment());
                }
            }
            if (n != (readable ? 2 : 1) || !selector.selectedKeys().contains(writeKey)
                    || selector.selectedKeys().contains(readKey) != readable) {
                fail("cycle " + i + ": select returned " + n + ", selected " + selector.selectedKeys().size()
                        + " keys, expected the write end" + (readable ? " and the read end" : " only"));
            }
            selector.selectedKeys().clear();
            if (i % 3 == 0) {
                readKey.cancel();
            }
            pipe.source().close();
            pipe.sink().close();
            n = selector.selectNow();
            if (n != 0 || !selector.selectedKeys().isEmpty() || !selector.keys().isEmpty()) {
                fail("cycle " + i + ": after closing, select returned " + n + " with keys " + selector.keys()
                        + " and selected keys " + selector.selectedKeys());
            }
            if (pipe.source().isRegistered() || pipe.sink().isRegistered()) {
                fail("cycle " + i + ": closed channels still registered");
            }
        }
    }

    /** As {@link #noFdLeakOverPipeCycles} with a thousand TCP connections through a loopback server. */
    @ParameterizedTest
    @MethodSource("io.github.nativeselector.support.TestSelectors#all")
    @Timeout(value = 40, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void noFdLeakOverTcpCycles(TestSelectors selectors) throws IOException {
        try (Selector selector = selectors.open();
                ServerSocketChannel server = openServer()) {
            tcpCycles(selector, server, 0, 20);
            Map<Integer, String> baseline = snapshot();
            for (int from = 20; from < TCP_CYCLES; from += 250) {
                tcpCycles(selector, server, from, Math.min(from + 250, TCP_CYCLES));
                assertBackToBaseline(baseline, Math.min(from + 250, TCP_CYCLES) + " TCP cycles on " + selectors);
            }
        }
    }

    private static void tcpCycles(Selector selector, ServerSocketChannel server, int from, int to) throws IOException {
        for (int i = from; i < to; i++) {
            Integer cycle = i;
            SocketChannel client = SocketChannel.open(server.getLocalAddress());
            SocketChannel accepted = server.accept();
            client.configureBlocking(false);
            accepted.configureBlocking(false);
            SelectionKey clientKey = client.register(selector, SelectionKey.OP_READ | SelectionKey.OP_WRITE, cycle);
            SelectionKey acceptedKey = accepted.register(selector, SelectionKey.OP_READ, cycle);
            client.write(ByteBuffer.wrap(new byte[] {7}));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (!selector.selectedKeys().contains(acceptedKey)) {
                selector.select(100);
                for (SelectionKey key : selector.selectedKeys()) {
                    if (!cycle.equals(key.attachment())) {
                        fail("cycle " + i + ": selected the key of cycle " + key.attachment());
                    }
                }
                if (System.nanoTime() > deadline) {
                    fail("cycle " + i + ": the accepted socket never became readable");
                }
            }
            if (!selector.selectedKeys().contains(clientKey) || clientKey.readyOps() != SelectionKey.OP_WRITE
                    || acceptedKey.readyOps() != SelectionKey.OP_READ) {
                fail("cycle " + i + ": expected the client writable and the accepted socket readable");
            }
            selector.selectedKeys().clear();
            // Read so that closing sends FIN, not a reset.
            accepted.read(ByteBuffer.allocate(8));
            client.close();
            accepted.close();
            int n = selector.selectNow();
            if (n != 0 || !selector.selectedKeys().isEmpty() || !selector.keys().isEmpty()) {
                fail("cycle " + i + ": after closing, select returned " + n + " with keys " + selector.keys());
            }
        }
    }

    /**
     * Closing the selector with channels registered in every state, some of them closed:
     * afterwards no channel has a key for it, the closed channels' fds are released, and the
     * open channels work with a new selector.
     */
    @ParameterizedTest
    @MethodSource("io.github.nativeselector.support.TestSelectors#all")
    @Timeout(value = 20, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void closingTheSelectorReleasesEverything(TestSelectors selectors) throws IOException {
        try (ServerSocketChannel server = openServer()) {
            // Warm-up, so that the baseline holds whatever the JVM opens once.
            selectors.open().close();
            Map<Integer, String> baseline = snapshot();
            List<SocketChannel> peers = new ArrayList<>();
            List<SelectableChannel> channels = new ArrayList<>();
            List<SelectionKey> keys = new ArrayList<>();
            Map<SelectableChannel, SocketChannel> peerOf = new HashMap<>();
            Map<SelectableChannel, String> files = new HashMap<>();

            Selector selector = selectors.open();
            // Six sockets: {selected, applied, queued} x {left open, closed}; and a pipe whose write end is closed.
            for (int i = 0; i < 6; i++) {
                Map<Integer, String> before = snapshot();
                SocketChannel client = SocketChannel.open(server.getLocalAddress());
                Map<Integer, String> after = snapshot();
                files.put(client, after.get(singleOpened(before, after)));
                SocketChannel peer = server.accept();
                peer.configureBlocking(false);
                client.configureBlocking(false);
                peers.add(peer);
                peerOf.put(client, peer);
                channels.add(client);
            }
            Map<Integer, String> beforePipe = snapshot();
            Pipe pipe = Pipe.open();
            String pipeFile = fileOfOpenedPipe(beforePipe);
            pipe.source().configureBlocking(false);
            pipe.sink().configureBlocking(false);

            // 0,1: selected; 2,3: applied; 4,5 queued; the sink: applied and selected.
            for (int i = 0; i < 4; i++) {
                keys.add(channels.get(i).register(selector, SelectionKey.OP_READ, i));
            }
            SelectionKey sinkKey = pipe.sink().register(selector, SelectionKey.OP_WRITE, "sink");
            for (int i = 0; i < 2; i++) {
                peerOf.get(channels.get(i)).write(ByteBuffer.wrap(new byte[] {1}));
            }
            selectUntilSelected(selector, keys.get(0), keys.get(1), sinkKey);
            for (int i = 0; i < 2; i++) {
                // Drained (so a close sends FIN), still selected.
                while (((SocketChannel) channels.get(i)).read(ByteBuffer.allocate(8)) == 0) {
                    Thread.onSpinWait();
                }
            }
            for (int i = 4; i < 6; i++) {
                keys.add(channels.get(i).register(selector, SelectionKey.OP_READ, i));
            }
            keys.get(2).cancel(); // cancelled, not closed: the selector's close must still deregister it
            for (int i = 1; i < 6; i += 2) {
                channels.get(i).close();
            }
            pipe.sink().close();

            selector.close();

            List<SelectionKey> allKeys = new ArrayList<>(keys);
            allKeys.add(sinkKey);
            for (SelectionKey key : allKeys) {
                String name = "channel " + key.attachment();
                assertFalse(key.isValid(), name + ": key still valid after the selector closed");
                assertNull(key.channel().keyFor(selector), name + ": keyFor(closed selector)");
                assertFalse(key.channel().isRegistered(), name + ": still registered");
            }
            for (int i = 1; i < 6; i += 2) {
                assertEquals(0, count(files.get(channels.get(i))), "closed channel " + i + ": fd still open");
                assertReadsEof(peerOf.get(channels.get(i)), "peer of closed channel " + i);
            }
            assertEquals(1, count(pipeFile), "closed sink: fd still open");
            assertReadsEof(pipe.source(), "read end of the closed sink");

            // The open channels work with a new selector: blocking mode can change, readiness is reported.
            List<SelectableChannel> open = new ArrayList<>(List.of(channels.get(0), channels.get(2), channels.get(4),
                    pipe.source()));
            try (Selector next = selectors.open()) {
                Set<SelectionKey> nextKeys = new HashSet<>();
                for (SelectableChannel channel : open) {
                    channel.configureBlocking(true);
                    channel.configureBlocking(false);
                    SelectionKey key = channel.register(next, SelectionKey.OP_READ, channel);
                    assertNotNull(key);
                    nextKeys.add(key);
                    if (peerOf.containsKey(channel)) {
                        peerOf.get(channel).write(ByteBuffer.wrap(new byte[] {3}));
                    }
                }
                // The pipe's source is at end-of-stream, which is readable too.
                selectUntilSelected(next, nextKeys.toArray(new SelectionKey[0]));
                for (SelectionKey key : nextKeys) {
                    assertEquals(SelectionKey.OP_READ, key.readyOps(), () -> key.channel() + " readyOps");
                }
            }
            for (SelectableChannel channel : open) {
                channel.close();
            }
            for (SocketChannel peer : peers) {
                peer.close();
            }
            assertBackToBaseline(baseline, "after closing the selector and every channel");
        }
    }

    /** The link target of the pipe opened since {@code before} (a pipe opens two fds, with one target). */
    private static String fileOfOpenedPipe(Map<Integer, String> before) throws IOException {
        Map<Integer, String> opened = CloseReuseFds.opened(before, snapshot());
        assertEquals(2, opened.size(), () -> "a pipe opens two fds, got " + opened);
        assertEquals(1, new HashSet<>(opened.values()).size(), () -> "both ends of one pipe: " + opened);
        return opened.values().iterator().next();
    }
}
