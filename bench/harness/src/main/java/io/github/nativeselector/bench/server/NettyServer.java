/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.bench.server;

import io.github.nativeselector.SelectorStats;
import io.github.nativeselector.bench.selectors.SelectorKind;
import io.github.nativeselector.bench.selectors.SelectorStatsFields;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFactory;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.uring.IoUring;
import io.netty.channel.uring.IoUringIoHandler;
import io.netty.channel.uring.IoUringServerSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The protocol on Netty 4.2: its NIO transport on native-selector (through a provider that keeps
 * the selectors it opens, for their counters), or its native epoll or io_uring transport. One
 * event-loop group of {@code threads} loops serves both the listening socket and the connections.
 */
final class NettyServer implements Server {

    enum Transport {
        NIO, EPOLL, IO_URING
    }

    private final Transport transport;
    private final EventLoopGroup group;
    private final Channel listener;
    private final RecordingSelectorProvider provider;

    private NettyServer(Transport transport, EventLoopGroup group, Channel listener, RecordingSelectorProvider provider) {
        this.transport = transport;
        this.group = group;
        this.listener = listener;
        this.provider = provider;
    }

    /** {@code selector} and {@code batchThreshold} apply to the NIO transport only. */
    static NettyServer start(Transport transport, SelectorKind selector, int threads, int batchThreshold)
            throws InterruptedException {
        RecordingSelectorProvider provider = null;
        IoHandlerFactory handlers;
        ChannelFactory<? extends ServerChannel> channels;
        switch (transport) {
            case NIO -> {
                RecordingSelectorProvider recording = new RecordingSelectorProvider(selector, batchThreshold);
                provider = recording;
                handlers = NioIoHandler.newFactory(recording);
                channels = () -> new NioServerSocketChannel(recording);
            }
            case EPOLL -> {
                Epoll.ensureAvailability();
                handlers = EpollIoHandler.newFactory();
                channels = EpollServerSocketChannel::new;
            }
            case IO_URING -> {
                IoUring.ensureAvailability();
                handlers = IoUringIoHandler.newFactory();
                channels = IoUringServerSocketChannel::new;
            }
            default -> throw new AssertionError(transport);
        }
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(threads, new DefaultThreadFactory("netty", true), handlers);
        try {
            Channel listener = new ServerBootstrap()
                    .group(group)
                    .channelFactory(channels)
                    .option(ChannelOption.SO_BACKLOG, ServerMain.BACKLOG)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childHandler(new ChannelInitializer<Channel>() {
                        @Override
                        protected void initChannel(Channel channel) {
                            channel.pipeline().addLast(new ReplyHandler());
                        }
                    })
                    .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync().channel();
            return new NettyServer(transport, group, listener, provider);
        } catch (RuntimeException | InterruptedException e) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            throw e;
        }
    }

    @Override
    public int port() {
        return ((InetSocketAddress) listener.localAddress()).getPort();
    }

    @Override
    public String backend() {
        return switch (transport) {
            case NIO -> SelectorKind.backendOf(provider.selectors().get(0));
            case EPOLL -> listener instanceof EpollServerSocketChannel ? "netty-epoll" : listener.getClass().getName();
            case IO_URING -> listener instanceof IoUringServerSocketChannel ? "netty-io_uring" : listener.getClass().getName();
        };
    }

    @Override
    public String mechanism() {
        return transport == Transport.NIO ? provider.selectors().get(0).getClass().getName() : listener.getClass().getName();
    }

    @Override
    public String channels() {
        return listener.getClass().getName();
    }

    @Override
    public Optional<SelectorStats> counters() {
        return provider == null ? Optional.empty() : SelectorStatsFields.of(provider.selectors());
    }

    @Override
    public void stop() throws InterruptedException {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(5, TimeUnit.SECONDS);
    }
}
