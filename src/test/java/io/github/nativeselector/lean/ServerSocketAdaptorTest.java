/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.lean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketTimeoutException;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.IllegalBlockingModeException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The {@link ServerSocket} a server socket channel hands out: what its getters say unbound, bound
 * and closed, its binds, accepts with and without a time-out, and its option setters.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ServerSocketAdaptorTest {

    @FunctionalInterface
    interface ServerCall {
        Object call(ServerSocket s) throws Exception;
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void getters(Impl impl) throws Exception {
        ServerSocketChannel server = impl.openServer();
        ServerSocketChannel twin = Impl.JDK.openServer();
        ServerSocket s = server.socket();
        assertFalse(s.isBound());
        assertEquals(-1, s.getLocalPort());
        assertNull(s.getInetAddress());
        assertEquals("ServerSocket[unbound]", s.toString());
        assertTrue(s.getReuseAddress(), "server sockets reuse addresses by default");
        assertEquals(getters(twin.socket()), getters(s), "unbound");

        s.bind(Family.INET.loopback(0));
        twin.socket().bind(Family.INET.loopback(0));
        int port = ((InetSocketAddress) server.getLocalAddress()).getPort();
        int twinPort = ((InetSocketAddress) twin.getLocalAddress()).getPort();
        assertTrue(s.isBound());
        assertEquals(port, s.getLocalPort());
        assertEquals(Family.INET.loopback(), s.getInetAddress());
        assertEquals("ServerSocket[addr=/127.0.0.1,localport=" + port + "]", s.toString());
        assertEquals(named(getters(twin.socket()), twinPort), named(getters(s), port), "bound");

        server.close();
        twin.close();
        assertTrue(s.isClosed());
        assertEquals(named(getters(twin.socket()), twinPort), named(getters(s), port), "closed");
    }

    /** ServerSocket's getters answer after a close as before it, though the adaptor was made after. */
    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void gettersOfAnAdaptorMadeAfterTheClose(Impl impl) throws Exception {
        ServerSocketChannel server = impl.openServer();
        ServerSocketChannel twin = Impl.JDK.openServer();
        server.bind(Family.INET.loopback(0));
        twin.bind(Family.INET.loopback(0));
        server.close();
        twin.close();
        ServerSocket s = server.socket();
        assertTrue(s.isBound(), "bound before the close");
        assertEquals(Family.INET.loopback(), s.getInetAddress());
        assertEquals(named(getters(twin.socket()), twin.socket().getLocalPort()), named(getters(s), s.getLocalPort()));
    }

    private static Map<String, String> getters(ServerSocket s) {
        Map<String, ServerCall> calls = new LinkedHashMap<>();
        calls.put("isBound", ServerSocket::isBound);
        calls.put("isClosed", ServerSocket::isClosed);
        calls.put("getLocalPort", ServerSocket::getLocalPort);
        calls.put("getInetAddress", ServerSocket::getInetAddress);
        calls.put("getLocalSocketAddress", ServerSocket::getLocalSocketAddress);
        calls.put("toString", ServerSocket::toString);
        calls.put("getSoTimeout", ServerSocket::getSoTimeout);
        calls.put("getReceiveBufferSize", ServerSocket::getReceiveBufferSize);
        calls.put("getReuseAddress", ServerSocket::getReuseAddress);
        calls.put("supportedOptions", x -> x.supportedOptions().stream().map(o -> o.name()).sorted()
                .collect(Collectors.joining(",")));
        Map<String, String> outcomes = new LinkedHashMap<>();
        calls.forEach((name, call) -> outcomes.put(name, Outcome.of(() -> call.call(s))));
        return outcomes;
    }

    private static Map<String, String> named(Map<String, String> outcomes, int port) {
        Map<String, String> named = new LinkedHashMap<>();
        outcomes.forEach((k, v) -> named.put(k, v.replaceAll("\\b" + port + "\\b", "PORT")));
        return named;
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void acceptTimeout(Impl impl) throws Exception {
        try (ServerSocketChannel server = impl.listen(Family.INET); SocketChannel client = impl.openSocket()) {
            ServerSocket s = server.socket();
            s.setSoTimeout(300);
            assertEquals(300, s.getSoTimeout());
            for (int round = 0; round < 2; round++) {
                long t0 = System.nanoTime();
                SocketTimeoutException e = assertThrows(SocketTimeoutException.class, s::accept);
                long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
                assertEquals("Accept timed out", e.getMessage());
                assertTrue(took >= 250, "timed out after " + took + " ms");
                assertTrue(server.isOpen(), "an accept time-out leaves the channel open");
            }
            client.connect(server.getLocalAddress());
            try (Socket accepted = s.accept()) {
                assertEquals(client.getLocalAddress(), accepted.getRemoteSocketAddress());
            }
            s.setSoTimeout(0);
            try (SocketChannel late = impl.openSocket(); BlockedCall<Socket> accept = BlockedCall.start(s::accept)) {
                accept.awaitBlockedIn(server);
                late.connect(server.getLocalAddress());
                try (Socket accepted = accept.get()) {
                    assertEquals(late.getLocalAddress(), accepted.getRemoteSocketAddress(),
                            "no time-out: the accept waits as long as it takes");
                }
            }
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void interruptOfABlockedAccept(Impl impl) throws Exception {
        for (int timeout : new int[] {0, 60_000}) {
            try (ServerSocketChannel server = impl.listen(Family.INET)) {
                server.socket().setSoTimeout(timeout);
                try (BlockedCall<Socket> accept = BlockedCall.start(server.socket()::accept)) {
                    accept.awaitBlockedIn(server);
                    accept.thread.interrupt();
                    Throwable e = accept.failure();
                    assertSame(ClosedByInterruptException.class, e.getClass(), "SO_TIMEOUT " + timeout + ": " + e);
                    assertTrue(accept.interruptedAtEnd(), "the interrupt status stays set");
                    assertTrue(server.socket().isClosed());
                }
            }
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void acceptErrors(Impl impl) throws Exception {
        try (ServerSocketChannel server = impl.openServer(); ServerSocketChannel twin = Impl.JDK.openServer()) {
            assertLikeJdk(server.socket(), twin.socket(), "accept unbound", ServerSocket::accept);
            server.bind(Family.INET.loopback(0));
            twin.bind(Family.INET.loopback(0));
            server.configureBlocking(false);
            twin.configureBlocking(false);
            assertThrows(IllegalBlockingModeException.class, server.socket()::accept);
            assertLikeJdk(server.socket(), twin.socket(), "accept in non-blocking mode", ServerSocket::accept);
            server.close();
            twin.close();
            assertThrows(IOException.class, server.socket()::accept);
            assertLikeJdk(server.socket(), twin.socket(), "accept closed", ServerSocket::accept);
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void bind(Impl impl) throws Exception {
        try (ServerSocketChannel taken = impl.listen(Family.INET)) {
            Map<String, ServerCall> calls = new LinkedHashMap<>();
            calls.put("bind(loopback)", s -> bind(s, Family.INET.loopback(0), 50).isBound());
            calls.put("bind(loopback, backlog -1)", s -> bind(s, Family.INET.loopback(0), -1).isBound());
            calls.put("bind twice", s -> bind(bind(s, Family.INET.loopback(0), 50), null, 50));
            calls.put("bind(other kind of address)", s -> bind(s, new SocketAddress() {
            }, 50));
            calls.put("bind(in use)", s -> bind(s, taken.getLocalAddress(), 50));
            for (Map.Entry<String, ServerCall> call : calls.entrySet()) {
                try (ServerSocketChannel server = impl.openServer(); ServerSocketChannel twin = Impl.JDK.openServer()) {
                    assertLikeJdk(server.socket(), twin.socket(), call.getKey(), call.getValue());
                    assertEquals(twin.socket().isBound(), server.socket().isBound(), "bound after " + call.getKey());
                }
            }
            try (ServerSocketChannel server = impl.openServer(); ServerSocketChannel twin = Impl.JDK.openServer()) {
                server.close();
                twin.close();
                assertLikeJdk(server.socket(), twin.socket(), "bind when closed", s -> bind(s, null, 50));
            }
        }
    }

    private static ServerSocket bind(ServerSocket s, SocketAddress address, int backlog) throws Exception {
        s.bind(address, backlog);
        return s;
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void optionSetters(Impl impl) throws Exception {
        ServerSocketChannel server = impl.openServer();
        ServerSocketChannel twin = Impl.JDK.openServer();
        ServerSocket s = server.socket();
        s.setReuseAddress(false);
        assertFalse(s.getReuseAddress());
        assertThrows(IllegalArgumentException.class, () -> s.setSoTimeout(-1));
        assertThrows(IllegalArgumentException.class, () -> s.setReceiveBufferSize(0));
        assertEquals(setters(twin.socket()), setters(s), "unbound");
        server.bind(Family.INET.loopback(0));
        twin.bind(Family.INET.loopback(0));
        assertEquals(setters(twin.socket()), setters(s), "bound");
        server.close();
        twin.close();
        assertEquals(setters(twin.socket()), setters(s), "closed");
    }

    private static List<String> setters(ServerSocket s) {
        List<String> outcomes = new ArrayList<>();
        for (int v : new int[] {0, 1, 1 << 16, 1 << 20, -1}) {
            outcomes.add("receive buffer " + v + ": " + Outcome.of(() -> {
                s.setReceiveBufferSize(v);
                return s.getReceiveBufferSize();
            }));
            outcomes.add("so timeout " + v + ": " + Outcome.of(() -> {
                s.setSoTimeout(v);
                return s.getSoTimeout();
            }));
        }
        for (boolean on : new boolean[] {true, false, true}) {
            outcomes.add("reuse address " + on + ": " + Outcome.of(() -> {
                s.setReuseAddress(on);
                return s.getReuseAddress();
            }));
        }
        outcomes.add("performance preferences: " + Outcome.ofRun(() -> s.setPerformancePreferences(1, 2, 3)));
        return outcomes;
    }

    private static void assertLikeJdk(ServerSocket s, ServerSocket twin, String what, ServerCall call) {
        assertEquals(Outcome.of(() -> call.call(twin)), Outcome.of(() -> call.call(s)), what);
    }
}
