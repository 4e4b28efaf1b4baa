/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.install;

import io.github.nativeselector.SelectorStats;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Iterator;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A plain single-threaded NIO echo server on a given selector. A connection with echo bytes it
 * could not write yet stops reading until they are written.
 */
final class EchoServer implements AutoCloseable {

    private final Selector selector;
    private final ServerSocketChannel server;
    private final Thread thread;
    private volatile boolean stopping;
    private volatile Throwable failure;
    private volatile int registeredKeys;
    private volatile long accepted;
    private volatile long bytesEchoed;
    private volatile Optional<SelectorStats> finalStats = Optional.empty();

    EchoServer(Selector selector) throws IOException {
        this.selector = selector;
        this.server = ServerSocketChannel.open();
        try {
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 200);
            server.configureBlocking(false);
            server.register(selector, SelectionKey.OP_ACCEPT);
        } catch (IOException | RuntimeException e) {
            server.close();
            selector.close();
            throw e;
        }
        thread = new Thread(this::loop, "echo-server");
        thread.setDaemon(true);
        thread.start();
    }

    InetSocketAddress address() throws IOException {
        return (InetSocketAddress) server.getLocalAddress();
    }

    int registeredKeys() {
        return registeredKeys;
    }

    long accepted() {
        return accepted;
    }

    long bytesEchoed() {
        return bytesEchoed;
    }

    /** The selector's counters just before the server closed it. */
    Optional<SelectorStats> finalStats() {
        return finalStats;
    }

    private void loop() {
        try {
            while (!stopping) {
                selector.select(100);
                for (Iterator<SelectionKey> it = selector.selectedKeys().iterator(); it.hasNext();) {
                    SelectionKey key = it.next();
                    it.remove();
                    if (!key.isValid()) {
                        continue;
                    }
                    if (key.isAcceptable()) {
                        SocketChannel ch = server.accept();
                        if (ch != null) {
                            ch.configureBlocking(false);
                            ch.register(selector, SelectionKey.OP_READ, ByteBuffer.allocate(64 * 1024));
                            accepted++;
                        }
                    } else {
                        serve(key);
                    }
                }
                registeredKeys = selector.keys().size();
            }
        } catch (Throwable t) {
            failure = t;
        } finally {
            finalStats = SelectorStats.of(selector);
            try {
                for (SelectionKey key : selector.keys()) {
                    key.channel().close();
                }
                selector.close();
            } catch (Throwable t) {
                if (failure == null) {
                    failure = t;
                }
            }
        }
    }

    private void serve(SelectionKey key) throws IOException {
        SocketChannel ch = (SocketChannel) key.channel();
        ByteBuffer buffer = (ByteBuffer) key.attachment();
        if (key.isReadable()) {
            int n;
            try {
                n = ch.read(buffer);
            } catch (IOException reset) {
                n = -1;
            }
            if (n < 0) {
                key.cancel();
                ch.close();
                return;
            }
        }
        buffer.flip();
        int written = ch.write(buffer);
        buffer.compact();
        bytesEchoed += written;
        key.interestOps(buffer.position() > 0 ? SelectionKey.OP_WRITE : SelectionKey.OP_READ);
    }

    /** Stops the loop, waits for it, and rethrows what went wrong in it. */
    @Override
    public void close() throws Exception {
        stopping = true;
        selector.wakeup();
        thread.join(TimeUnit.SECONDS.toMillis(10));
        if (thread.isAlive()) {
            server.close();
            throw new IllegalStateException("echo server did not stop in 10 s");
        }
        server.close();
        if (failure != null) {
            throw new IllegalStateException("echo server failed", failure);
        }
    }
}
