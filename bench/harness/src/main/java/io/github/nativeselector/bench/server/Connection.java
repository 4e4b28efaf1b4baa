/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.bench.server;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;

/** One connection of a {@link SelectorLoop}: reads requests, writes their replies. */
final class Connection {

    private final SelectorLoop loop;
    private final SocketChannel channel;
    SelectionKey key;
    /** Half a request carried over to the next read, in write mode; null when there is none. */
    private ByteBuffer pendingIn;
    /** The part of a reply the socket did not take, in read mode; null when there is none. */
    private ByteBuffer pendingOut;

    Connection(SelectorLoop loop, SocketChannel channel) {
        this.loop = loop;
        this.channel = channel;
    }

    /** One read, as much as the buffer takes, then every complete request in it is answered. */
    void read() throws IOException {
        ByteBuffer in = pendingIn != null ? pendingIn : loop.readBuffer.clear();
        int n = channel.read(in);
        if (n < 0) {
            close();
            return;
        }
        if (n > 0) {
            in.flip();
            serve(in);
            keepRest(in);
        }
    }

    void writePending() throws IOException {
        channel.write(pendingOut);
        if (pendingOut.hasRemaining()) {
            return;
        }
        pendingOut = null;
        key.interestOps(SelectionKey.OP_READ);
        if (pendingIn != null) {
            ByteBuffer in = pendingIn.flip();
            serve(in);
            keepRest(in);
        }
    }

    /** Answers complete requests from {@code in} (read mode) until one reply cannot be written whole. */
    private void serve(ByteBuffer in) throws IOException {
        int replyLength;
        while (pendingOut == null && (replyLength = Protocol.replyLengthOfWholeRequest(in)) > 0) {
            ByteBuffer reply = loop.replyBuffer.clear();
            Protocol.reply(in, reply, replyLength);
            channel.write(reply);
            if (reply.hasRemaining()) {
                pendingOut = ByteBuffer.allocate(reply.remaining()).put(reply).flip();
                key.interestOps(SelectionKey.OP_WRITE);
            }
        }
    }

    /** Keeps what is left of {@code in} (read mode) for the next read, in a buffer of the connection's own. */
    private void keepRest(ByteBuffer in) {
        if (!in.hasRemaining()) {
            pendingIn = null;
        } else if (in == pendingIn) {
            in.compact();
        } else {
            pendingIn = ByteBuffer.allocate(Protocol.MAX_BYTES).put(in);
        }
    }

    void close() {
        key.cancel();
        try {
            channel.close();
        } catch (IOException e) {
            // closing anyway
        }
    }
}
