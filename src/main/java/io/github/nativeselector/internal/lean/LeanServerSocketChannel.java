/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.internal.lean;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.SocketAddress;
import java.net.SocketOption;
import java.nio.channels.AlreadyBoundException;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.IllegalBlockingModeException;
import java.nio.channels.NotYetBoundException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.spi.SelectorProvider;
import java.util.Set;

/**
 * A listening TCP {@link ServerSocketChannel} on a descriptor of its own, with the contract of
 * the JDK's {@code sun.nio.ch.ServerSocketChannelImpl} on Linux. Accepting costs one accept4,
 * which gives the peer's address and makes the new descriptor non-blocking; the new
 * {@link LeanSocketChannel} is in blocking mode, as the JDK's are, and learns its own address when
 * first asked.
 *
 * <p>As for {@link LeanSocketChannel}, the descriptor stays non-blocking in the kernel and a
 * blocking accept waits for readiness; a close wakes a waiting thread by shutting the socket down
 * (a platform thread's poll(2) returns) or through the poller (a parked virtual thread), and a
 * close with no thread accepting takes the descriptor out of the selectors' kernel sets and
 * closes it at once, so the port is free then, not after the selectors' next selects.
 *
 * <p>Locking: {@code acceptLock} is held by an accepting thread and by configureBlocking;
 * {@code stateLock} is taken after it when needed, guards the fields below it and every change
 * of {@code state}, and is never held while waiting. {@code state} is volatile so that a
 * non-blocking accept checks it without locking; its BLOCKING flag changes holding acceptLock
 * too, so that it holds still for an accepting thread. In blocking mode the close waits for no
 * acceptLock, as the JDK's does not: an interrupt closes the channel on the interrupting thread,
 * holding the channel's close lock (and, on JDK 17 and 21, the interrupted thread's interrupt
 * lock), which the interrupted thread, holding acceptLock, may be about to take as it begins or
 * ends an accept; a thread uses the descriptor there only while it is the accepting thread.
 */
final class LeanServerSocketChannel extends ServerSocketChannel implements LeanChannel {

    /** Phases of {@code state}, in the order they come. */
    private static final int IN_USE = 0;
    private static final int CLOSING = 1;
    private static final int CLOSED = 2;
    private static final int PHASE = 0x3;
    /** Flag of {@code state}: bound and listening. */
    private static final int BOUND = 0x4;
    /** Flag of {@code state}: in blocking mode. */
    private static final int BLOCKING = 0x8;

    /** What listen gets for a backlog below 1, as in the JDK. */
    private static final int DEFAULT_BACKLOG = 50;

    private final int fd;
    private final boolean inet6;
    private final SocketDescriptor descriptor;

    private final ChannelLock acceptLock = new ChannelLock();
    private final ChannelLock stateLock = new ChannelLock();

    /** Guarded by acceptLock: the address of the peer of the connection accepted last. */
    private final byte[] peer = new byte[Sockets.ADDRESS_BYTES];

    /** A phase and flags; changed under stateLock. */
    private volatile int state;

    // -- Guarded by stateLock

    /** The thread in a blocking accept, which a close must wake and which then closes the descriptor. */
    private Thread acceptThread;
    private ServerSocket socket;

    LeanServerSocketChannel(SelectorProvider provider, boolean inet6) throws IOException {
        super(provider);
        this.inet6 = inet6;
        int fd = Sockets.socket(inet6);
        try {
            // As the JDK's server sockets: a restarted server can bind its port again at once,
            // whatever connections of its last run are still in TIME_WAIT.
            Sockets.setIntOption(fd, Sockets.SOL_SOCKET, Sockets.SO_REUSEADDR, 1);
        } catch (IOException | RuntimeException e) {
            closeAfterFailure(fd, e);
            throw e;
        }
        this.fd = fd;
        this.descriptor = new SocketDescriptor(this, fd, inet6, SocketOptionTable.SERVER_SOCKET, stateLock);
        this.state = BLOCKING;
    }

    @Override
    public int fdVal() {
        return fd;
    }

    // -- Binding and accepting

    @Override
    public ServerSocketChannel bind(SocketAddress local, int backlog) throws IOException {
        stateLock.lock();
        try {
            descriptor.ensureOpen();
            int s = state;
            if ((s & BOUND) != 0) {
                throw new AlreadyBoundException();
            }
            descriptor.bind(local);
            Sockets.listen(fd, backlog < 1 ? DEFAULT_BACKLOG : backlog);
            state = s | BOUND;
        } finally {
            stateLock.unlock();
        }
        return this;
    }

    @Override
    public SocketChannel accept() throws IOException {
        acceptLock.lock();
        try {
            int s = state;
            int accepted;
            if ((s & (PHASE | BOUND | BLOCKING)) == (IN_USE | BOUND)) {
                accepted = acceptOnce();
            } else {
                descriptor.ensureOpen();
                if ((s & BLOCKING) == 0) {
                    // Open and non-blocking, yet off the fast path: not bound.
                    throw new NotYetBoundException();
                }
                accepted = blockingAccept0(0);
            }
            return accepted >= 0 ? accepted(accepted) : null;
        } finally {
            acceptLock.unlock();
        }
    }

    /**
     * Accepts in blocking mode, waiting at most {@code nanos} when more than 0
     * (SocketTimeoutException, the channel left open). For {@link LeanServerSocket}.
     */
    SocketChannel blockingAccept(long nanos) throws IOException {
        acceptLock.lock();
        try {
            if ((state & BLOCKING) == 0) {
                throw new IllegalBlockingModeException();
            }
            return accepted(blockingAccept0(nanos));
        } finally {
            acceptLock.unlock();
        }
    }

    /** The caller holds acceptLock: the new descriptor. */
    private int blockingAccept0(long nanos) throws IOException {
        int accepted = Sockets.UNAVAILABLE;
        try {
            beginAccept();
            long start = nanos > 0 ? System.nanoTime() : 0;
            accepted = acceptOnce();
            while (accepted == Sockets.UNAVAILABLE && isOpen()) {
                ReadinessWait.await(fd, Sockets.POLLIN, nanos, start, "Accept timed out");
                accepted = acceptOnce();
            }
        } finally {
            endAccept(accepted);
        }
        return accepted;
    }

    /** One accept4: a descriptor, its peer in {@code peer}; or UNAVAILABLE when no connection waits. */
    private int acceptOnce() throws IOException {
        int accepted;
        do {
            accepted = Sockets.accept(fd, peer);
        } while (accepted == Sockets.INTERRUPTED);
        return accepted;
    }

    /** The caller holds acceptLock: a channel for the descriptor acceptOnce gave last. */
    private SocketChannel accepted(int accepted) {
        try {
            return new LeanSocketChannel(provider(), inet6, accepted, SocketAddresses.decode(peer));
        } catch (RuntimeException | Error e) {
            closeAfterFailure(accepted, e);
            throw e;
        }
    }

    private void beginAccept() throws ClosedChannelException {
        begin();
        stateLock.lock();
        try {
            descriptor.ensureOpen();
            if ((state & BOUND) == 0) {
                throw new NotYetBoundException();
            }
            acceptThread = Thread.currentThread();
        } finally {
            stateLock.unlock();
        }
    }

    /** Ends a blocking accept; a connection accepted by a thread that then fails (an interrupt) is closed. */
    private void endAccept(int accepted) throws AsynchronousCloseException {
        stateLock.lock();
        try {
            acceptThread = null;
            if ((state & PHASE) == CLOSING) {
                tryFinishClose();
            }
        } finally {
            stateLock.unlock();
        }
        try {
            end(accepted >= 0);
        } catch (AsynchronousCloseException e) {
            if (accepted >= 0) {
                closeAfterFailure(accepted, e);
            }
            throw e;
        }
    }

    // -- Addresses and options

    @Override
    public SocketAddress getLocalAddress() throws IOException {
        stateLock.lock();
        try {
            descriptor.ensureOpen();
            return knownLocalAddress();
        } finally {
            stateLock.unlock();
        }
    }

    /**
     * The local address, or null when unbound, closed before it was known, or no longer known.
     * For the adaptor.
     */
    InetSocketAddress localAddress() {
        stateLock.lock();
        try {
            int s = state;
            return descriptor.localAddressOrNull((s & PHASE) == CLOSED, (s & BOUND) != 0);
        } finally {
            stateLock.unlock();
        }
    }

    /** Holding stateLock, with the descriptor open: the local address, asked of the kernel once. */
    private InetSocketAddress knownLocalAddress() throws IOException {
        return descriptor.localAddress((state & BOUND) != 0);
    }

    @Override
    public <T> ServerSocketChannel setOption(SocketOption<T> name, T value) throws IOException {
        descriptor.setOption(name, value);
        return this;
    }

    @Override
    public <T> T getOption(SocketOption<T> name) throws IOException {
        return descriptor.getOption(name);
    }

    @Override
    public Set<SocketOption<?>> supportedOptions() {
        return descriptor.supportedOptions();
    }

    // -- Blocking mode, adaptor, close

    @Override
    protected void implConfigureBlocking(boolean block) throws IOException {
        acceptLock.lock();
        try {
            descriptor.ensureOpen();
            stateLock.lock();
            try {
                state = block ? state | BLOCKING : state & ~BLOCKING;
            } finally {
                stateLock.unlock();
            }
        } finally {
            acceptLock.unlock();
        }
    }

    @Override
    public ServerSocket socket() {
        stateLock.lock();
        try {
            if (socket == null) {
                socket = new LeanServerSocket(this);
            }
            return socket;
        } finally {
            stateLock.unlock();
        }
    }

    @Override
    protected void implCloseSelectableChannel() throws IOException {
        boolean threadWaiting;
        boolean blocking;
        stateLock.lock();
        try {
            blocking = (state & BLOCKING) != 0;
            // Kept whether or not the adaptor exists yet: it may be asked for after the close,
            // and closing a listening socket is rare enough to pay a getsockname for it.
            descriptor.keepLocalAddress((state & BOUND) != 0);
            state = (state & ~PHASE) | CLOSING;
            threadWaiting = acceptThread != null;
            if (threadWaiting) {
                // The shutdown stops the listening, which makes the socket ready for the
                // accepting thread: it ends a platform thread's poll(2) and fires a virtual
                // thread's registration with the poller, whose thread unparks it holding no lock.
                Sockets.shutdown(fd, Sockets.SHUT_RDWR);
            }
        } finally {
            stateLock.unlock();
        }
        if (!threadWaiting && !blocking) {
            // A thread in a non-blocking accept, or about to find the channel closed, leaves soon.
            acceptLock.lock();
            acceptLock.unlock();
        }
        boolean outOfKernels = !threadWaiting && descriptor.leaveKernelsNow();
        stateLock.lock();
        try {
            if ((state & PHASE) == CLOSING) {
                tryClose(outOfKernels);
            }
        } finally {
            stateLock.unlock();
        }
    }

    @Override
    public void registered(Registration registration) {
        descriptor.registered(registration);
    }

    @Override
    public void deregistered(Registration registration) {
        descriptor.deregistered(registration);
    }

    @Override
    public void kill() {
        if ((state & PHASE) != CLOSING) {
            // The close has not begun, or has ended: the closing thread closes the descriptor.
            return;
        }
        // A thread that takes the accept lock from now on finds the channel closing; a thread
        // still accepting holds it, and may close the descriptor itself.
        acceptLock.lock();
        acceptLock.unlock();
        stateLock.lock();
        try {
            if ((state & PHASE) == CLOSING) {
                tryFinishClose();
            }
        } finally {
            stateLock.unlock();
        }
    }

    /**
     * Holding stateLock, closing: closes the descriptor unless a thread or a selector still has
     * it; with {@code outOfKernels}, the selectors that still have the channel registered no longer
     * have the descriptor.
     */
    private boolean tryClose(boolean outOfKernels) throws IOException {
        if (acceptThread == null && (outOfKernels || !isRegistered())) {
            state = (state & ~PHASE) | CLOSED;
            Sockets.close(fd);
            return true;
        }
        return false;
    }

    /** tryClose for a deferred close, which has nobody to report a failure to, as in the JDK. */
    private void tryFinishClose() {
        try {
            tryClose(false);
        } catch (IOException e) {
            // The descriptor is released all the same: close(2) on Linux frees it whatever it returns.
        }
    }

    /** Closes a descriptor that will not be handed out, keeping {@code failure} as what is reported. */
    private static void closeAfterFailure(int fd, Throwable failure) {
        try {
            Sockets.close(fd);
        } catch (IOException e) {
            failure.addSuppressed(e);
        }
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder(getClass().getName()).append('[');
        // Open under stateLock, the descriptor stays open until the lock is let go.
        stateLock.lock();
        try {
            if (!isOpen()) {
                sb.append("closed");
            } else {
                InetSocketAddress local = (state & BOUND) == 0 ? null : knownLocalAddress();
                sb.append(local == null ? "unbound" : local.toString());
            }
        } catch (IOException e) {
            sb.append("unbound");
        } finally {
            stateLock.unlock();
        }
        return sb.append(']').toString();
    }
}
