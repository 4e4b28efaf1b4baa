/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.internal;

import io.github.nativeselector.internal.lean.LeanChannel;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.channels.CancelledKeyException;
import java.nio.channels.SelectableChannel;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.channels.spi.AbstractSelectionKey;

/**
 * A channel's registration with a {@link NativeSelector}.
 *
 * <p>Fields by owner: the interest set is set atomically by any thread; {@code readyOps},
 * {@code selectedIndex} and {@code connected} (first set by the registering thread, before the
 * key is shared) belong to the thread holding the selector's lock; {@code queued},
 * {@code heldOut} and {@code registeredEvents} are guarded by the {@link ChangeQueue}, and so
 * are {@code slot} and {@code generation}, which the {@link KeyTable} sets before the key's
 * first change is sent.
 */
public final class NativeSelectionKey extends AbstractSelectionKey implements LeanChannel.Registration {

    private static final VarHandle INTEREST_OPS;

    static {
        try {
            INTEREST_OPS = MethodHandles.lookup().findVarHandle(NativeSelectionKey.class, "interestOps", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final NativeSelector selector;
    private final SelectableChannel channel;
    final int fd;
    final ChannelKind kind;
    /** The key's slot in the {@link KeyTable}, or -1 while it has none. */
    int slot = -1;
    int generation;
    private volatile int interestOps;
    int readyOps;
    int selectedIndex = -1;
    /**
     * Whether the socket channel was connected at registration or a select found it so. A socket
     * channel stays connected until it is closed, which cancels the key, so later selects need
     * not look at the channel, which would most often cost them a cache miss; an accepted
     * channel, registered while the registering thread has it in the cache, costs none.
     */
    private boolean connected;
    boolean queued;
    /**
     * The events the kernel holds for the key, {@link ChangeBatch#PARKED} or
     * {@link ChangeBatch#UNKNOWN_EVENTS}.
     */
    int registeredEvents;
    /** Set when the key's lean channel, closing, took it out of the kernel: no change may put it back. */
    boolean heldOut;

    NativeSelectionKey(NativeSelector selector, SelectableChannel channel, int fd) {
        this.selector = selector;
        this.channel = channel;
        this.fd = fd;
        this.kind = ChannelKind.of(channel);
        this.connected = kind == ChannelKind.SOCKET && ((SocketChannel) channel).isConnected();
    }

    @Override
    public SelectableChannel channel() {
        return channel;
    }

    @Override
    public Selector selector() {
        return selector;
    }

    @Override
    public int interestOps() {
        ensureValid();
        return interestOps;
    }

    @Override
    public java.nio.channels.SelectionKey interestOps(int ops) {
        ensureValid();
        checkValidOps(ops);
        int old = (int) INTEREST_OPS.getAndSet(this, ops);
        if (old != ops) {
            selector.interestChanged(this);
        }
        return this;
    }

    @Override
    public int interestOpsOr(int ops) {
        ensureValid();
        checkValidOps(ops);
        int old = (int) INTEREST_OPS.getAndBitwiseOr(this, ops);
        if ((old | ops) != old) {
            selector.interestChanged(this);
        }
        return old;
    }

    @Override
    public int interestOpsAnd(int ops) {
        ensureValid();
        int old = (int) INTEREST_OPS.getAndBitwiseAnd(this, ops);
        if ((old & ops) != old) {
            selector.interestChanged(this);
        }
        return old;
    }

    @Override
    public int readyOps() {
        ensureValid();
        return readyOps;
    }

    /**
     * As the JDK's keys print themselves: the channel, the selector, and the interest and ready
     * sets, or {@code invalid}. Read from any thread, the sets may be a moment old, as the JDK's.
     */
    @Override
    public String toString() {
        String sets = isValid() ? "interestOps=" + interestOps + ", readyOps=" + readyOps : "invalid";
        return "channel=" + channel + ", selector=" + selector + ", " + sets;
    }

    /**
     * The descriptor's number. A key equals only itself, as Object's equals says; the selector's
     * key sets hash every new key, and its first identity hash would cost more (it is made up and
     * written into the object's header).
     */
    @Override
    public int hashCode() {
        return fd;
    }

    @Override
    public boolean leaveKernelNow() {
        return selector.leaveKernelNow(this);
    }

    long token() {
        return KeyTable.token(slot, generation);
    }

    /**
     * How many ready keys are touched ({@link #touchForProgram}) at a time, ahead of the program:
     * few enough that the kernel's work for serving them does not evict the lines touched first
     * before the program gets to them, as a select's thousand ready keys would.
     */
    static final int TOUCHED_AT_A_TIME = 64;

    /**
     * Reads the words of the channel and of the attachment that a program serving the key reads
     * first, so that they are in the CPU's caches when it does: a lean channel's descriptor, which
     * shares its lines with the channel's I/O locks, and the attachment's class. The selected-key
     * set's iterator and {@code select(Consumer)} call this for the next ready keys in a short loop,
     * where the cache misses of one key and the next overlap; the program reaches the same objects
     * one after another, through locked instructions and system calls, and would wait for each miss
     * in turn. Returns a value made of what it read, for the caller to keep.
     */
    int touchForProgram() {
        int read = channel instanceof LeanChannel lean ? lean.fdVal() : 0;
        Object attachment = attachment();
        return attachment != null && attachment.getClass() == Object.class ? read + 1 : read;
    }

    /** For a socket channel's key, holding the selector's lock: whether the channel is connected. */
    boolean channelConnected() {
        if (!connected) {
            connected = ((SocketChannel) channel).isConnected();
        }
        return connected;
    }

    /** The interest set as kernel events, for the change queue. */
    int interestEvents() {
        return kind.interestEvents(interestOps);
    }

    /** Whether the kernel holds no registration for this key (read under, or after, the change queue's lock). */
    boolean isOutOfKernel() {
        return registeredEvents == 0;
    }

    /** The interest set without the validity check, for the selector's translation. */
    int currentInterestOps() {
        return interestOps;
    }

    private void ensureValid() {
        if (!isValid()) {
            throw new CancelledKeyException();
        }
    }

    private void checkValidOps(int ops) {
        if ((ops & ~channel.validOps()) != 0) {
            throw new IllegalArgumentException("invalid interest set " + ops + " for " + channel);
        }
    }
}
