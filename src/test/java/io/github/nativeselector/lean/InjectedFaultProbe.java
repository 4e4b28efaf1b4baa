/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.lean;

import java.io.IOException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.Channel;
import java.nio.channels.NetworkChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.Callable;

/**
 * Run by {@link InjectedFaultTest} in a child JVM whose system calls fail as the test's rules say:
 * {@code InjectedFaultProbe OPERATION...} does each operation on the JDK's channels, then on lean
 * ones, and prints a line {@code OPERATION IMPL=outcome} for each: what the call returned or
 * threw, and whether the channel is still open. Every connection the operations need is made
 * before the call that fails, with calls the rules leave alone.
 */
public final class InjectedFaultProbe {

    /** What a read or a write moves: the length the test's rules pick the failing calls by. */
    static final int LENGTH = 4321;

    /** The length of the second buffer of SCATTERING_READ_FAILING_LATER, which its test's rule picks reads by. */
    static final int SECOND_LENGTH = 1234;

    /** The traffic class SET_TRAFFIC_CLASS and SET_TRAFFIC_CLASS_DUAL_STACK set. */
    static final int TRAFFIC_CLASS = 40;

    /** How long an operation that waits waits, should its fault not come. */
    private static final int WAIT_MS = 10_000;

    private InjectedFaultProbe() {
    }

    enum Operation {
        CONNECT(impl -> connect(impl, true)),
        CONNECT_NONBLOCKING(impl -> connect(impl, false)),
        ACCEPT(impl -> accept(impl, true)),
        ACCEPT_NONBLOCKING(impl -> accept(impl, false)),
        ACCEPT_WAITING(Operation::acceptWaiting),
        READ_WAITING(Operation::readWaiting),
        READ_HEAP(impl -> read(impl, true, ByteBuffer.allocate(LENGTH))),
        READ_DIRECT(impl -> read(impl, true, ByteBuffer.allocateDirect(LENGTH))),
        READ_NONBLOCKING(impl -> read(impl, false, ByteBuffer.allocateDirect(LENGTH))),
        SCATTERING_READ(impl -> read(impl, ByteBuffer.allocateDirect(LENGTH - 1), ByteBuffer.allocateDirect(1))),
        SCATTERING_READ_FAILING_LATER(Operation::scatteringReadFailingLater),
        WRITE_HEAP(impl -> write(impl, ByteBuffer.allocate(LENGTH))),
        WRITE_DIRECT(impl -> write(impl, ByteBuffer.allocateDirect(LENGTH))),
        GATHERING_WRITE(impl -> write(impl, ByteBuffer.allocateDirect(LENGTH - 1), ByteBuffer.allocateDirect(1))),
        SET_KEEPALIVE(impl -> onClient(impl, ch -> ch.setOption(StandardSocketOptions.SO_KEEPALIVE, true))),
        SET_TRAFFIC_CLASS(impl -> onClient(impl, Family.INET, Operation::setTrafficClass)),
        SET_TRAFFIC_CLASS_DUAL_STACK(impl -> onClient(impl, Family.DEFAULT, Operation::setTrafficClass)),
        GET_RECEIVE_BUFFER(impl -> onClient(impl, ch -> ch.getOption(StandardSocketOptions.SO_RCVBUF))),
        AVAILABLE(impl -> onClient(impl, ch -> ch.socket().getInputStream().available())),
        SEND_URGENT_DATA(impl -> onClient(impl, ch -> {
            ch.socket().sendUrgentData(1);
            return "sent";
        })),
        SHUTDOWN_OUTPUT(impl -> onClient(impl, SocketChannel::shutdownOutput)),
        OPEN(impl -> opened(impl::openSocket)),
        OPEN_SERVER(impl -> opened(impl::openServer)),
        OPEN_DEFAULT(impl -> opened(() -> impl.openSocket(Family.DEFAULT))),
        OPEN_SERVER_DEFAULT(impl -> opened(() -> impl.openServer(Family.DEFAULT))),
        BIND(impl -> {
            try (SocketChannel ch = impl.openSocket()) {
                return bind(ch);
            }
        }),
        BIND_SERVER(impl -> {
            try (ServerSocketChannel ch = impl.openServer()) {
                return bind(ch);
            }
        });

        private final Action action;

        Operation(Action action) {
            this.action = action;
        }

        String run(Impl impl) throws IOException {
            return action.run(impl);
        }

        @FunctionalInterface
        interface Action {
            String run(Impl impl) throws IOException;
        }

        @FunctionalInterface
        interface Call {
            Object on(SocketChannel ch) throws IOException;
        }

        private static String connect(Impl impl, boolean blocking) throws IOException {
            try (ServerSocketChannel server = impl.listen(Family.INET);
                    SocketChannel client = impl.openSocket()) {
                client.configureBlocking(blocking);
                return Outcome.of(() -> client.connect(server.getLocalAddress())) + open(client);
            }
        }

        /** An accept with a connection from the JDK's client waiting. */
        private static String accept(Impl impl, boolean blocking) throws IOException {
            try (ServerSocketChannel server = impl.listen(Family.INET);
                    SocketChannel client = Impl.JDK.openSocket()) {
                client.connect(server.getLocalAddress());
                server.configureBlocking(blocking);
                return Outcome.of(server::accept) + open(server);
            }
        }

        private static String acceptWaiting(Impl impl) throws IOException {
            try (ServerSocketChannel server = impl.listen(Family.INET)) {
                // A timeout, so that the JDK's channel waits in poll(2) rather than in accept(2).
                server.socket().setSoTimeout(WAIT_MS);
                return Outcome.of(() -> server.socket().accept()) + open(server);
            }
        }

        private static String readWaiting(Impl impl) throws IOException {
            // The JDK's client connects, since a blocking connect of a lean channel waits in poll(2)
            // too; the server accepts a connection already there, without waiting.
            try (ServerSocketChannel server = impl.listen(Family.INET);
                    SocketChannel client = Impl.JDK.openSocket()) {
                client.connect(server.getLocalAddress());
                try (SocketChannel accepted = server.accept()) {
                    accepted.socket().setSoTimeout(WAIT_MS);
                    return Outcome.of(() -> accepted.socket().getInputStream().read()) + open(accepted);
                }
            }
        }

        /** A read into {@code dst} with a byte there to read, so that no read waits. */
        private static String read(Impl impl, boolean blocking, ByteBuffer dst) throws IOException {
            try (Pair pair = Pair.open(impl)) {
                pair.accepted.write(ByteBuffer.wrap(new byte[1]));
                pair.client.configureBlocking(blocking);
                return Outcome.of(() -> pair.client.read(dst)) + open(pair.client);
            }
        }

        /** A blocking scattering read with a byte there to read. */
        private static String read(Impl impl, ByteBuffer... dsts) throws IOException {
            try (Pair pair = Pair.open(impl)) {
                pair.accepted.write(ByteBuffer.wrap(new byte[1]));
                return Outcome.of(() -> pair.client.read(dsts)) + open(pair.client);
            }
        }

        /** A write of one buffer, or a gathering write of more. */
        /**
         * A blocking scattering read into two heap buffers, of 1 and {@link #SECOND_LENGTH} bytes,
         * with 1 byte there to read, then two non-blocking reads of 100 bytes with none there.
         */
        private static String scatteringReadFailingLater(Impl impl) throws IOException {
            try (Pair pair = Pair.open(impl)) {
                pair.accepted.write(ByteBuffer.wrap(new byte[1]));
                ByteBuffer[] dsts = { ByteBuffer.allocate(1), ByteBuffer.allocate(SECOND_LENGTH) };
                String first = Outcome.of(() -> pair.client.read(dsts));
                pair.client.configureBlocking(false);
                return first + ", then " + Outcome.of(() -> pair.client.read(ByteBuffer.allocate(100)))
                        + ", then " + Outcome.of(() -> pair.client.read(ByteBuffer.allocate(100))) + open(pair.client);
            }
        }

        private static String write(Impl impl, ByteBuffer... srcs) throws IOException {
            try (Pair pair = Pair.open(impl)) {
                return Outcome.of(() -> srcs.length == 1 ? pair.client.write(srcs[0]) : pair.client.write(srcs))
                        + open(pair.client);
            }
        }

        /** Sets IP_TOS to {@link #TRAFFIC_CLASS}, and reads it back. */
        private static Object setTrafficClass(SocketChannel ch) throws IOException {
            ch.setOption(StandardSocketOptions.IP_TOS, TRAFFIC_CLASS);
            return ch.getOption(StandardSocketOptions.IP_TOS);
        }

        /** {@code call} on a connected IPv4 client. */
        private static String onClient(Impl impl, Call call) throws IOException {
            return onClient(impl, Family.INET, call);
        }

        /** {@code call} on a connected client of the family. */
        private static String onClient(Impl impl, Family family, Call call) throws IOException {
            try (Pair pair = Pair.open(impl, family)) {
                return Outcome.of(() -> call.on(pair.client)) + open(pair.client);
            }
        }

        /** Whether a channel opens (and is closed again). */
        private static String opened(Callable<? extends Channel> open) {
            return Outcome.of(() -> {
                try (Channel ch = open.call()) {
                    return "a channel";
                }
            });
        }

        /** A bind to loopback, and whether the channel then has a local address. */
        private static String bind(NetworkChannel ch) {
            return Outcome.of(() -> ch.bind(Family.INET.loopback(0)).getLocalAddress() != null) + open(ch)
                    + ", bound " + Outcome.of(() -> ch.getLocalAddress() != null);
        }

        private static String open(Channel ch) {
            return ch.isOpen() ? ", open" : ", closed";
        }
    }

    public static void main(String[] args) throws Exception {
        for (String name : args) {
            Operation operation = Operation.valueOf(name);
            for (Impl impl : Impl.values()) {
                System.out.println(name + " " + impl + "=" + operation.run(impl));
            }
        }
    }
}
