/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.internal.lean;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.SocketOption;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectableChannel;
import java.util.Arrays;
import java.util.Set;

/**
 * What {@link LeanSocketChannel} and {@link LeanServerSocketChannel} share about their socket:
 * its options, its local address once known, binding, the check that the channel is open, and
 * the selectors' registrations, which a close takes out of the kernel.
 * The two extend different JDK classes, so each holds one of these rather than inherit it.
 *
 * <p>Locking: the owner's stateLock, given here, guards {@code options} and {@code localAddress}.
 * setOption and getOption take it; every other method is called holding it, but for those of
 * the registrations, whose changes this object's monitor serialises (a leaf: held for a copy of
 * the array).
 */
final class SocketDescriptor {

    private static final LeanChannel.Registration[] NONE = {};

    private final SelectableChannel owner;
    private final int fd;
    private final boolean inet6;
    private final SocketOptionTable table;
    private final ChannelLock stateLock;

    /** Created when an option is first set or read. */
    private SocketOptionTable.Values options;
    /** Null until asked of the kernel. */
    private InetSocketAddress localAddress;
    /** Replaced, never changed, under this object's monitor; read without it. */
    private volatile LeanChannel.Registration[] registrations = NONE;

    SocketDescriptor(SelectableChannel owner, int fd, boolean inet6, SocketOptionTable table, ChannelLock stateLock) {
        this.owner = owner;
        this.fd = fd;
        this.inet6 = inet6;
        this.table = table;
        this.stateLock = stateLock;
    }

    void ensureOpen() throws ClosedChannelException {
        if (!owner.isOpen()) {
            throw new ClosedChannelException();
        }
    }

    // -- Options

    <T> void setOption(SocketOption<T> name, T value) throws IOException {
        table.checkSet(name, value);
        stateLock.lock();
        try {
            ensureOpen();
            options().set(fd, inet6, name, value);
        } finally {
            stateLock.unlock();
        }
    }

    @SuppressWarnings("unchecked")
    <T> T getOption(SocketOption<T> name) throws IOException {
        table.checkGet(name);
        stateLock.lock();
        try {
            ensureOpen();
            return (T) options().get(fd, inet6, name);
        } finally {
            stateLock.unlock();
        }
    }

    Set<SocketOption<?>> supportedOptions() {
        return table.names();
    }

    /** SO_LINGER in seconds, -1 when off, as every socket starts. */
    int linger() {
        return options == null ? -1 : options.linger();
    }

    private SocketOptionTable.Values options() {
        if (options == null) {
            options = table.newValues();
        }
        return options;
    }

    // -- Registrations with selectors

    synchronized void registered(LeanChannel.Registration registration) {
        LeanChannel.Registration[] current = registrations;
        LeanChannel.Registration[] grown = Arrays.copyOf(current, current.length + 1);
        grown[current.length] = registration;
        registrations = grown;
    }

    synchronized void deregistered(LeanChannel.Registration registration) {
        LeanChannel.Registration[] current = registrations;
        int at = Arrays.asList(current).indexOf(registration);
        if (at >= 0) {
            LeanChannel.Registration[] shrunk = Arrays.copyOf(current, current.length - 1);
            System.arraycopy(current, at + 1, shrunk, at, shrunk.length - at);
            registrations = shrunk;
        }
    }

    /**
     * Closing, with no thread in an operation: takes the descriptor out of every selector's kernel
     * set now (cancelled keys too, which may still be there), so that the owner can close it now
     * rather than when the last selector deregisters it. Called not holding stateLock, since
     * a selector's change queue is taken here.
     *
     * @return whether no selector's kernel set has the descriptor any more
     */
    boolean leaveKernelsNow() {
        // isRegistered waits for a registration under way, which has then reached registered();
        // one that follows finds the channel closed.
        if (!owner.isRegistered()) {
            return true;
        }
        boolean out = true;
        for (LeanChannel.Registration registration : registrations) {
            out &= registration.leaveKernelNow();
        }
        return out;
    }

    // -- Binding and the local address

    /** Binds to {@code local}, or to the wildcard address of the socket's family when null. */
    void bind(SocketAddress local) throws IOException {
        InetSocketAddress address = local == null ? SocketAddresses.wildcard(inet6)
                : SocketAddresses.check(local, inet6);
        SocketAddresses.bind(fd, inet6, address);
    }

    /** With the descriptor open: the local address once {@code bound}, asked of the kernel once. */
    InetSocketAddress localAddress(boolean bound) throws IOException {
        if (localAddress == null && bound) {
            localAddress = SocketAddresses.local(fd);
        }
        return localAddress;
    }

    /**
     * For the adaptor: the local address, or null when unbound, closed before it was known, or no
     * longer known.
     */
    InetSocketAddress localAddressOrNull(boolean closed, boolean bound) {
        try {
            return closed ? localAddress : localAddress(bound);
        } catch (IOException e) {
            return null;
        }
    }

    /**
     * Closing, for the adaptor, which reports the address of a socket bound before it was closed:
     * the address asked of the kernel while it still has it.
     */
    void keepLocalAddress(boolean bound) {
        localAddressOrNull(false, bound);
    }

    /** Bound to a wildcard address before, the socket now has a definite one, asked for when wanted. */
    void forgetLocalAddress() {
        localAddress = null;
    }
}
