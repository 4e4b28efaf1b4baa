/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.install;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.nativeselector.NativeSelectorProvider;
import io.github.nativeselector.SelectorStats;
import io.github.nativeselector.internal.NativeSelector;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFactory;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URL;
import java.nio.channels.Selector;
import java.nio.channels.spi.SelectorProvider;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Netty 4.1's HTTP codec on its NIO transport, given our provider explicitly, serving HTTP requests. */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class NettyHttpTest {

    private static final int REQUESTS = 40;

    @Test
    void nettyServesHttpOnOurSelector() throws Exception {
        SelectorProvider provider = NativeSelectorProvider.provider();
        EventLoopGroup group = new NioEventLoopGroup(1, (ThreadFactory) null, provider);
        try {
            Channel server = new ServerBootstrap().group(group)
                    .channelFactory((ChannelFactory<NioServerSocketChannel>) () -> new NioServerSocketChannel(provider))
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            ch.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(1 << 16), new Greeter());
                        }
                    })
                    .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).syncUninterruptibly().channel();
            Selector selector = EchoNetty.selectors(group).get(0);
            assertInstanceOf(NativeSelector.class, selector, "Netty's event loop selector");
            SelectorStats before = SelectorStats.of(selector).orElseThrow();

            int port = ((InetSocketAddress) server.localAddress()).getPort();
            for (int i = 0; i < REQUESTS; i++) {
                assertEquals("hello /greet?n=" + i + " body " + i, post(port, i));
            }

            SelectorStats after = SelectorStats.of(selector).orElseThrow();
            assertTrue(after.readyEvents() - before.readyEvents() >= REQUESTS,
                    () -> "each request is read when its connection is ready: " + before + " -> " + after);
            assertTrue(after.changesApplied() - before.changesApplied() >= REQUESTS / 10,
                    () -> "a registration per accepted connection: " + before + " -> " + after);
            server.close().syncUninterruptibly();
        } finally {
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    /**
     * POSTs "body i" to /greet?n=i and returns the response's body. {@link HttpURLConnection} opens
     * no selector (one left to the garbage collector would close its descriptors during later
     * tests); every tenth request closes its connection, so the server accepts several.
     */
    private static String post(int port, int i) throws Exception {
        URL url = new URL("http://127.0.0.1:" + port + "/greet?n=" + i);
        HttpURLConnection connection = (HttpURLConnection) url.openConnection();
        connection.setConnectTimeout(10_000);
        connection.setReadTimeout(20_000);
        connection.setRequestMethod("POST");
        connection.setDoOutput(true);
        if (i % 10 == 9) {
            connection.setRequestProperty("Connection", "close");
        }
        try (OutputStream out = connection.getOutputStream()) {
            out.write(("body " + i).getBytes(StandardCharsets.UTF_8));
        }
        assertEquals(200, connection.getResponseCode());
        try (InputStream in = connection.getInputStream()) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /** Answers with the request's URI and body. */
    private static final class Greeter extends SimpleChannelInboundHandler<FullHttpRequest> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
            byte[] body = ("hello " + request.uri() + " " + request.content().toString(StandardCharsets.UTF_8))
                    .getBytes(StandardCharsets.UTF_8);
            FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
                    Unpooled.wrappedBuffer(body));
            response.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/plain; charset=utf-8");
            HttpUtil.setContentLength(response, body.length);
            HttpUtil.setKeepAlive(response, HttpUtil.isKeepAlive(request));
            ctx.writeAndFlush(response);
        }
    }
}
