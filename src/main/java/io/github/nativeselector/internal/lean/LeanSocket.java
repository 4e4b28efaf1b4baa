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
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.SocketImpl;
import java.net.SocketOption;
import java.net.StandardSocketOptions;
import java.net.UnknownHostException;
import java.nio.channels.AlreadyBoundException;
import java.nio.channels.AlreadyConnectedException;
import java.nio.channels.Channel;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.NetworkChannel;
import java.nio.channels.NotYetBoundException;
import java.nio.channels.NotYetConnectedException;
import java.nio.channels.SocketChannel;
import java.nio.channels.UnresolvedAddressException;
import java.nio.channels.UnsupportedAddressTypeException;
import java.util.Set;

import static java.util.concurrent.TimeUnit.MILLISECONDS;

/**
 * {@link LeanSocketChannel#socket()}: the channel seen as a {@link Socket}, behaving as the JDK's
 * adaptor for its own channels does (same exceptions, messages and values when unbound,
 * unconnected or closed).
 *
 * <p>Every public method of {@code Socket} is overridden, so the {@code SocketImpl} that
 * {@code Socket} would otherwise create is never asked for and no second descriptor is ever
 * opened. The read timeout lives here, as in the JDK: it is not a socket option the kernel
 * knows. No locks: the channel serializes what needs it.
 */
final class LeanSocket extends Socket {

    private final LeanSocketChannel channel;

    /** SO_TIMEOUT in milliseconds, 0 for none; applies to reads through the input stream. */
    private volatile int timeout;

    LeanSocket(LeanSocketChannel channel) throws SocketException {
        // Socket accepts a null impl from a subclass (17 through 25) and only creates one when
        // a method of its own needs it, which none here does.
        super((SocketImpl) null);
        this.channel = channel;
    }

    @Override
    public void connect(SocketAddress remote) throws IOException {
        connect(remote, 0);
    }

    @Override
    public void connect(SocketAddress remote, int timeout) throws IOException {
        if (remote == null) {
            throw new IllegalArgumentException("connect: The address can't be null");
        }
        if (remote instanceof InetSocketAddress isa && isa.isUnresolved()) {
            throw unresolved(isa);
        }
        if (timeout < 0) {
            throw new IllegalArgumentException("connect: timeout can't be negative");
        }
        try {
            channel.blockingConnect(remote, MILLISECONDS.toNanos(timeout));
        } catch (RuntimeException x) {
            throw translated(x);
        }
    }

    /**
     * A host that could not be resolved fails the connect and closes the socket, as Socket does
     * for any failed connect; a closed or connected socket says so first.
     */
    private UnknownHostException unresolved(InetSocketAddress remote) throws IOException {
        ensureOpen(channel);
        if (channel.isConnected()) {
            throw new SocketException("Already connected");
        }
        close();
        return new UnknownHostException(remote.toString());
    }

    @Override
    public void bind(SocketAddress local) throws IOException {
        try {
            channel.bind(local);
        } catch (RuntimeException x) {
            throw translated(x);
        }
    }

    @Override
    public InetAddress getInetAddress() {
        InetSocketAddress remote = channel.remoteAddress();
        return (remote == null) ? null : remote.getAddress();
    }

    @Override
    public InetAddress getLocalAddress() {
        if (channel.isOpen()) {
            InetSocketAddress local = channel.localAddress();
            if (local != null) {
                return local.getAddress();
            }
        }
        // Socket's answer for a socket that is unbound or closed: the wildcard address
        return new InetSocketAddress(0).getAddress();
    }

    @Override
    public int getPort() {
        InetSocketAddress remote = channel.remoteAddress();
        return (remote == null) ? 0 : remote.getPort();
    }

    @Override
    public int getLocalPort() {
        InetSocketAddress local = channel.localAddress();
        return (local == null) ? -1 : local.getPort();
    }

    @Override
    public SocketAddress getRemoteSocketAddress() {
        return channel.remoteAddress();
    }

    @Override
    public SocketAddress getLocalSocketAddress() {
        return channel.localAddress();
    }

    @Override
    public SocketChannel getChannel() {
        return channel;
    }

    @Override
    public InputStream getInputStream() throws IOException {
        ensureOpen(channel);
        if (!channel.isConnected()) {
            throw new SocketException("Socket is not connected");
        }
        if (channel.isInputClosed()) {
            throw new SocketException("Socket input is shutdown");
        }
        return new Input();
    }

    @Override
    public OutputStream getOutputStream() throws IOException {
        ensureOpen(channel);
        if (!channel.isConnected()) {
            throw new SocketException("Socket is not connected");
        }
        if (channel.isOutputClosed()) {
            throw new SocketException("Socket output is shutdown");
        }
        return new Output();
    }

    @Override
    public void setTcpNoDelay(boolean on) throws SocketException {
        set(channel, StandardSocketOptions.TCP_NODELAY, on);
    }

    @Override
    public boolean getTcpNoDelay() throws SocketException {
        return get(channel, StandardSocketOptions.TCP_NODELAY);
    }

    @Override
    public void setSoLinger(boolean on, int linger) throws SocketException {
        set(channel, StandardSocketOptions.SO_LINGER, on ? linger : -1);
    }

    @Override
    public int getSoLinger() throws SocketException {
        return get(channel, StandardSocketOptions.SO_LINGER);
    }

    @Override
    public void sendUrgentData(int data) throws IOException {
        if (channel.sendUrgentData(data) == 0) {
            throw new IOException("Socket buffer full");
        }
    }

    @Override
    public void setOOBInline(boolean on) throws SocketException {
        set(channel, SocketOptionTable.SO_OOBINLINE, on);
    }

    @Override
    public boolean getOOBInline() throws SocketException {
        return get(channel, SocketOptionTable.SO_OOBINLINE);
    }

    @Override
    public void setSoTimeout(int timeout) throws SocketException {
        this.timeout = checkedTimeout(channel, timeout);
    }

    @Override
    public int getSoTimeout() throws SocketException {
        ensureOpen(channel);
        return timeout;
    }

    @Override
    public void setSendBufferSize(int size) throws SocketException {
        // the channel takes 0 (the kernel's minimum); Socket never has
        if (size <= 0) {
            throw new IllegalArgumentException("Invalid send size");
        }
        set(channel, StandardSocketOptions.SO_SNDBUF, size);
    }

    @Override
    public int getSendBufferSize() throws SocketException {
        return get(channel, StandardSocketOptions.SO_SNDBUF);
    }

    @Override
    public void setReceiveBufferSize(int size) throws SocketException {
        if (size <= 0) {
            throw new IllegalArgumentException("Invalid receive size");
        }
        set(channel, StandardSocketOptions.SO_RCVBUF, size);
    }

    @Override
    public int getReceiveBufferSize() throws SocketException {
        return get(channel, StandardSocketOptions.SO_RCVBUF);
    }

    @Override
    public void setKeepAlive(boolean on) throws SocketException {
        set(channel, StandardSocketOptions.SO_KEEPALIVE, on);
    }

    @Override
    public boolean getKeepAlive() throws SocketException {
        return get(channel, StandardSocketOptions.SO_KEEPALIVE);
    }

    @Override
    public void setTrafficClass(int tc) throws SocketException {
        set(channel, StandardSocketOptions.IP_TOS, tc);
    }

    @Override
    public int getTrafficClass() throws SocketException {
        return get(channel, StandardSocketOptions.IP_TOS);
    }

    @Override
    public void setReuseAddress(boolean on) throws SocketException {
        set(channel, StandardSocketOptions.SO_REUSEADDR, on);
    }

    @Override
    public boolean getReuseAddress() throws SocketException {
        return get(channel, StandardSocketOptions.SO_REUSEADDR);
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }

    @Override
    public void shutdownInput() throws IOException {
        try {
            channel.shutdownInput();
        } catch (RuntimeException x) {
            throw translated(x);
        }
    }

    @Override
    public void shutdownOutput() throws IOException {
        try {
            channel.shutdownOutput();
        } catch (RuntimeException x) {
            throw translated(x);
        }
    }

    @Override
    public String toString() {
        if (!channel.isConnected()) {
            return "Socket[unconnected]";
        }
        return "Socket[addr=" + getInetAddress() + ",port=" + getPort()
                + ",localport=" + getLocalPort() + "]";
    }

    @Override
    public boolean isConnected() {
        return channel.isConnected();
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
    public boolean isInputShutdown() {
        return channel.isInputClosed();
    }

    @Override
    public boolean isOutputShutdown() {
        return channel.isOutputClosed();
    }

    @Override
    public void setPerformancePreferences(int connectionTime, int latency, int bandwidth) {
        // Socket ignores these too: TCP has no such knobs here
    }

    @Override
    public <T> Socket setOption(SocketOption<T> name, T value) throws IOException {
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

    /** SocketException("Socket is closed") once {@code channel} is, as Socket and ServerSocket throw it. */
    static void ensureOpen(Channel channel) throws SocketException {
        if (!channel.isOpen()) {
            throw new SocketException("Socket is closed");
        }
    }

    /** A new SO_TIMEOUT for Socket or ServerSocket, checked as they check it. */
    static int checkedTimeout(Channel channel, int timeout) throws SocketException {
        ensureOpen(channel);
        if (timeout < 0) {
            throw new IllegalArgumentException("timeout < 0");
        }
        return timeout;
    }

    /**
     * Sets an option of {@code channel} for a setter of Socket or ServerSocket, which declare
     * SocketException alone.
     */
    static <T> void set(NetworkChannel channel, SocketOption<T> name, T value) throws SocketException {
        try {
            channel.setOption(name, value);
        } catch (IOException x) {
            throw socketException(x);
        }
    }

    /** Reads an option of {@code channel} for a getter of Socket or ServerSocket, as {@link #set} does. */
    static <T> T get(NetworkChannel channel, SocketOption<T> name) throws SocketException {
        try {
            return channel.getOption(name);
        } catch (IOException x) {
            throw socketException(x);
        }
    }

    /**
     * What Socket throws where a channel threw {@code x}: the channel's state exceptions become
     * SocketExceptions with Socket's messages and any other IOException a SocketException with
     * its message (Socket's option methods declare nothing else); null for an unchecked
     * exception that Socket lets through as it is.
     */
    static SocketException socketException(Exception x) {
        if (x instanceof SocketException se) {
            return se;
        }
        String message;
        if (x instanceof ClosedChannelException) {
            message = "Socket is closed";
        } else if (x instanceof NotYetConnectedException) {
            message = "Socket is not connected";
        } else if (x instanceof AlreadyBoundException) {
            message = "Already bound";
        } else if (x instanceof AlreadyConnectedException) {
            message = "Already connected";
        } else if (x instanceof NotYetBoundException) {
            message = "Socket is not bound yet";
        } else if (x instanceof UnsupportedAddressTypeException) {
            message = "Unsupported address type";
        } else if (x instanceof UnresolvedAddressException) {
            message = "Unresolved address";
        } else if (x instanceof IOException) {
            message = x.getMessage();
        } else {
            return null;
        }
        SocketException se = new SocketException(message);
        se.initCause(x);
        return se;
    }

    /**
     * For an operation declared to throw IOException, whose checked exceptions pass unchanged:
     * the SocketException for an unchecked state exception, or {@code x} itself thrown.
     */
    static SocketException translated(RuntimeException x) {
        SocketException se = socketException(x);
        if (se == null) {
            throw x;
        }
        return se;
    }

    /** Reads with the socket's current SO_TIMEOUT; closing it closes the socket. */
    private final class Input extends InputStream {

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            int n = read(one, 0, 1);
            return (n > 0) ? (one[0] & 0xff) : -1;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            return channel.blockingRead(b, off, len, MILLISECONDS.toNanos(timeout));
        }

        @Override
        public int available() throws IOException {
            return channel.available();
        }

        @Override
        public void close() throws IOException {
            channel.close();
        }
    }

    /** Writes all it is given before returning; closing it closes the socket. */
    private final class Output extends OutputStream {

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            channel.blockingWriteFully(b, off, len);
        }

        @Override
        public void close() throws IOException {
            channel.close();
        }
    }
}
