/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.lean;

import static org.junit.jupiter.api.Assertions.fail;

import io.github.nativeselector.internal.BuiltInProvider;
import io.github.nativeselector.support.ContractChannels;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;

/**
 * A JDK listener whose accept queue is full, so that a connect to it stays pending: Linux drops
 * the SYN of a connection its listener has no room for (and every retransmission of it) until the
 * server accepts one. {@link #makeRoom()} accepts one, and a pending connect then completes at
 * its next SYN retransmission (one to three seconds later).
 */
final class FullBacklog implements AutoCloseable {
    /** How long a loopback handshake may take before its SYN is taken as dropped. */
    private static final long HANDSHAKE_MS = 1_000;

    private final ServerSocketChannel listener;
    private final List<SocketChannel> queued = new ArrayList<>();
    final InetSocketAddress address;

    private FullBacklog(ServerSocketChannel listener) throws IOException {
        this.listener = listener;
        this.address = (InetSocketAddress) listener.getLocalAddress();
    }

    static FullBacklog open(Family family) throws IOException {
        ServerSocketChannel listener = Impl.JDK.openServer(family);
        FullBacklog full = null;
        try {
            listener.bind(family.loopback(0), 1);
            full = new FullBacklog(listener);
            full.fill(family);
            return full;
        } catch (IOException | RuntimeException | Error e) {
            if (full != null) {
                full.close();
            } else {
                listener.close();
            }
            throw e;
        }
    }

    private void fill(Family family) throws IOException {
        try (Selector selector = BuiltInProvider.get().openSelector()) {
            for (int i = 0; i < 64; i++) {
                SocketChannel probe = Impl.JDK.openSocket(family);
                probe.configureBlocking(false);
                if (probe.connect(address)) {
                    queued.add(probe);
                    continue;
                }
                SelectionKey key = probe.register(selector, SelectionKey.OP_CONNECT);
                if (selector.select(HANDSHAKE_MS) == 1) {
                    selector.selectedKeys().clear();
                    key.cancel();
                    probe.finishConnect();
                    queued.add(probe);
                    continue;
                }
                probe.close();
                return;
            }
        }
        fail("the accept queue of a listener with backlog 1 never filled");
    }

    /** Accepts one queued connection, so that the pending connect's next SYN gets through. */
    void makeRoom() throws IOException {
        SocketChannel accepted = listener.accept();
        accepted.close();
    }

    @Override
    public void close() throws IOException {
        for (SocketChannel ch : queued) {
            ContractChannels.closeQuietly(ch);
        }
        listener.close();
    }
}
