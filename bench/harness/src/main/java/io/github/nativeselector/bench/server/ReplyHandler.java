/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.bench.server;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.net.ProtocolException;
import java.util.List;

/** The protocol in a Netty pipeline: each complete request is answered; replies are flushed once per read. */
final class ReplyHandler extends ByteToMessageDecoder {

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) throws ProtocolException {
        if (in.readableBytes() < Protocol.HEADER_BYTES) {
            return;
        }
        int at = in.readerIndex();
        int requestLength = in.getInt(at);
        int replyLength = in.getInt(at + 4);
        Protocol.check(requestLength, replyLength);
        if (in.readableBytes() < requestLength) {
            return;
        }
        ByteBuf reply = ctx.alloc().ioBuffer(replyLength);
        for (int done = 0; done < replyLength; done += requestLength) {
            reply.writeBytes(in, at, Math.min(requestLength, replyLength - done));
        }
        in.skipBytes(requestLength);
        ctx.write(reply);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) throws Exception {
        ctx.flush();
        super.channelReadComplete(ctx);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        // Reset by the peer, or a request outside the protocol: drop the connection.
        ctx.close();
    }
}
