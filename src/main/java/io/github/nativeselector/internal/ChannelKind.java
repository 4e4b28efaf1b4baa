/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.internal;

import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;

/**
 * How each kind of JDK channel turns interest into kernel events and kernel events into ready
 * operations, as the JDK's own channels do it ({@code translateInterestOps} and
 * {@code translateReadyOps} in {@code sun.nio.ch}). Error and hang-up make every interested
 * operation ready, so the program finds out by trying it; an invalid fd makes nothing ready.
 */
enum ChannelKind {
    SOCKET {
        @Override
        int interestEvents(int ops) {
            return ((ops & SelectionKey.OP_READ) != 0 ? Events.IN : 0)
                    | ((ops & (SelectionKey.OP_WRITE | SelectionKey.OP_CONNECT)) != 0 ? Events.OUT : 0);
        }

        @Override
        int readyOps(int events, int interestOps, NativeSelectionKey key) {
            int ops = 0;
            if ((events & Events.IN) != 0 && (interestOps & SelectionKey.OP_READ) != 0 && key.channelConnected()) {
                ops |= SelectionKey.OP_READ;
            }
            if ((events & Events.OUT) != 0) {
                if ((interestOps & SelectionKey.OP_CONNECT) != 0
                        && ((SocketChannel) key.channel()).isConnectionPending()) {
                    ops |= SelectionKey.OP_CONNECT;
                }
                if ((interestOps & SelectionKey.OP_WRITE) != 0 && key.channelConnected()) {
                    ops |= SelectionKey.OP_WRITE;
                }
            }
            return ops;
        }
    },
    /** Server sockets, datagram sockets, pipes, and any other JDK channel: IN is read or accept, OUT is write or connect. */
    OTHER {
        @Override
        int interestEvents(int ops) {
            return ((ops & (SelectionKey.OP_READ | SelectionKey.OP_ACCEPT)) != 0 ? Events.IN : 0)
                    | ((ops & (SelectionKey.OP_WRITE | SelectionKey.OP_CONNECT)) != 0 ? Events.OUT : 0);
        }

        @Override
        int readyOps(int events, int interestOps, NativeSelectionKey key) {
            int ops = 0;
            if ((events & Events.IN) != 0) {
                ops |= interestOps & (SelectionKey.OP_READ | SelectionKey.OP_ACCEPT);
            }
            if ((events & Events.OUT) != 0) {
                ops |= interestOps & (SelectionKey.OP_WRITE | SelectionKey.OP_CONNECT);
            }
            return ops;
        }
    };

    /** Kernel events to watch for the given interest set. */
    abstract int interestEvents(int ops);

    /** Ready operations for events that are neither error, hang-up nor invalid. */
    abstract int readyOps(int events, int interestOps, NativeSelectionKey key);

    /**
     * The ready set the events make, OR'ed into {@code initialOps}, or -1 when the events carry
     * nothing to report (invalid fd).
     */
    final int translate(int events, int interestOps, int initialOps, NativeSelectionKey key) {
        if ((events & Events.NVAL) != 0) {
            return -1;
        }
        if ((events & (Events.ERR | Events.HUP)) != 0) {
            return interestOps;
        }
        return initialOps | readyOps(events, interestOps, key);
    }

    static ChannelKind of(SelectableChannel channel) {
        return channel instanceof SocketChannel ? SOCKET : OTHER;
    }
}
