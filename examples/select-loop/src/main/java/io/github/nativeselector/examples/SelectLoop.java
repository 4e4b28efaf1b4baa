/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.examples;

import io.github.nativeselector.SelectorStats;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.spi.SelectorProvider;
import java.nio.charset.StandardCharsets;

/**
 * A plain NIO select loop: an echo server and its client on one selector, opened with
 * {@link Selector#open()}. Prints which selector it got and what it counted; exit status 1 when
 * the selector is not native.
 */
public final class SelectLoop {

    private static final int MESSAGES = 10;

    public static void main(String[] args) throws IOException {
        System.out.println("provider: " + SelectorProvider.provider().getClass().getName());
        try (Selector selector = Selector.open();
                ServerSocketChannel server = ServerSocketChannel.open();
                SocketChannel client = SocketChannel.open()) {
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            server.configureBlocking(false);
            server.register(selector, SelectionKey.OP_ACCEPT);
            client.connect(server.getLocalAddress());
            client.configureBlocking(false);
            SelectionKey clientKey = client.register(selector, SelectionKey.OP_READ);

            for (int i = 0; i < MESSAGES; i++) {
                String message = "message " + i;
                client.write(ByteBuffer.wrap(message.getBytes(StandardCharsets.UTF_8)));
                String echoed = echoUntilClientReads(selector, server, clientKey, message.length());
                if (!echoed.equals(message)) {
                    throw new IOException("sent " + message + ", got back " + echoed);
                }
            }
            System.out.println("echoed: " + MESSAGES + " messages");
            SelectorStats stats = SelectorStats.of(selector).orElse(null);
            if (stats == null) {
                System.out.println("selector: the JDK's own (" + selector.getClass().getName() + ")");
                System.exit(1);
            }
            System.out.println("backend: " + stats.backend());
            System.out.println("counters: " + stats);
        }
    }

    /** Serves the selector (accept, echo) until the client has read {@code length} bytes. */
    private static String echoUntilClientReads(Selector selector, ServerSocketChannel server, SelectionKey clientKey,
            int length) throws IOException {
        ByteBuffer received = ByteBuffer.allocate(length);
        while (received.hasRemaining()) {
            if (selector.select(10_000) == 0) {
                throw new IOException("nothing became ready in 10 s");
            }
            for (SelectionKey key : selector.selectedKeys()) {
                if (key.isAcceptable()) {
                    SocketChannel accepted = server.accept();
                    accepted.configureBlocking(false);
                    accepted.register(selector, SelectionKey.OP_READ);
                } else if (key == clientKey) {
                    ((SocketChannel) key.channel()).read(received);
                } else if (key.isReadable()) {
                    SocketChannel peer = (SocketChannel) key.channel();
                    ByteBuffer buffer = ByteBuffer.allocate(256);
                    if (peer.read(buffer) < 0) {
                        peer.close();
                        continue;
                    }
                    buffer.flip();
                    while (buffer.hasRemaining()) {
                        peer.write(buffer);
                    }
                }
            }
            selector.selectedKeys().clear();
        }
        return new String(received.array(), StandardCharsets.UTF_8);
    }
}
