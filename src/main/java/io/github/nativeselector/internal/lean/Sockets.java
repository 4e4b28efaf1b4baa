/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.internal.lean;

import java.io.IOException;

/**
 * The system calls of the lean socket channels, one native each ({@code src/main/native/linux/lean_sockets.h}
 * tells the whole story; {@code lean_sockets_jni.c} registers these natives on Linux only).
 *
 * <p>Every descriptor here is non-blocking in the kernel for its whole life, so no call but
 * {@link #poll} and {@link #pollerWait} waits: an operation that cannot go on at once returns
 * {@link #UNAVAILABLE}, and blocking mode is the caller's, which waits for readiness and calls again.
 * Errors are thrown as the JDK's socket channels throw them, worded by {@code strerror} (e.g.
 * {@code ConnectException: Connection refused}); arguments no call can take (a negative fd, a null
 * array, a range outside it, an address of neither 4 nor 16 bytes) throw {@link IllegalArgumentException}
 * or {@link NullPointerException}.
 *
 * <p>The option levels and names, {@link #IOVEC_SIZE}, {@link #IOV_MAX}, the {@code SHUT_*} and the
 * {@code POLL*} values are Linux's, passed to the kernel as they are; the library's values are
 * compared with these when it loads ({@code SharedConstants}).
 *
 * <p>Stateless.
 */
public final class Sockets {

    /** A read's end of stream. */
    public static final int EOF = -1;
    /** Nothing to do at once: EAGAIN; a connect in progress; no connection waiting for accept. */
    public static final int UNAVAILABLE = -2;
    /** EINTR, or a connection aborted before accept took it: the caller calls again. */
    public static final int INTERRUPTED = -3;

    public static final int SHUT_RD = 0;
    public static final int SHUT_WR = 1;
    public static final int SHUT_RDWR = 2;

    public static final int POLLIN = 0x001;
    public static final int POLLOUT = 0x004;
    public static final int POLLERR = 0x008;
    public static final int POLLHUP = 0x010;
    public static final int POLLNVAL = 0x020;

    /**
     * The bytes of an address as {@link #localAddress} and {@link #accept} give it, big-endian:
     * the address in 16 (an IPv4 address in the first 4), the port in 2, the family (4 or 6) in 1,
     * a zero, the IPv6 scope id in 4. An IPv4-mapped address is family 4.
     */
    public static final int ADDRESS_BYTES = 24;

    /** {@code sizeof(struct iovec)}: its base at offset 0, its length at 8. */
    public static final int IOVEC_SIZE = 16;
    /** The most {@code struct iovec} one {@link #readv} or {@link #writev} takes. */
    public static final int IOV_MAX = 1024;

    public static final int SOL_SOCKET = 1;
    public static final int SO_REUSEADDR = 2;
    public static final int SO_SNDBUF = 7;
    public static final int SO_RCVBUF = 8;
    public static final int SO_KEEPALIVE = 9;
    public static final int SO_OOBINLINE = 10;
    public static final int SO_LINGER = 13;
    public static final int SO_REUSEPORT = 15;
    public static final int SO_INCOMING_NAPI_ID = 56;

    public static final int IPPROTO_IP = 0;
    public static final int IP_TOS = 1;

    public static final int IPPROTO_TCP = 6;
    public static final int TCP_NODELAY = 1;
    public static final int TCP_KEEPIDLE = 4;
    public static final int TCP_KEEPINTVL = 5;
    public static final int TCP_KEEPCNT = 6;
    public static final int TCP_QUICKACK = 12;

    public static final int IPPROTO_IPV6 = 41;
    public static final int IPV6_TCLASS = 67;

    private Sockets() {
    }

    /** A new stream socket, non-blocking and close-on-exec; an INET6 one takes IPv4 too (IPV6_V6ONLY 0). */
    static native int socket(boolean inet6) throws IOException;

    /**
     * Binds to {@code address} (4 or 16 bytes) and {@code port}. Four bytes on an INET6 socket mean
     * {@code ::ffff:a.b.c.d}; an IPv6 address on an INET socket must be IPv4-mapped.
     *
     * @throws java.net.BindException for EADDRINUSE, EADDRNOTAVAIL and EACCES
     */
    static native void bind(int fd, boolean inet6Socket, byte[] address, int port, int scopeId) throws IOException;

    static native void listen(int fd, int backlog) throws IOException;

    /**
     * A new non-blocking, close-on-exec fd, its peer's address into {@code peer} (as
     * {@link #ADDRESS_BYTES} says); or {@link #UNAVAILABLE} or {@link #INTERRUPTED}, {@code peer}
     * left alone.
     */
    static native int accept(int fd, byte[] peer) throws IOException;

    /**
     * Connects as {@link #bind} takes the address: 1 when connected at once, {@link #UNAVAILABLE}
     * while in progress (then {@link #finishConnect}), or {@link #INTERRUPTED}.
     *
     * @throws java.net.ConnectException for ECONNREFUSED and ETIMEDOUT
     * @throws java.net.NoRouteToHostException for EHOSTUNREACH
     * @throws java.net.ProtocolException for EPROTO
     */
    static native int connect(int fd, boolean inet6Socket, byte[] address, int port, int scopeId) throws IOException;

    /**
     * 1 when the connect in progress has succeeded, {@link #UNAVAILABLE} while pending; its failure
     * is thrown as {@link #connect}'s.
     */
    static native int finishConnect(int fd) throws IOException;

    /** The socket's own address into {@code address}, as {@link #ADDRESS_BYTES} says. */
    static native void localAddress(int fd, byte[] address) throws IOException;

    /**
     * Reads into {@code [address, address + length)} of a direct buffer's memory, the buffer kept
     * reachable by the caller: a count > 0, {@link #EOF} or {@link #UNAVAILABLE}; 0 only for length
     * 0. A signal does not end it: C calls again.
     */
    static native int readAt(int fd, long address, int length) throws IOException;

    /** {@link #readAt} into {@code array[offset, offset + length)}. */
    static native int readArray(int fd, byte[] array, int offset, int length) throws IOException;

    /**
     * Writes from {@code [address, address + length)} of a direct buffer's memory (send with
     * MSG_NOSIGNAL): a count or {@link #UNAVAILABLE}, as {@link #readAt} after a signal.
     *
     * @throws IOException in the system's words, as the JDK's channels throw it: "Connection reset
     *     by peer" for ECONNRESET (where a read throws SocketException "Connection reset"), "Broken
     *     pipe" for EPIPE
     */
    static native int writeAt(int fd, long address, int length) throws IOException;

    /** {@link #writeAt} from {@code array[offset, offset + length)}. */
    static native int writeArray(int fd, byte[] array, int offset, int length) throws IOException;

    /**
     * Reads into {@code count} (0 to {@link #IOV_MAX}) off-heap {@code struct iovec}: as
     * {@link #readAt}, 0 only for count 0.
     */
    static native long readv(int fd, long iovecs, int count) throws IOException;

    /** Writes from {@code count} off-heap {@code struct iovec} (sendmsg with MSG_NOSIGNAL), as {@link #writeAt}. */
    static native long writev(int fd, long iovecs, int count) throws IOException;

    /**
     * {@code how}: {@link #SHUT_RD}, {@link #SHUT_WR} or {@link #SHUT_RDWR}; a socket never
     * connected is not an error.
     */
    static native void shutdown(int fd, int how) throws IOException;

    /** Closes the fd; EINTR is not an error (Linux has closed it). */
    static native void close(int fd) throws IOException;

    /**
     * Waits up to {@code timeoutMillis} (-1: for ever) for {@code events}: the revents, 0 on
     * timeout, or {@link #INTERRUPTED}.
     */
    static native int poll(int fd, int events, int timeoutMillis) throws IOException;

    /** The bytes ready to read (FIONREAD). */
    static native int available(int fd) throws IOException;

    /**
     * Sends the low byte of {@code data} as urgent data (MSG_OOB): 1, or {@link #UNAVAILABLE} when
     * the send buffer is full.
     */
    static native int sendUrgentData(int fd, int data) throws IOException;

    static native void setIntOption(int fd, int level, int name, int value) throws IOException;

    static native int getIntOption(int fd, int level, int name) throws IOException;

    /** SO_LINGER: on for {@code seconds}, off when negative. */
    static native void setLinger(int fd, int seconds) throws IOException;

    /** SO_LINGER's seconds, or -1 when off. */
    static native int getLinger(int fd) throws IOException;

    /** A new epoll for {@link #pollerArm} and {@link #pollerWait}. */
    static native int pollerCreate() throws IOException;

    /**
     * Watches {@code fd} for {@code events} ({@link #POLLIN}, {@link #POLLOUT}) until reported once
     * (EPOLLONESHOT), then no more until armed again.
     */
    static native void pollerArm(int epfd, int fd, int events) throws IOException;

    /**
     * Waits up to {@code timeoutMillis} (-1: for ever) for armed fds to be ready: their number (at
     * most 256, and at most {@code readyFds.length}), copied into {@code readyFds}, or {@link #INTERRUPTED}.
     */
    static native int pollerWait(int epfd, int[] readyFds, int timeoutMillis) throws IOException;
}
