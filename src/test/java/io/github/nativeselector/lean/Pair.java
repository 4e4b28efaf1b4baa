/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.lean;

import io.github.nativeselector.support.ContractChannels;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

/**
 * A connection whose three channels are all of one implementation: the listening server, the
 * client that connected to it and the channel the server accepted. All are in blocking mode.
 */
final class Pair implements AutoCloseable {
    final ServerSocketChannel server;
    final SocketChannel client;
    final SocketChannel accepted;

    private Pair(ServerSocketChannel server, SocketChannel client, SocketChannel accepted) {
        this.server = server;
        this.client = client;
        this.accepted = accepted;
    }

    static Pair open(Impl impl) throws IOException {
        return open(impl, Family.INET);
    }

    static Pair open(Impl impl, Family family) throws IOException {
        ServerSocketChannel server = impl.listen(family);
        SocketChannel client = null;
        try {
            client = impl.openSocket(family);
            client.connect(server.getLocalAddress());
            SocketChannel accepted = server.accept();
            return new Pair(server, client, accepted);
        } catch (IOException | RuntimeException e) {
            ContractChannels.closeQuietly(client);
            server.close();
            throw e;
        }
    }

    InetSocketAddress serverAddress() throws IOException {
        return (InetSocketAddress) server.getLocalAddress();
    }

    /**
     * Resets the connection from the accepted side, and waits until the client has the reset;
     * leaves the client non-blocking.
     */
    void resetByAccepted() throws IOException {
        reset(accepted, client);
    }

    /**
     * Resets the connection from the client's side, and waits until the accepted channel has the
     * reset; leaves the accepted channel non-blocking.
     */
    void resetByClient() throws IOException {
        reset(client, accepted);
    }

    private static void reset(SocketChannel closing, SocketChannel peer) throws IOException {
        closing.setOption(StandardSocketOptions.SO_LINGER, 0);
        closing.close(); // a close with linger 0 resets the connection
        peer.configureBlocking(false);
        Bytes.awaitReadable(peer);
    }

    @Override
    public void close() throws IOException {
        ContractChannels.closeQuietly(client);
        ContractChannels.closeQuietly(accepted);
        server.close();
    }
}
