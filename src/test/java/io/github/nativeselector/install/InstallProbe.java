/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.install;

import io.github.nativeselector.SelectorStats;
import java.io.EOFException;
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
import java.util.Arrays;
import java.util.Iterator;
import java.util.Optional;

/**
 * Child-JVM main: opens a selector the standard way ({@link Selector#open()}), runs a short NIO
 * echo round trip on it, and prints {@code key=value} lines saying what it got.
 */
public final class InstallProbe {

    private InstallProbe() {
    }

    public static void main(String[] args) throws Exception {
        System.out.println("provider=" + SelectorProvider.provider().getClass().getName());
        Selector selector;
        try {
            selector = Selector.open();
        } catch (IOException | RuntimeException e) {
            System.out.println("error=" + e.getClass().getName() + ": " + e.getMessage());
            System.out.flush();
            System.exit(3);
            return;
        }
        try (Selector s = selector) {
            System.out.println("selector=" + s.getClass().getName());
            int rounds = echoRoundTrip(s, 20);
            System.out.println("echo=ok rounds=" + rounds);
            Optional<SelectorStats> stats = SelectorStats.of(s);
            System.out.println("stats=" + (stats.isPresent() ? "present" : "absent"));
            stats.ifPresent(st -> System.out.println("polls=" + st.polls() + " readyEvents=" + st.readyEvents()
                    + " changesApplied=" + st.changesApplied()));
        }
        // A second selector: a fallback must not be reported twice.
        try (Selector second = Selector.open()) {
            System.out.println("second=" + second.getClass().getName());
        }
        System.out.flush();
    }

    /**
     * Connects a client to a server through {@code selector}, then sends {@code rounds}
     * messages the server side echoes, all driven by the selector. Returns the rounds done.
     */
    static int echoRoundTrip(Selector selector, int rounds) throws IOException {
        long deadline = System.nanoTime() + 20_000_000_000L;
        SocketChannel accepted = null;
        try (ServerSocketChannel server = ServerSocketChannel.open();
                SocketChannel client = SocketChannel.open()) {
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            server.configureBlocking(false);
            client.configureBlocking(false);
            SelectionKey serverKey = server.register(selector, SelectionKey.OP_ACCEPT);
            boolean connected = client.connect(server.getLocalAddress());
            SelectionKey clientKey = client.register(selector, connected ? 0 : SelectionKey.OP_CONNECT);
            while (accepted == null || !client.isConnected()) {
                checkDeadline(deadline, "connect/accept");
                selector.select(1000);
                for (Iterator<SelectionKey> it = selector.selectedKeys().iterator(); it.hasNext();) {
                    SelectionKey key = it.next();
                    it.remove();
                    if (key == serverKey && key.isAcceptable()) {
                        SocketChannel ch = server.accept();
                        if (ch != null) {
                            accepted = ch;
                            accepted.configureBlocking(false);
                        }
                    } else if (key == clientKey && key.isConnectable() && client.finishConnect()) {
                        key.interestOps(0);
                    }
                }
            }
            serverKey.cancel();
            SelectionKey acceptedKey = accepted.register(selector, SelectionKey.OP_READ);
            ByteBuffer echo = ByteBuffer.allocate(1 << 16);
            for (int round = 0; round < rounds; round++) {
                byte[] message = ("round " + round + ";").repeat(1 + round * 50).getBytes(StandardCharsets.US_ASCII);
                ByteBuffer out = ByteBuffer.wrap(message);
                ByteBuffer in = ByteBuffer.allocate(message.length);
                clientKey.interestOps(SelectionKey.OP_READ | SelectionKey.OP_WRITE);
                while (in.hasRemaining()) {
                    checkDeadline(deadline, "round " + round);
                    selector.select(1000);
                    for (Iterator<SelectionKey> it = selector.selectedKeys().iterator(); it.hasNext();) {
                        SelectionKey key = it.next();
                        it.remove();
                        if (key == clientKey) {
                            if (key.isWritable()) {
                                client.write(out);
                                if (!out.hasRemaining()) {
                                    key.interestOps(SelectionKey.OP_READ);
                                }
                            }
                            if (key.isReadable() && client.read(in) < 0) {
                                throw new EOFException("server closed the connection");
                            }
                        } else if (key == acceptedKey) {
                            if (key.isReadable() && accepted.read(echo) < 0) {
                                throw new EOFException("client closed the connection");
                            }
                            echo.flip();
                            accepted.write(echo);
                            echo.compact();
                            key.interestOps(SelectionKey.OP_READ | (echo.position() > 0 ? SelectionKey.OP_WRITE : 0));
                        }
                    }
                }
                if (!Arrays.equals(message, in.array())) {
                    throw new IOException("round " + round + ": echo differs from what was sent");
                }
            }
            return rounds;
        } finally {
            if (accepted != null) {
                accepted.close();
            }
        }
    }

    private static void checkDeadline(long deadline, String what) throws IOException {
        if (System.nanoTime() - deadline > 0) {
            throw new IOException("timed out in " + what);
        }
    }
}
