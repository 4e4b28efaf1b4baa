/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import io.github.nativeselector.internal.BuiltInProvider;
import java.io.IOException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.channels.NetworkChannel;
import java.nio.channels.Pipe;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.channels.spi.SelectorProvider;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Channel fixtures for the selector contract tests. Every channel is one of the JDK's own,
 * opened with the normal static factories; network channels use loopback only, UNIX-domain
 * sockets live in a fresh temporary directory. Each fixture closes everything it opened.
 */
public final class ContractChannels {

    private ContractChannels() {
    }

    /** The two kinds of stream socket. */
    public enum SocketKind {
        INET, UNIX
    }

    /** A bound, listening server socket (blocking, so that {@code accept()} waits). */
    public static final class Listener implements AutoCloseable {
        public final SocketKind kind;
        public final ServerSocketChannel channel;
        public final SocketAddress address;
        private final SelectorProvider provider;
        private final Path dir;

        private Listener(SocketKind kind, ServerSocketChannel channel, SocketAddress address,
                SelectorProvider provider, Path dir) {
            this.kind = kind;
            this.channel = channel;
            this.address = address;
            this.provider = provider;
            this.dir = dir;
        }

        public static Listener open(SocketKind kind) throws IOException {
            return open(kind, SelectorProvider.provider());
        }

        /** A listener whose INET channels (its own and {@link #newSocket}'s) {@code provider} opens. */
        public static Listener open(SocketKind kind, SelectorProvider provider) throws IOException {
            if (kind == SocketKind.INET) {
                ServerSocketChannel ch = provider.openServerSocketChannel();
                try {
                    ch.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
                    return new Listener(kind, ch, ch.getLocalAddress(), provider, null);
                } catch (IOException | RuntimeException e) {
                    ch.close();
                    throw e;
                }
            }
            Path dir = Files.createTempDirectory("ns-contract");
            ServerSocketChannel ch = null;
            try {
                ch = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
                UnixDomainSocketAddress address = UnixDomainSocketAddress.of(dir.resolve("s"));
                ch.bind(address);
                return new Listener(kind, ch, address, provider, dir);
            } catch (IOException | RuntimeException e) {
                if (ch != null) {
                    ch.close();
                }
                deleteQuietly(dir);
                throw e;
            }
        }

        /** A new, unconnected socket of this listener's family (blocking). */
        public SocketChannel newSocket() throws IOException {
            return kind == SocketKind.INET ? provider.openSocketChannel() : SocketChannel.open(StandardProtocolFamily.UNIX);
        }

        /** A socket connected to this listener in blocking mode (the connection stays in the backlog). */
        public SocketChannel connectBlocking() throws IOException {
            SocketChannel ch = newSocket();
            try {
                ch.connect(address);
                return ch;
            } catch (IOException | RuntimeException e) {
                ch.close();
                throw e;
            }
        }

        @Override
        public void close() throws IOException {
            try {
                channel.close();
            } finally {
                deleteQuietly(dir);
            }
        }
    }

    /**
     * A connected stream-socket pair: {@code local} is non-blocking (the end registered with the
     * selector under test), {@code peer} is blocking (the other end, driven by the test).
     */
    public static final class SocketPair implements AutoCloseable {
        public final Listener listener;
        public final SocketChannel local;
        public final SocketChannel peer;

        private SocketPair(Listener listener, SocketChannel local, SocketChannel peer) {
            this.listener = listener;
            this.local = local;
            this.peer = peer;
        }

        public static SocketPair open(SocketKind kind) throws IOException {
            return open(kind, SelectorProvider.provider());
        }

        /** A pair whose INET channels {@code provider} opens. */
        public static SocketPair open(SocketKind kind, SelectorProvider provider) throws IOException {
            Listener listener = Listener.open(kind, provider);
            SocketChannel local = null;
            SocketChannel peer = null;
            try {
                local = listener.connectBlocking();
                peer = listener.channel.accept();
                local.configureBlocking(false);
                return new SocketPair(listener, local, peer);
            } catch (IOException | RuntimeException e) {
                closeQuietly(local);
                closeQuietly(peer);
                listener.close();
                throw e;
            }
        }

        @Override
        public void close() throws IOException {
            closeQuietly(local);
            closeQuietly(peer);
            listener.close();
        }
    }

    /**
     * Two datagram channels bound to loopback and connected to each other: {@code local} is
     * non-blocking, {@code peer} is blocking.
     */
    public static final class DatagramPair implements AutoCloseable {
        public final DatagramChannel local;
        public final DatagramChannel peer;

        private DatagramPair(DatagramChannel local, DatagramChannel peer) {
            this.local = local;
            this.peer = peer;
        }

        public static DatagramPair open() throws IOException {
            DatagramChannel local = null;
            DatagramChannel peer = null;
            try {
                local = DatagramChannel.open().bind(loopback(0));
                peer = DatagramChannel.open().bind(loopback(0));
                local.connect(peer.getLocalAddress());
                peer.connect(local.getLocalAddress());
                local.configureBlocking(false);
                return new DatagramPair(local, peer);
            } catch (IOException | RuntimeException e) {
                closeQuietly(local);
                closeQuietly(peer);
                throw e;
            }
        }

        @Override
        public void close() {
            closeQuietly(local);
            closeQuietly(peer);
        }
    }

    /** A pipe; both ends start blocking, the test makes the end it registers non-blocking. */
    public static final class PipePair implements AutoCloseable {
        public final Pipe.SourceChannel source;
        public final Pipe.SinkChannel sink;

        private PipePair(Pipe pipe) {
            this.source = pipe.source();
            this.sink = pipe.sink();
        }

        public static PipePair open() throws IOException {
            return new PipePair(Pipe.open());
        }

        @Override
        public void close() {
            closeQuietly(source);
            closeQuietly(sink);
        }
    }

    public static InetSocketAddress loopback(int port) {
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
    }

    /** A blocking server socket on loopback with room for 1,024 pending connections. */
    public static ServerSocketChannel openServer() throws IOException {
        ServerSocketChannel server = ServerSocketChannel.open();
        server.bind(loopback(0), 1024);
        return server;
    }

    /**
     * A loopback port nothing answers on, held by a socket of this fixture's for as long as it is
     * open: a port just released could meanwhile be bound by any socket, another test JVM's too
     * (surefire runs two), and then answer. The socket is the JDK's built-in provider's in every
     * run, so that what refuses is never a channel under test.
     */
    public static final class DeadPort implements AutoCloseable {
        public final InetSocketAddress address;
        private final NetworkChannel holder;

        private DeadPort(NetworkChannel holder) throws IOException {
            this.holder = holder;
            this.address = (InetSocketAddress) holder.getLocalAddress();
        }

        /** A TCP port on {@link InetAddress#getLoopbackAddress()} that refuses connections. */
        public static DeadPort tcp() throws IOException {
            return tcp(InetAddress.getLoopbackAddress());
        }

        /**
         * A TCP port on {@code loopback} (IPv4's or IPv6's) that refuses connections: its socket is
         * bound and never listens.
         */
        public static DeadPort tcp(InetAddress loopback) throws IOException {
            SocketChannel ch = BuiltInProvider.get().openSocketChannel(familyOf(loopback));
            try {
                ch.bind(new InetSocketAddress(loopback, 0));
                return new DeadPort(ch);
            } catch (IOException | RuntimeException e) {
                ch.close();
                throw e;
            }
        }

        /**
         * A loopback UDP port whose datagrams are answered with ICMP port unreachable: its socket
         * is connected to itself, and the kernel delivers a connected socket only its peer's
         * datagrams, so another socket's find no receiver.
         */
        public static DeadPort udp() throws IOException {
            InetAddress loopback = InetAddress.getLoopbackAddress();
            DatagramChannel ch = BuiltInProvider.get().openDatagramChannel(familyOf(loopback));
            try {
                ch.bind(new InetSocketAddress(loopback, 0));
                ch.connect(ch.getLocalAddress());
                return new DeadPort(ch);
            } catch (IOException | RuntimeException e) {
                ch.close();
                throw e;
            }
        }

        private static StandardProtocolFamily familyOf(InetAddress address) {
            return address instanceof Inet6Address ? StandardProtocolFamily.INET6 : StandardProtocolFamily.INET;
        }

        @Override
        public void close() throws IOException {
            holder.close();
        }
    }

    public static ByteBuffer bytes(int n) {
        ByteBuffer b = ByteBuffer.allocate(n);
        for (int i = 0; i < n; i++) {
            b.put((byte) i);
        }
        return b.flip();
    }

    /** Writes {@code n} bytes to a blocking channel. */
    public static void writeFully(WritableByteChannel ch, int n) throws IOException {
        ByteBuffer b = bytes(n);
        while (b.hasRemaining()) {
            ch.write(b);
        }
    }

    /**
     * Writes to a non-blocking channel until a write accepts nothing; returns the bytes written.
     */
    public static long fillUntilWriteReturnsZero(WritableByteChannel ch) throws IOException {
        ByteBuffer chunk = ByteBuffer.allocate(64 * 1024);
        long total = 0;
        while (true) {
            chunk.clear();
            int n = ch.write(chunk);
            if (n == 0) {
                return total;
            }
            total += n;
            if (total > (1L << 30)) {
                fail("a non-blocking channel accepted 1 GiB without filling up");
            }
        }
    }

    /**
     * Reads exactly {@code n} bytes (blocking or non-blocking channel); fails on end of stream or
     * when the bytes do not arrive within 10 s.
     */
    public static void readExactly(ReadableByteChannel ch, long n) throws IOException, InterruptedException {
        ByteBuffer buf = ByteBuffer.allocate(64 * 1024);
        long remaining = n;
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (remaining > 0) {
            buf.clear();
            buf.limit((int) Math.min(buf.capacity(), remaining));
            int r = ch.read(buf);
            if (r < 0) {
                fail("end of stream with " + remaining + " of " + n + " bytes still expected");
            }
            remaining -= r;
            if (r == 0) {
                if (System.nanoTime() > deadline) {
                    fail(remaining + " of " + n + " bytes did not arrive within 10 s");
                }
                Thread.sleep(1);
            }
        }
    }

    /** Receives one datagram on a connected channel and checks its size. */
    public static void readDatagram(DatagramChannel ch, int expectedSize) throws IOException {
        ByteBuffer buf = ByteBuffer.allocate(expectedSize + 16);
        int n = ch.read(buf);
        assertEquals(expectedSize, n, "datagram size");
    }

    /** A non-blocking read that must return end of stream. */
    public static void assertEndOfStream(ReadableByteChannel ch) throws IOException {
        assertEquals(-1, ch.read(ByteBuffer.allocate(16)), "read after the peer closed");
    }

    public static void assertNothingToRead(ReadableByteChannel ch) throws IOException {
        assertEquals(0, ch.read(ByteBuffer.allocate(16)), "non-blocking read with nothing to read");
    }

    public static void closeQuietly(AutoCloseable c) {
        if (c == null) {
            return;
        }
        try {
            c.close();
        } catch (Exception ignored) {
            // best effort in cleanup paths
        }
    }

    private static void deleteQuietly(Path dir) {
        if (dir == null) {
            return;
        }
        try {
            Files.deleteIfExists(dir.resolve("s"));
            Files.deleteIfExists(dir);
        } catch (IOException ignored) {
            // a leftover temp file does not affect the tests
        }
    }
}
