/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.fuzz;

import static io.github.nativeselector.support.ContractChannels.closeQuietly;
import static io.github.nativeselector.support.ContractChannels.readExactly;
import static io.github.nativeselector.support.ContractChannels.writeFully;

import io.github.nativeselector.support.ContractChannels;
import io.github.nativeselector.support.ContractChannels.DatagramPair;
import io.github.nativeselector.support.ContractChannels.Listener;
import io.github.nativeselector.support.ContractChannels.PipePair;
import io.github.nativeselector.support.ContractChannels.SocketKind;
import io.github.nativeselector.support.ContractChannels.SocketPair;
import io.github.nativeselector.support.ContractSupport;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.channels.spi.SelectorProvider;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One channel a fuzz program registers ({@code local}), with the harness's end of it
 * ({@code peer}), and what the harness knows is on its way to it. Readiness that travels
 * (bytes, datagrams, connections, a close) arrives "soon"; the endpoint remembers which ready
 * operation it is waiting for and {@link #settle()} waits until the JDK's own selector sees it,
 * so that both selectors of a lock-step run look at the same, settled kernel state.
 */
final class FuzzEndpoint implements AutoCloseable {

    /** What the endpoint is; the local end is non-blocking when opened. */
    enum Kind {
        TCP, UNIX, UDP, PIPE_SOURCE, PIPE_SINK, LISTENER, CONNECTING;

        String opener() {
            return switch (this) {
                case TCP -> "connected INET socket pair";
                case UNIX -> "connected UNIX socket pair";
                case UDP -> "connected datagram pair";
                case PIPE_SOURCE -> "pipe, local = source";
                case PIPE_SINK -> "pipe, local = sink";
                case LISTENER -> "listening INET server socket";
                case CONNECTING -> "INET socket, non-blocking connect() in progress";
            };
        }
    }

    // Bounds that keep a blocking peer write from ever filling the local end's buffer.
    private static final int MAX_PENDING_BYTES = 32 * 1024;
    private static final int MAX_PENDING_DATAGRAMS = 16;
    private static final int MAX_PENDING_CONNECTIONS = 8;

    final Kind kind;
    final SelectableChannel local;
    /** The last key a register() returned, kept after it is cancelled: using it must throw. */
    SelectionKey key;

    private final List<AutoCloseable> fixtures = new ArrayList<>();
    private final List<SocketChannel> clients = new ArrayList<>();
    private SelectableChannel peer;
    private Listener acceptor;
    private boolean peerClosed;
    private long pendingBytes;
    private int pendingDatagrams;
    private int pendingConnections;
    /** Ready operations in flight to {@code local} that the next {@link #settle()} waits for. */
    private int awaited;

    private FuzzEndpoint(Kind kind, SelectableChannel local, SelectableChannel peer) {
        this.kind = kind;
        this.local = local;
        this.peer = peer;
    }

    /** An endpoint whose TCP channels {@code provider} opens: the provider of the selector it is for. */
    static FuzzEndpoint open(Kind kind, SelectorProvider provider) throws IOException {
        switch (kind) {
            case TCP, UNIX -> {
                SocketPair pair = SocketPair.open(kind == Kind.TCP ? SocketKind.INET : SocketKind.UNIX, provider);
                return new FuzzEndpoint(kind, pair.local, pair.peer).owning(pair);
            }
            case UDP -> {
                DatagramPair pair = DatagramPair.open();
                return new FuzzEndpoint(kind, pair.local, pair.peer).owning(pair);
            }
            case PIPE_SOURCE, PIPE_SINK -> {
                PipePair pipe = PipePair.open();
                boolean source = kind == Kind.PIPE_SOURCE;
                FuzzEndpoint endpoint = new FuzzEndpoint(kind, source ? pipe.source : pipe.sink,
                        source ? pipe.sink : pipe.source).owning(pipe);
                endpoint.local.configureBlocking(false);
                return endpoint;
            }
            case LISTENER -> {
                Listener listener = Listener.open(SocketKind.INET, provider);
                listener.channel.configureBlocking(false);
                return new FuzzEndpoint(kind, listener.channel, null).owning(listener);
            }
            case CONNECTING -> {
                Listener acceptor = Listener.open(SocketKind.INET, provider);
                SocketChannel socket = acceptor.newSocket();
                FuzzEndpoint endpoint = new FuzzEndpoint(kind, socket, null).owning(acceptor).owning(socket);
                endpoint.acceptor = acceptor;
                socket.configureBlocking(false);
                if (!socket.connect(acceptor.address)) {
                    endpoint.awaited = SelectionKey.OP_CONNECT;
                }
                return endpoint;
            }
            default -> throw new AssertionError(kind);
        }
    }

    private FuzzEndpoint owning(AutoCloseable fixture) {
        fixtures.add(fixture);
        return this;
    }

    /** Sends something the local end will find ready: bytes, a datagram or a connection; false if it cannot now. */
    boolean peerSend(int size) throws IOException {
        if (!local.isOpen()) {
            return false; // a TCP peer writing to a closed socket gets a reset: not deterministic
        }
        switch (kind) {
            case TCP, UNIX, PIPE_SOURCE, CONNECTING -> {
                if (!peerOpen() || pendingBytes + size > MAX_PENDING_BYTES) {
                    return false;
                }
                writeFully((WritableByteChannel) peer, size);
                pendingBytes += size;
                awaited |= SelectionKey.OP_READ;
                return true;
            }
            case UDP -> {
                if (!peerOpen() || pendingDatagrams == MAX_PENDING_DATAGRAMS) {
                    return false;
                }
                ((DatagramChannel) peer).write(ContractChannels.bytes(size));
                pendingDatagrams++;
                awaited |= SelectionKey.OP_READ;
                return true;
            }
            case LISTENER -> {
                if (pendingConnections == MAX_PENDING_CONNECTIONS) {
                    return false;
                }
                ServerSocketChannel server = (ServerSocketChannel) local;
                SocketChannel client = SocketChannel.open(server.getLocalAddress());
                clients.add(client);
                pendingConnections++;
                awaited |= SelectionKey.OP_ACCEPT;
                return true;
            }
            default -> {
                return false; // a pipe's sink has no sender
            }
        }
    }

    /** Closes the harness's end; false if there is none to close. */
    boolean closePeer() throws IOException {
        if (!peerOpen()) {
            return false;
        }
        peer.close();
        peerClosed = true;
        switch (kind) {
            case TCP, UNIX, PIPE_SOURCE, CONNECTING -> awaited |= SelectionKey.OP_READ; // end of stream
            case PIPE_SINK -> awaited |= SelectionKey.OP_WRITE; // a broken pipe: error
            default -> {
                // a connected datagram channel notices nothing
            }
        }
        return true;
    }

    /** Reads, receives or accepts everything sent so far; false if there is nothing to take. */
    boolean drain() throws IOException, InterruptedException {
        if (!local.isOpen()) {
            return false;
        }
        boolean took = take();
        if (took) {
            // What was awaited has been taken (a blocking end cannot have been watched for it).
            awaited &= ~(SelectionKey.OP_READ | SelectionKey.OP_ACCEPT);
            if (peerClosed && kind != Kind.UDP) {
                // The end of stream may still be on its way behind what was just read.
                awaited |= SelectionKey.OP_READ;
            }
        }
        return took;
    }

    private boolean take() throws IOException, InterruptedException {
        switch (kind) {
            case TCP, UNIX, PIPE_SOURCE, CONNECTING -> {
                if (pendingBytes == 0) {
                    return false;
                }
                readExactly((ReadableByteChannel) local, pendingBytes);
                pendingBytes = 0;
                return true;
            }
            case UDP -> {
                if (pendingDatagrams == 0) {
                    return false;
                }
                ByteBuffer buffer = ByteBuffer.allocate(4096);
                long deadline = deadline();
                while (pendingDatagrams > 0) {
                    buffer.clear();
                    if (((DatagramChannel) local).receive(buffer) != null) {
                        pendingDatagrams--;
                    } else {
                        pause(deadline, "datagram");
                    }
                }
                return true;
            }
            case LISTENER -> {
                if (pendingConnections == 0) {
                    return false;
                }
                long deadline = deadline();
                while (pendingConnections > 0) {
                    SocketChannel accepted = ((ServerSocketChannel) local).accept();
                    if (accepted != null) {
                        accepted.close();
                        pendingConnections--;
                    } else {
                        pause(deadline, "connection");
                    }
                }
                return true;
            }
            default -> {
                return false;
            }
        }
    }

    /** Completes a connect: finishConnect()'s result, then the acceptor's end becomes the peer. */
    boolean finishConnect() throws IOException {
        SocketChannel socket = (SocketChannel) local;
        boolean connected = socket.finishConnect();
        if (connected && peer == null) {
            awaited &= ~SelectionKey.OP_CONNECT;
            peer = acceptor.channel.accept(); // a blocking accept of the connection just made
            fixtures.add(peer);
        }
        return connected;
    }

    /**
     * Waits, through a JDK selector of its own, until what was sent has made the local end
     * ready. A blocking or closed local end cannot be watched (nor selected); its wait is kept
     * for when it is non-blocking again.
     */
    void settle() throws IOException {
        if (awaited != 0 && local.isOpen() && !local.isBlocking()) {
            ContractSupport.witnessReady(local, awaited);
            awaited = 0;
        }
    }

    private boolean peerOpen() {
        return peer != null && peer.isOpen();
    }

    private static long deadline() {
        return System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ContractSupport.AWAIT_MS);
    }

    private static void pause(long deadline, String what) {
        if (System.nanoTime() > deadline) {
            throw new AssertionError("a " + what + " the peer sent did not arrive within "
                    + ContractSupport.AWAIT_MS + " ms");
        }
        ContractSupport.sleepQuietly(1);
    }

    @Override
    public void close() {
        closeQuietly(local);
        for (SocketChannel client : clients) {
            closeQuietly(client);
        }
        for (AutoCloseable fixture : fixtures) {
            closeQuietly(fixture);
        }
    }
}
