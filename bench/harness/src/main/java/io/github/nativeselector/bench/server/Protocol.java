/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.bench.server;

import java.net.ProtocolException;
import java.nio.ByteBuffer;

/**
 * The request/reply protocol every server speaks (the load generator's {@code common.h} has the
 * same rules in C).
 *
 * <p>A request is R bytes: bytes 0-3 hold R and bytes 4-7 the reply length P, both big-endian,
 * then R - 8 bytes of anything. The reply is P bytes, the request repeated: {@code
 * reply[i] = request[i % R]}. An echo is the case P == R. 8 <= R <= 64 KiB, 1 <= P <= 64 KiB.
 */
final class Protocol {

    static final int HEADER_BYTES = 8;
    static final int MAX_BYTES = 65536;

    private Protocol() {}

    /** Fails, closing the connection in every server, when a header is outside the protocol. */
    static void check(int requestLength, int replyLength) throws ProtocolException {
        if (requestLength < HEADER_BYTES || requestLength > MAX_BYTES || replyLength < 1 || replyLength > MAX_BYTES) {
            throw new ProtocolException("request of " + requestLength + " bytes asking for " + replyLength);
        }
    }

    /**
     * The reply length the request at {@code in}'s position (read mode) asks for, its header
     * checked; 0 while the request is not all there.
     */
    static int replyLengthOfWholeRequest(ByteBuffer in) throws ProtocolException {
        if (in.remaining() < HEADER_BYTES) {
            return 0;
        }
        int at = in.position();
        int requestLength = in.getInt(at);
        int replyLength = in.getInt(at + 4);
        check(requestLength, replyLength);
        return in.remaining() < requestLength ? 0 : replyLength;
    }

    /**
     * Writes the reply to the whole request at {@code in}'s position into {@code reply}, ready to
     * be written, and moves {@code in} past the request.
     */
    static void reply(ByteBuffer in, ByteBuffer reply, int replyLength) {
        int at = in.position();
        int requestLength = in.getInt(at);
        for (int done = 0; done < replyLength; done += requestLength) {
            reply.put(done, in, at, Math.min(requestLength, replyLength - done));
        }
        reply.position(0).limit(replyLength);
        in.position(at + requestLength);
    }
}
