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

    /** Writes the reply to the request at {@code in[at, at + requestLength)} into {@code reply}, ready to be written. */
    static void fillReply(ByteBuffer reply, ByteBuffer in, int at, int requestLength, int replyLength) {
        for (int done = 0; done < replyLength; done += requestLength) {
            reply.put(done, in, at, Math.min(requestLength, replyLength - done));
        }
        reply.position(0).limit(replyLength);
    }
}
