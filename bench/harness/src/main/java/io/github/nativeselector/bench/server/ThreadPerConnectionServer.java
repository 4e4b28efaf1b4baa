/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.bench.server;

import io.github.nativeselector.SelectorStats;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.reflect.InvocationTargetException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The protocol on blocking sockets, a thread per connection: platform threads (from a cached
 * pool, so a thread serves one connection at a time and is reused after it closes) or virtual
 * threads (one each; JDK 21 and newer, where blocking socket calls park the virtual thread and
 * the JDK's own poller waits for the socket).
 */
final class ThreadPerConnectionServer implements Server {

    /** Each connection's buffers to begin with; they grow to the protocol's largest on the first request that needs it. */
    private static final int FIRST_BUFFER_BYTES = 1024;

    private final boolean virtual;
    private final ServerSocket listener;
    private final ExecutorService threads;
    private volatile boolean stopping;

    private ThreadPerConnectionServer(boolean virtual, ServerSocket listener, ExecutorService threads) {
        this.virtual = virtual;
        this.listener = listener;
        this.threads = threads;
    }

    static ThreadPerConnectionServer start(boolean virtual) throws IOException {
        ExecutorService threads = virtual ? virtualThreadPerTask() : Executors.newCachedThreadPool(runnable -> {
            Thread thread = new Thread(runnable, "connection");
            thread.setDaemon(true);
            return thread;
        });
        ServerSocket listener = new ServerSocket();
        listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), ServerMain.BACKLOG);
        ThreadPerConnectionServer server = new ThreadPerConnectionServer(virtual, listener, threads);
        threads.execute(server::acceptLoop);
        return server;
    }

    /** Reached reflectively: the servers are built for Java 17, and run on newer JDKs too. */
    private static ExecutorService virtualThreadPerTask() {
        try {
            return (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
        } catch (NoSuchMethodException e) {
            throw new UnsupportedOperationException("virtual threads need JDK 21 or newer; this is JDK "
                    + Runtime.version().feature());
        } catch (IllegalAccessException | InvocationTargetException e) {
            throw new IllegalStateException("cannot create virtual threads", e);
        }
    }

    private void acceptLoop() {
        try {
            while (!stopping) {
                Socket socket = listener.accept();
                socket.setTcpNoDelay(true);
                threads.execute(() -> serve(socket));
            }
        } catch (IOException e) {
            if (!stopping) {
                Fatal.fail("accepting", e);
            }
        }
    }

    /**
     * One read, as much as the buffer takes, then every complete request in it answered, each
     * with one write: a read and a write a request, as the selector servers and the C server make.
     */
    private static void serve(Socket socket) {
        try (socket) {
            InputStream in = socket.getInputStream();
            OutputStream out = socket.getOutputStream();
            ByteBuffer requests = ByteBuffer.allocate(FIRST_BUFFER_BYTES);
            ByteBuffer reply = ByteBuffer.allocate(FIRST_BUFFER_BYTES);
            for (;;) {
                int n = in.read(requests.array(), requests.position(), requests.remaining());
                if (n < 0) {
                    if (requests.position() > 0) {
                        throw new EOFException("the connection ended inside a request");
                    }
                    return;
                }
                requests.position(requests.position() + n).flip();
                reply = answer(requests, reply, out);
                requests.compact();
                if (requests.position() >= Protocol.HEADER_BYTES && requests.getInt(0) > requests.capacity()) {
                    requests = ByteBuffer.allocate(Protocol.MAX_BYTES).put(requests.flip());
                }
            }
        } catch (IOException e) {
            // Reset by the peer, or a request outside the protocol: the connection is dropped.
        }
    }

    /**
     * Answers the complete requests in {@code requests} (read mode), leaving a partial one there;
     * returns the reply buffer, a larger one if a reply needed it.
     */
    private static ByteBuffer answer(ByteBuffer requests, ByteBuffer reply, OutputStream out) throws IOException {
        int replyLength;
        while ((replyLength = Protocol.replyLengthOfWholeRequest(requests)) > 0) {
            reply = reply.capacity() < replyLength ? ByteBuffer.allocate(Protocol.MAX_BYTES) : reply.clear();
            Protocol.reply(requests, reply, replyLength);
            out.write(reply.array(), 0, replyLength);
        }
        return reply;
    }

    @Override
    public int port() {
        return listener.getLocalPort();
    }

    @Override
    public String backend() {
        return virtual ? "threads-virtual" : "threads-platform";
    }

    @Override
    public String mechanism() {
        return virtual ? "virtual threads, blocking java.net.Socket" : "platform threads, blocking java.net.Socket";
    }

    @Override
    public String channels() {
        return listener.getClass().getName();
    }

    @Override
    public Optional<SelectorStats> counters() {
        return Optional.empty();
    }

    @Override
    public void stop() throws IOException {
        stopping = true;
        listener.close();
        threads.shutdownNow();
    }
}
