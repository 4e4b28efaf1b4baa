/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.bench.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Iterator;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * One selector and the thread that runs it: the usual NIO loop of {@code select()} and the
 * selected-key set, or {@code select(Consumer)}, which hands each ready key to the loop as the
 * selector finds it (no selected-key set to fill and empty). Connections come from the
 * accepting loop through a queue and a {@code wakeup()}, so each channel is registered by the
 * thread that serves it.
 */
final class SelectorLoop implements Runnable {

    private final int index;
    private final Selector selector;
    private final List<SelectorLoop> peers;
    private final Queue<SocketChannel> handedOver = new ConcurrentLinkedQueue<>();
    private final Thread thread;
    private final boolean selectWithConsumer;
    /** The action of {@code select(Consumer)}, made once rather than at every select. */
    private final Consumer<SelectionKey> handler = this::handle;
    /** Shared by the loop's connections: a connection holds buffers of its own only while it has half a request or an unsent reply. */
    final ByteBuffer readBuffer = ByteBuffer.allocateDirect(Protocol.MAX_BYTES);
    final ByteBuffer replyBuffer = ByteBuffer.allocateDirect(Protocol.MAX_BYTES);
    private ServerSocketChannel listener;
    private int nextPeer;
    private volatile boolean stopping;

    SelectorLoop(int index, Selector selector, List<SelectorLoop> peers, boolean selectWithConsumer) {
        this.index = index;
        this.selector = selector;
        this.peers = peers;
        this.selectWithConsumer = selectWithConsumer;
        this.thread = new Thread(this, "selector-" + index);
        this.thread.setDaemon(true);
    }

    /** Makes this loop the one that accepts; call before {@link #start}. */
    void accept(ServerSocketChannel listener) throws IOException {
        this.listener = listener;
        listener.register(selector, SelectionKey.OP_ACCEPT);
    }

    void start() {
        thread.start();
    }

    void stop() throws InterruptedException {
        stopping = true;
        selector.wakeup();
        thread.join(TimeUnit.SECONDS.toMillis(5));
    }

    @Override
    public void run() {
        try {
            while (!stopping) {
                if (selectWithConsumer) {
                    selector.select(handler);
                    registerHandedOver();
                } else {
                    selector.select();
                    registerHandedOver();
                    handleSelectedKeys();
                }
            }
        } catch (Throwable t) {
            Fatal.fail("selector loop " + index, t);
        }
    }

    private void handleSelectedKeys() {
        Iterator<SelectionKey> keys = selector.selectedKeys().iterator();
        while (keys.hasNext()) {
            SelectionKey key = keys.next();
            keys.remove();
            handle(key);
        }
    }

    /**
     * Accepts or serves one ready key; throws nothing checked, so that it can be the action of
     * {@code select(Consumer)} too.
     */
    private void handle(SelectionKey key) {
        if (!key.isValid()) {
            return;
        }
        if (key.isAcceptable()) {
            try {
                acceptAll();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        } else {
            serve(key);
        }
    }

    private static void serve(SelectionKey key) {
        Connection connection = (Connection) key.attachment();
        try {
            if (key.isWritable()) {
                connection.writePending();
            } else if (key.isReadable()) {
                connection.read();
            }
        } catch (IOException e) {
            // Reset by the peer, or a request outside the protocol: drop the connection.
            connection.close();
        }
    }

    private void acceptAll() throws IOException {
        SocketChannel channel;
        while ((channel = listener.accept()) != null) {
            channel.configureBlocking(false);
            channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
            SelectorLoop target = peers.get(nextPeer);
            nextPeer = (nextPeer + 1) % peers.size();
            if (target == this) {
                register(channel);
            } else {
                target.handedOver.add(channel);
                target.selector.wakeup();
            }
        }
    }

    private void registerHandedOver() throws IOException {
        SocketChannel channel;
        while ((channel = handedOver.poll()) != null) {
            register(channel);
        }
    }

    private void register(SocketChannel channel) throws IOException {
        Connection connection = new Connection(this, channel);
        connection.key = channel.register(selector, SelectionKey.OP_READ, connection);
    }
}
