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
import java.util.Arrays;
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

    private static void serve(Socket socket) {
        try (socket) {
            InputStream in = socket.getInputStream();
            OutputStream out = socket.getOutputStream();
            byte[] request = new byte[256];
            byte[] reply = new byte[256];
            while (readFully(in, request, 0, Protocol.HEADER_BYTES, true)) {
                int requestLength = Protocol.getInt(request, 0);
                int replyLength = Protocol.getInt(request, 4);
                Protocol.check(requestLength, replyLength);
                if (request.length < requestLength) {
                    request = Arrays.copyOf(request, requestLength);
                }
                readFully(in, request, Protocol.HEADER_BYTES, requestLength - Protocol.HEADER_BYTES, false);
                if (reply.length < replyLength) {
                    reply = new byte[replyLength];
                }
                Protocol.fillReply(reply, request, requestLength, replyLength);
                out.write(reply, 0, replyLength);
            }
        } catch (IOException e) {
            // Reset by the peer, or a request outside the protocol: the connection is dropped.
        }
    }

    /** Reads exactly {@code length} bytes; false at an end of stream before the first byte, where that is allowed. */
    private static boolean readFully(InputStream in, byte[] buffer, int offset, int length, boolean endAllowed)
            throws IOException {
        int done = 0;
        while (done < length) {
            int n = in.read(buffer, offset + done, length - done);
            if (n < 0) {
                if (done == 0 && endAllowed) {
                    return false;
                }
                throw new EOFException("the connection ended inside a request");
            }
            done += n;
        }
        return true;
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
