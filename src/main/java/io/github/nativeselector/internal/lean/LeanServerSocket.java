/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.internal.lean;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.SocketImpl;
import java.net.SocketOption;
import java.net.StandardSocketOptions;
import java.nio.channels.IllegalBlockingModeException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Set;

import static java.util.concurrent.TimeUnit.MILLISECONDS;

/**
 * {@link LeanServerSocketChannel#socket()}: the channel seen as a {@link ServerSocket}, behaving
 * as the JDK's adaptor for its own channels does.
 *
 * <p>Every public method of {@code ServerSocket} is overridden, so the {@code SocketImpl} given
 * to it is never used. The accept timeout lives here, as in the JDK. No locks: the channel
 * serializes what needs it.
 */
final class LeanServerSocket extends ServerSocket {

    private final LeanServerSocketChannel channel;

    /** SO_TIMEOUT in milliseconds, 0 for none; applies to {@link #accept()}. */
    private volatile int timeout;

    LeanServerSocket(LeanServerSocketChannel channel) {
        // ServerSocket rejects a null impl (since JDK 12), unlike Socket
        super(NoImpl.INSTANCE);
        this.channel = channel;
    }

    @Override
    public void bind(SocketAddress local) throws IOException {
        // ServerSocket's default backlog
        bind(local, 50);
    }

    @Override
    public void bind(SocketAddress local, int backlog) throws IOException {
        try {
            channel.bind((local == null) ? new InetSocketAddress(0) : local, backlog);
        } catch (RuntimeException x) {
            throw LeanSocket.translated(x);
        }
    }

    @Override
    public InetAddress getInetAddress() {
        InetSocketAddress local = channel.localAddress();
        return (local == null) ? null : local.getAddress();
    }

    @Override
    public int getLocalPort() {
        InetSocketAddress local = channel.localAddress();
        return (local == null) ? -1 : local.getPort();
    }

    @Override
    public SocketAddress getLocalSocketAddress() {
        return channel.localAddress();
    }

    @Override
    public Socket accept() throws IOException {
        int timeout = this.timeout;
        SocketChannel accepted;
        try {
            // Without a timeout the channel's own accept is used, so a non-blocking channel still
            // hands over a connection that is already waiting, as the JDK's adaptor always has.
            accepted = (timeout > 0)
                    ? channel.blockingAccept(MILLISECONDS.toNanos(timeout))
                    : channel.accept();
        } catch (RuntimeException x) {
            throw LeanSocket.translated(x);
        }
        if (accepted == null) {
            throw new IllegalBlockingModeException();
        }
        return accepted.socket();
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }

    @Override
    public ServerSocketChannel getChannel() {
        return channel;
    }

    @Override
    public boolean isBound() {
        return channel.localAddress() != null;
    }

    @Override
    public boolean isClosed() {
        return !channel.isOpen();
    }

    @Override
    public void setSoTimeout(int timeout) throws SocketException {
        this.timeout = LeanSocket.checkedTimeout(channel, timeout);
    }

    @Override
    public int getSoTimeout() throws SocketException {
        LeanSocket.ensureOpen(channel);
        return timeout;
    }

    @Override
    public void setReuseAddress(boolean on) throws SocketException {
        LeanSocket.set(channel, StandardSocketOptions.SO_REUSEADDR, on);
    }

    @Override
    public boolean getReuseAddress() throws SocketException {
        return LeanSocket.get(channel, StandardSocketOptions.SO_REUSEADDR);
    }

    @Override
    public String toString() {
        if (!isBound()) {
            return "ServerSocket[unbound]";
        }
        return "ServerSocket[addr=" + getInetAddress() + ",localport=" + getLocalPort() + "]";
    }

    @Override
    public void setReceiveBufferSize(int size) throws SocketException {
        // the channel takes 0 (the kernel's minimum); ServerSocket never has
        if (size <= 0) {
            throw new IllegalArgumentException("size cannot be 0 or negative");
        }
        LeanSocket.set(channel, StandardSocketOptions.SO_RCVBUF, size);
    }

    @Override
    public int getReceiveBufferSize() throws SocketException {
        return LeanSocket.get(channel, StandardSocketOptions.SO_RCVBUF);
    }

    @Override
    public void setPerformancePreferences(int connectionTime, int latency, int bandwidth) {
        // ServerSocket ignores these too: TCP has no such knobs here
    }

    @Override
    public <T> ServerSocket setOption(SocketOption<T> name, T value) throws IOException {
        channel.setOption(name, value);
        return this;
    }

    @Override
    public <T> T getOption(SocketOption<T> name) throws IOException {
        return channel.getOption(name);
    }

    @Override
    public Set<SocketOption<?>> supportedOptions() {
        return channel.supportedOptions();
    }

    /**
     * The impl ServerSocket is given and never uses, since every method that would reach it is
     * overridden: each operation fails rather than open a descriptor of its own. Nothing ever
     * sets its fields, so one serves every server socket.
     */
    private static final class NoImpl extends SocketImpl {

        static final NoImpl INSTANCE = new NoImpl();

        @Override
        protected void create(boolean stream) {
            throw new UnsupportedOperationException();
        }

        @Override
        protected void connect(String host, int port) {
            throw new UnsupportedOperationException();
        }

        @Override
        protected void connect(InetAddress address, int port) {
            throw new UnsupportedOperationException();
        }

        @Override
        protected void connect(SocketAddress address, int timeout) {
            throw new UnsupportedOperationException();
        }

        @Override
        protected void bind(InetAddress host, int port) {
            throw new UnsupportedOperationException();
        }

        @Override
        protected void listen(int backlog) {
            throw new UnsupportedOperationException();
        }

        @Override
        protected void accept(SocketImpl s) {
            throw new UnsupportedOperationException();
        }

        @Override
        protected InputStream getInputStream() {
            throw new UnsupportedOperationException();
        }

        @Override
        protected OutputStream getOutputStream() {
            throw new UnsupportedOperationException();
        }

        @Override
        protected int available() {
            throw new UnsupportedOperationException();
        }

        @Override
        protected void close() {
            throw new UnsupportedOperationException();
        }

        @Override
        protected void sendUrgentData(int data) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void setOption(int optID, Object value) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Object getOption(int optID) {
            throw new UnsupportedOperationException();
        }
    }
}
