/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.install;

import io.github.nativeselector.SelectorStats;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFactory;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoop;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.EventExecutor;
import java.lang.reflect.Method;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.Selector;
import java.nio.channels.spi.SelectorProvider;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

/**
 * An unmodified Netty 4.1 NIO echo server and NIO clients, ping-pong: each connection sends a
 * message, waits for its whole echo, then sends the next. With a provider they use it; without
 * one Netty uses {@link SelectorProvider#provider()}. Also a child-JVM main.
 */
final class EchoNetty {

    /** What a run did, with each event loop's selector as Netty holds it, counted before shutdown. */
    record Outcome(int connectionsDone, int messagesEchoed, long bytesEchoed, List<String> failures,
            List<Selector> serverSelectors, List<Optional<SelectorStats>> serverStats,
            List<Selector> clientSelectors, List<Optional<SelectorStats>> clientStats,
            List<SelectorProvider> loopProviders) {
    }

    private EchoNetty() {
    }

    static Outcome run(SelectorProvider serverProvider, SelectorProvider clientProvider, int connections,
            int messagesPerConnection, long seed) throws Exception {
        EventLoopGroup serverGroup = group(1, serverProvider);
        EventLoopGroup clientGroup = group(2, clientProvider);
        List<String> failures = new ArrayList<>();
        ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
        AtomicLong echoed = new AtomicLong();
        List<Channel> clients = new ArrayList<>();
        Channel serverChannel = null;
        try {
            ServerBootstrap server = new ServerBootstrap().group(serverGroup)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            ch.pipeline().addLast(new EchoServerHandler(problems));
                        }
                    });
            if (serverProvider == null) {
                server.channel(NioServerSocketChannel.class);
            } else {
                server.channelFactory((ChannelFactory<NioServerSocketChannel>) () ->
                        new NioServerSocketChannel(serverProvider));
            }
            serverChannel = server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                    .syncUninterruptibly().channel();
            InetSocketAddress address = (InetSocketAddress) serverChannel.localAddress();

            Random random = new Random(seed);
            List<CompletableFuture<Integer>> done = new ArrayList<>();
            for (int c = 0; c < connections; c++) {
                List<byte[]> messages = new ArrayList<>();
                for (int m = 0; m < messagesPerConnection; m++) {
                    // Mostly small messages; the last of each connection is large enough to fill buffers.
                    int size = m == messagesPerConnection - 1 ? 256 * 1024 : 1 + random.nextInt(4096);
                    byte[] message = new byte[size];
                    random.nextBytes(message);
                    messages.add(message);
                }
                CompletableFuture<Integer> finished = new CompletableFuture<>();
                done.add(finished);
                Bootstrap client = new Bootstrap().group(clientGroup)
                        .option(ChannelOption.TCP_NODELAY, true)
                        .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 10_000)
                        .handler(new EchoClientHandler(c, messages, finished, echoed));
                if (clientProvider == null) {
                    client.channel(NioSocketChannel.class);
                } else {
                    client.channelFactory((ChannelFactory<NioSocketChannel>) () -> new NioSocketChannel(clientProvider));
                }
                clients.add(client.connect(address).channel());
            }
            CompletableFuture.allOf(done.toArray(new CompletableFuture<?>[0])).get(40, TimeUnit.SECONDS);
            int messagesEchoed = 0;
            for (CompletableFuture<Integer> f : done) {
                messagesEchoed += f.get();
            }
            failures.addAll(problems);
            return new Outcome(done.size(), messagesEchoed, echoed.get(), failures,
                    selectors(serverGroup), stats(selectors(serverGroup)),
                    selectors(clientGroup), stats(selectors(clientGroup)), providers(serverGroup, clientGroup));
        } finally {
            for (Channel ch : clients) {
                ch.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
            }
            if (serverChannel != null) {
                serverChannel.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
            }
            clientGroup.shutdownGracefully(0, 5, TimeUnit.SECONDS);
            serverGroup.shutdownGracefully(0, 5, TimeUnit.SECONDS);
            boolean clientDown = clientGroup.awaitTermination(10, TimeUnit.SECONDS);
            boolean serverDown = serverGroup.awaitTermination(10, TimeUnit.SECONDS);
            if (!clientDown || !serverDown) {
                throw new IllegalStateException("event loops did not terminate");
            }
        }
    }

    private static EventLoopGroup group(int threads, SelectorProvider provider) {
        return provider == null ? new NioEventLoopGroup(threads)
                : new NioEventLoopGroup(threads, (ThreadFactory) null, provider);
    }

    /** Netty keeps its selector to itself; its package-private accessor tells which one it uses. */
    static List<Selector> selectors(EventLoopGroup group) throws Exception {
        Method unwrapped = NioEventLoop.class.getDeclaredMethod("unwrappedSelector");
        unwrapped.setAccessible(true);
        List<Selector> selectors = new ArrayList<>();
        for (EventExecutor loop : group) {
            selectors.add((Selector) unwrapped.invoke(loop));
        }
        return selectors;
    }

    private static List<Optional<SelectorStats>> stats(List<Selector> selectors) {
        return selectors.stream().map(SelectorStats::of).collect(Collectors.toList());
    }

    private static List<SelectorProvider> providers(EventLoopGroup... groups) {
        List<SelectorProvider> providers = new ArrayList<>();
        for (EventLoopGroup group : groups) {
            for (EventExecutor loop : group) {
                providers.add(((NioEventLoop) loop).selectorProvider());
            }
        }
        return providers;
    }

    /** Netty's echo example handler. */
    @ChannelHandler.Sharable
    static final class EchoServerHandler extends ChannelInboundHandlerAdapter {
        private final ConcurrentLinkedQueue<String> problems;

        EchoServerHandler(ConcurrentLinkedQueue<String> problems) {
            this.problems = problems;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ctx.write(msg);
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            ctx.flush();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            problems.add("server: " + cause);
            ctx.close();
        }
    }

    /** Sends one message at a time and checks every echoed byte. */
    static final class EchoClientHandler extends ChannelInboundHandlerAdapter {
        private final int id;
        private final List<byte[]> messages;
        private final CompletableFuture<Integer> finished;
        private final AtomicLong echoed;
        private final byte[] expected;
        private final int[] ends;
        private final byte[] received;
        private int position;
        private int sent;

        EchoClientHandler(int id, List<byte[]> messages, CompletableFuture<Integer> finished, AtomicLong echoed) {
            this.id = id;
            this.messages = messages;
            this.finished = finished;
            this.echoed = echoed;
            this.ends = new int[messages.size()];
            int total = 0;
            for (int i = 0; i < messages.size(); i++) {
                total += messages.get(i).length;
                ends[i] = total;
            }
            this.expected = new byte[total];
            int at = 0;
            for (byte[] m : messages) {
                System.arraycopy(m, 0, expected, at, m.length);
                at += m.length;
            }
            this.received = new byte[total];
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            sendNext(ctx);
        }

        private void sendNext(ChannelHandlerContext ctx) {
            ctx.writeAndFlush(Unpooled.wrappedBuffer(messages.get(sent++)));
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf buf = (ByteBuf) msg;
            try {
                int n = buf.readableBytes();
                if (position + n > received.length) {
                    finished.completeExceptionally(new AssertionError(
                            "connection " + id + ": " + (position + n) + " bytes echoed, " + received.length + " sent"));
                    ctx.close();
                    return;
                }
                buf.readBytes(received, position, n);
                position += n;
                echoed.addAndGet(n);
            } finally {
                buf.release();
            }
            if (sent < messages.size() && position == ends[sent - 1]) {
                sendNext(ctx);
            } else if (position == received.length) {
                if (Arrays.equals(expected, received)) {
                    finished.complete(messages.size());
                } else {
                    finished.completeExceptionally(new AssertionError("connection " + id + ": echo differs"));
                }
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            finished.completeExceptionally(new AssertionError(
                    "connection " + id + " closed after " + position + " of " + received.length + " bytes"));
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            finished.completeExceptionally(cause);
            ctx.close();
        }
    }

    /** Child-JVM main: the echo on Netty's defaults, so on whatever provider the JVM was given. */
    public static void main(String[] args) throws Exception {
        int connections = Integer.parseInt(args[0]);
        int messages = Integer.parseInt(args[1]);
        Outcome outcome = run(null, null, connections, messages, 42);
        System.out.println("connections=" + outcome.connectionsDone());
        System.out.println("messages=" + outcome.messagesEchoed());
        System.out.println("bytes=" + outcome.bytesEchoed());
        System.out.println("failures=" + outcome.failures());
        System.out.println("providers=" + outcome.loopProviders().stream().map(p -> p.getClass().getName())
                .distinct().collect(Collectors.joining(",")));
        List<Selector> all = new ArrayList<>(outcome.serverSelectors());
        all.addAll(outcome.clientSelectors());
        System.out.println("selectors=" + all.stream().map(s -> s.getClass().getName()).distinct()
                .collect(Collectors.joining(",")));
        System.out.println("server=" + describe(outcome.serverStats()));
        System.out.println("client=" + describe(outcome.clientStats()));
        System.out.flush();
        System.exit(0);
    }

    private static String describe(List<Optional<SelectorStats>> stats) {
        return stats.stream().map(s -> s.map(st -> st.polls() + ":" + st.readyEvents()).orElse("absent"))
                .collect(Collectors.joining(","));
    }
}
