/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.races;

import static io.github.nativeselector.support.ContractChannels.closeQuietly;

import io.github.nativeselector.support.ContractChannels.DatagramPair;
import io.github.nativeselector.support.ContractChannels.Listener;
import io.github.nativeselector.support.ContractChannels.PipePair;
import io.github.nativeselector.support.ContractChannels.SocketKind;
import io.github.nativeselector.support.ContractChannels.SocketPair;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.WritableByteChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A channel that stress threads register, poke and close concurrently: the {@code local} end
 * goes to the selector, the {@code peer} end (null for a listener) makes it ready. Both ends are
 * non-blocking, so that no thread ever waits for another to drain a buffer; the local end is
 * made blocking only for a moment, under this object's monitor, which reads also take.
 */
public final class StressChannel implements AutoCloseable {

    enum Kind {
        TCP, UNIX, UDP, PIPE_SOURCE, PIPE_SINK, LISTENER
    }

    private static final int MAX_CLIENTS = 16;

    final Kind kind;
    final SelectableChannel local;
    final SelectableChannel peer;
    /** The key the last register() returned. */
    volatile SelectionKey key;
    private final AutoCloseable fixture;
    private final List<SocketChannel> clients = new ArrayList<>();

    private StressChannel(Kind kind, SelectableChannel local, SelectableChannel peer, AutoCloseable fixture)
            throws IOException {
        this.kind = kind;
        this.local = local;
        this.peer = peer;
        this.fixture = fixture;
        local.configureBlocking(false);
        if (peer != null) {
            peer.configureBlocking(false);
        }
    }

    static StressChannel open(Kind kind) throws IOException {
        return switch (kind) {
            case TCP, UNIX -> {
                SocketPair pair = SocketPair.open(kind == Kind.TCP ? SocketKind.INET : SocketKind.UNIX);
                yield new StressChannel(kind, pair.local, pair.peer, pair);
            }
            case UDP -> {
                DatagramPair pair = DatagramPair.open();
                yield new StressChannel(kind, pair.local, pair.peer, pair);
            }
            case PIPE_SOURCE -> {
                PipePair pipe = PipePair.open();
                yield new StressChannel(kind, pipe.source, pipe.sink, pipe);
            }
            case PIPE_SINK -> {
                PipePair pipe = PipePair.open();
                yield new StressChannel(kind, pipe.sink, pipe.source, pipe);
            }
            case LISTENER -> {
                Listener listener = Listener.open(SocketKind.INET);
                yield new StressChannel(kind, listener.channel, null, listener);
            }
        };
    }

    /**
     * A random interest set within the channel's valid operations, without OP_CONNECT: on a
     * connected socket it makes every selector return at once with nothing selected (the
     * JDK's included), and the selecting thread would never block for a wakeup to end.
     */
    int randomOps(SplittableRandom random) {
        return random.nextInt(32) & local.validOps() & ~SelectionKey.OP_CONNECT;
    }

    /** Makes the local end ready, or readier: a few bytes, a datagram, a connection. */
    void poke() throws IOException {
        switch (kind) {
            case TCP, UNIX, PIPE_SOURCE, UDP -> ((WritableByteChannel) peer).write(ByteBuffer.allocate(64));
            case PIPE_SINK -> ((ReadableByteChannel) peer).read(ByteBuffer.allocate(4096)); // room to write
            case LISTENER -> connectClient();
        }
    }

    private void connectClient() throws IOException {
        synchronized (clients) {
            if (clients.size() == MAX_CLIENTS || !local.isOpen()) {
                return;
            }
            SocketChannel client = SocketChannel.open();
            clients.add(client);
            client.configureBlocking(false);
            client.connect(((ServerSocketChannel) local).getLocalAddress());
        }
    }

    /** Takes what is ready at the local end: reads, receives, accepts, or fills a pipe. */
    void drain() throws IOException {
        synchronized (this) {
            if (local.isBlocking()) {
                return;
            }
            switch (kind) {
                case TCP, UNIX, PIPE_SOURCE -> ((ReadableByteChannel) local).read(ByteBuffer.allocate(4096));
                case UDP -> ((DatagramChannel) local).receive(ByteBuffer.allocate(4096));
                case PIPE_SINK -> ((WritableByteChannel) local).write(ByteBuffer.allocate(4096));
                case LISTENER -> {
                    SocketChannel accepted = ((ServerSocketChannel) local).accept();
                    if (accepted != null) {
                        accepted.close();
                    }
                }
            }
        }
    }

    /** Blocking and back: refused while the channel has a valid key, allowed once its keys are cancelled. */
    void toggleBlocking() throws IOException {
        synchronized (this) {
            try {
                local.configureBlocking(true);
            } finally {
                local.configureBlocking(false);
            }
        }
    }

    void closeLocal() {
        closeQuietly(local);
    }

    void closePeer() {
        if (peer != null) {
            closeQuietly(peer);
        }
    }

    @Override
    public void close() {
        closeLocal();
        closePeer();
        synchronized (clients) {
            for (SocketChannel client : clients) {
                closeQuietly(client);
            }
        }
        closeQuietly(fixture);
    }
}
