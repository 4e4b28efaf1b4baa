/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.lean;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.nativeselector.support.ContractChannels.DeadPort;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
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
 * The {@link Socket} a socket channel hands out: identity, what every getter says in each state
 * (the JDK's adaptor in the same state is the reference, port numbers aside), streams, timeouts,
 * connect, bind and option setters.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class SocketAdaptorTest {

    @FunctionalInterface
    interface SocketCall {
        Object call(Socket s) throws Exception;
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void identity(Impl impl) throws Exception {
        try (Pair p = Pair.open(impl)) {
            Socket s = p.client.socket();
            assertNotNull(s);
            assertSame(s, p.client.socket(), "one adaptor per channel");
            assertSame(p.client, s.getChannel());
            assertSame(p.accepted, p.accepted.socket().getChannel());
            assertSame(p.server, p.server.socket().getChannel());
            assertSame(p.server.socket(), p.server.socket());
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void gettersOfAnUnconnectedSocket(Impl impl) throws Exception {
        try (SocketChannel ch = impl.openSocket(); SocketChannel twin = Impl.JDK.openSocket()) {
            Socket s = ch.socket();
            assertFalse(s.isConnected());
            assertFalse(s.isBound());
            assertFalse(s.isClosed());
            assertEquals(0, s.getPort());
            assertEquals(-1, s.getLocalPort());
            assertEquals("Socket[unconnected]", s.toString());
            SocketException e = assertThrows(SocketException.class, s::getInputStream);
            assertEquals("Socket is not connected", e.getMessage());
            assertEquals(getters(twin.socket()), getters(s));
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void gettersOfABoundSocket(Impl impl) throws Exception {
        try (SocketChannel ch = impl.openSocket(); SocketChannel twin = Impl.JDK.openSocket()) {
            ch.socket().bind(Family.INET.loopback(0));
            twin.socket().bind(Family.INET.loopback(0));
            assertTrue(ch.socket().isBound());
            assertEquals(((InetSocketAddress) ch.getLocalAddress()).getPort(), ch.socket().getLocalPort());
            assertEquals(ports(getters(twin.socket()), twin), ports(getters(ch.socket()), ch));
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void gettersOfConnectedSockets(Impl impl) throws Exception {
        try (Pair p = Pair.open(impl); Pair twin = Pair.open(Impl.JDK)) {
            Socket s = p.client.socket();
            InetSocketAddress server = p.serverAddress();
            assertTrue(s.isConnected());
            assertEquals(server.getPort(), s.getPort());
            assertEquals(server.getAddress(), s.getInetAddress());
            assertEquals(server, s.getRemoteSocketAddress());
            assertEquals(p.client.getLocalAddress(), s.getLocalSocketAddress());
            assertEquals("Socket[addr=/127.0.0.1,port=" + server.getPort() + ",localport=" + s.getLocalPort() + "]",
                    s.toString());
            assertEquals(ports(getters(twin.client.socket()), twin.client), ports(getters(s), p.client), "client");
            assertEquals(ports(getters(twin.accepted.socket()), twin.accepted),
                    ports(getters(p.accepted.socket()), p.accepted), "accepted");
            p.client.shutdownInput();
            twin.client.shutdownInput();
            assertTrue(s.isInputShutdown());
            assertEquals(ports(getters(twin.client.socket()), twin.client), ports(getters(s), p.client),
                    "input shut down");
            p.client.shutdownOutput();
            twin.client.shutdownOutput();
            assertTrue(s.isOutputShutdown());
            assertEquals(ports(getters(twin.client.socket()), twin.client), ports(getters(s), p.client),
                    "both shut down");
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void gettersOfClosedSockets(Impl impl) throws Exception {
        try (Pair p = Pair.open(impl); Pair twin = Pair.open(Impl.JDK)) {
            Map<String, Integer> ports = portsOf(p.client);
            Map<String, Integer> twinPorts = portsOf(twin.client);
            p.client.close();
            twin.client.close();
            Socket s = p.client.socket();
            assertTrue(s.isClosed());
            SocketException e = assertThrows(SocketException.class, s::getInputStream);
            assertEquals("Socket is closed", e.getMessage());
            e = assertThrows(SocketException.class, s::getSoTimeout);
            assertEquals("Socket is closed", e.getMessage());
            assertEquals(ports(getters(twin.client.socket()), twinPorts), ports(getters(s), ports),
                    "closed after connected");
        }
        try (SocketChannel ch = impl.openSocket(); SocketChannel twin = Impl.JDK.openSocket()) {
            ch.close();
            twin.close();
            assertEquals(getters(twin.socket()), getters(ch.socket()), "closed unconnected");
        }
    }

    /** What each getter of the adaptor returns or throws, in the order called. */
    private static Map<String, String> getters(Socket s) {
        Map<String, SocketCall> calls = new LinkedHashMap<>();
        calls.put("isConnected", Socket::isConnected);
        calls.put("isBound", Socket::isBound);
        calls.put("isClosed", Socket::isClosed);
        calls.put("isInputShutdown", Socket::isInputShutdown);
        calls.put("isOutputShutdown", Socket::isOutputShutdown);
        calls.put("getPort", Socket::getPort);
        calls.put("getLocalPort", Socket::getLocalPort);
        calls.put("getInetAddress", Socket::getInetAddress);
        calls.put("getLocalAddress", Socket::getLocalAddress);
        calls.put("getRemoteSocketAddress", Socket::getRemoteSocketAddress);
        calls.put("getLocalSocketAddress", Socket::getLocalSocketAddress);
        calls.put("toString", Socket::toString);
        calls.put("getInputStream", x -> x.getInputStream() != null);
        calls.put("getOutputStream", x -> x.getOutputStream() != null);
        calls.put("getSoTimeout", Socket::getSoTimeout);
        calls.put("getTcpNoDelay", Socket::getTcpNoDelay);
        calls.put("getSoLinger", Socket::getSoLinger);
        calls.put("getReceiveBufferSize", Socket::getReceiveBufferSize);
        calls.put("getSendBufferSize", Socket::getSendBufferSize);
        calls.put("getKeepAlive", Socket::getKeepAlive);
        calls.put("getOOBInline", Socket::getOOBInline);
        calls.put("getTrafficClass", Socket::getTrafficClass);
        calls.put("getReuseAddress", Socket::getReuseAddress);
        Map<String, String> outcomes = new LinkedHashMap<>();
        calls.forEach((name, call) -> outcomes.put(name, Outcome.of(() -> call.call(s))));
        return outcomes;
    }

    /** The channel's local and remote ports, which differ between two channels in the same state. */
    private static Map<String, Integer> portsOf(SocketChannel ch) throws Exception {
        Map<String, Integer> ports = new LinkedHashMap<>();
        if (ch.getLocalAddress() != null) {
            ports.put("LOCALPORT", ((InetSocketAddress) ch.getLocalAddress()).getPort());
        }
        if (ch.getRemoteAddress() != null) {
            ports.put("REMOTEPORT", ((InetSocketAddress) ch.getRemoteAddress()).getPort());
        }
        return ports;
    }

    private static Map<String, String> ports(Map<String, String> outcomes, SocketChannel ch) throws Exception {
        return ports(outcomes, portsOf(ch));
    }

    /** The outcomes with the port numbers given replaced by their names. */
    private static Map<String, String> ports(Map<String, String> outcomes, Map<String, Integer> ports) {
        Map<String, String> named = new LinkedHashMap<>();
        outcomes.forEach((call, outcome) -> {
            String s = outcome;
            for (Map.Entry<String, Integer> port : ports.entrySet()) {
                s = s.replaceAll("\\b" + port.getValue() + "\\b", port.getKey());
            }
            named.put(call, s);
        });
        return named;
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void streams(Impl impl) throws Exception {
        try (Pair p = Pair.open(impl)) {
            Socket s = p.client.socket();
            InputStream in = s.getInputStream();
            OutputStream out = s.getOutputStream();
            out.write(0xAB);
            out.write(Bytes.array(0, 100, 30), 10, 50);
            out.flush();
            Bytes.assertReads(p.accepted, concat(new byte[] {(byte) 0xAB}, Bytes.array(10, 50, 30)));

            assertEquals(0, in.available());
            p.accepted.write(ByteBuffer.wrap(new byte[] {(byte) 0xFF, 2, 3, 4, 5}));
            assertEquals(255, in.read(), "single bytes are read as 0 to 255");
            assertEquals(4, in.available(), "the rest of what arrived together");
            byte[] into = new byte[10];
            assertEquals(4, in.read(into, 3, 7), "a read returns what has arrived");
            assertArrayEquals(new byte[] {0, 0, 0, 2, 3, 4, 5, 0, 0, 0}, into);
            assertEquals(0, in.read(into, 0, 0), "reading nothing does not wait");

            assertThrows(IndexOutOfBoundsException.class, () -> in.read(into, -1, 1));
            assertThrows(IndexOutOfBoundsException.class, () -> in.read(into, 8, 3));
            assertThrows(IndexOutOfBoundsException.class, () -> in.read(into, 0, -1));
            assertThrows(NullPointerException.class, () -> in.read(null, 0, 1));
            assertThrows(IndexOutOfBoundsException.class, () -> out.write(into, 9, 2));
            assertThrows(IndexOutOfBoundsException.class, () -> out.write(into, -1, 2));
            assertThrows(NullPointerException.class, () -> out.write(null, 0, 1));
            assertTrue(s.isConnected(), "bad arguments leave the socket alone");

            p.accepted.shutdownOutput();
            assertEquals(-1, in.read());
            assertEquals(-1, in.read(into));
            assertEquals(0, in.available());
        }
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] both = new byte[a.length + b.length];
        System.arraycopy(a, 0, both, 0, a.length);
        System.arraycopy(b, 0, both, a.length, b.length);
        return both;
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void largeTransferThroughStreams(Impl impl) throws Exception {
        int size = 4 << 20;
        try (Pair p = Pair.open(impl)) {
            try (BlockedCall<Void> reader = BlockedCall.start(() -> {
                InputStream in = p.accepted.socket().getInputStream();
                byte[] chunk = new byte[50_000];
                long done = 0;
                while (done < size) {
                    int n = in.read(chunk);
                    assertTrue(n > 0, "read " + n + " after " + done);
                    for (int i = 0; i < n; i++) {
                        if (chunk[i] != Bytes.at(done + i, 31)) {
                            throw new AssertionError("byte " + (done + i) + " is wrong");
                        }
                    }
                    done += n;
                }
                return null;
            })) {
                p.client.socket().getOutputStream().write(Bytes.array(0, size, 31));
                reader.get();
            }
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void streamsAfterShutdownAndClose(Impl impl) throws Exception {
        try (Pair p = Pair.open(impl); Pair twin = Pair.open(Impl.JDK)) {
            Socket s = p.client.socket();
            Socket t = twin.client.socket();
            InputStream in = s.getInputStream();
            OutputStream out = s.getOutputStream();
            InputStream tin = t.getInputStream();
            OutputStream tout = t.getOutputStream();
            p.accepted.write(ByteBuffer.wrap(new byte[] {1}));
            twin.accepted.write(ByteBuffer.wrap(new byte[] {1}));
            s.shutdownInput();
            t.shutdownInput();
            assertEquals(-1, in.read(), "input shut down, even with a byte waiting");
            assertLikeJdk(s, t, "available", x -> in.available(), x -> tin.available());
            assertLikeJdk(s, t, "getInputStream", x -> x.getInputStream() != null);
            s.shutdownOutput();
            t.shutdownOutput();
            assertLikeJdk(s, t, "write", x -> {
                out.write(1);
                return "written";
            }, x -> {
                tout.write(1);
                return "written";
            });
            assertLikeJdk(s, t, "getOutputStream", x -> x.getOutputStream() != null);
            assertLikeJdk(s, t, "shutdownInput again", x -> {
                x.shutdownInput();
                return "done";
            });
            in.close();
            tin.close();
            assertTrue(s.isClosed(), "closing a stream closes the socket");
            assertFalse(p.client.isOpen());
            assertLikeJdk(s, t, "read", x -> in.read(), x -> tin.read());
            assertLikeJdk(s, t, "available", x -> in.available(), x -> tin.available());
            assertLikeJdk(s, t, "write", x -> {
                out.write(1);
                return "written";
            }, x -> {
                tout.write(1);
                return "written";
            });
        }
        try (Pair p = Pair.open(impl)) {
            p.client.socket().getOutputStream().close();
            assertFalse(p.client.isOpen(), "closing the output stream closes the socket");
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void streamsNeedBlockingMode(Impl impl) throws Exception {
        try (Pair p = Pair.open(impl)) {
            InputStream in = p.client.socket().getInputStream();
            OutputStream out = p.client.socket().getOutputStream();
            p.client.configureBlocking(false);
            assertThrows(IllegalBlockingModeException.class, in::read);
            assertThrows(IllegalBlockingModeException.class, () -> in.read(new byte[4]));
            assertThrows(IllegalBlockingModeException.class, () -> out.write(1));
            assertThrows(IllegalBlockingModeException.class, () -> out.write(new byte[4]));
            assertEquals(0, in.available());
            p.client.configureBlocking(true);
            out.write(7);
            Bytes.assertReads(p.accepted, new byte[] {7});
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void readTimeout(Impl impl) throws Exception {
        try (Pair p = Pair.open(impl)) {
            Socket s = p.client.socket();
            s.setSoTimeout(300);
            assertEquals(300, s.getSoTimeout());
            InputStream in = s.getInputStream();
            for (int round = 0; round < 2; round++) {
                long t0 = System.nanoTime();
                SocketTimeoutException e = assertThrows(SocketTimeoutException.class, in::read);
                long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
                assertEquals("Read timed out", e.getMessage());
                assertTrue(took >= 250, "timed out after " + took + " ms");
                assertTrue(p.client.isOpen(), "a read time-out leaves the channel open");
                assertTrue(s.isConnected());
            }
            p.accepted.write(ByteBuffer.wrap(new byte[] {9, 8}));
            assertEquals(9, in.read(), "the socket still reads after time-outs");
            assertEquals(8, in.read());
            s.setSoTimeout(0);
            try (BlockedCall<Integer> read = BlockedCall.start(in::read)) {
                read.awaitBlockedIn(p.client);
                p.accepted.write(ByteBuffer.wrap(new byte[] {5}));
                assertEquals(5, read.get(), "no time-out: the read waits as long as it takes");
            }
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void interruptOfABlockedStreamRead(Impl impl) throws Exception {
        for (int timeout : new int[] {0, 60_000}) {
            try (Pair p = Pair.open(impl)) {
                p.client.socket().setSoTimeout(timeout);
                InputStream in = p.client.socket().getInputStream();
                try (BlockedCall<Integer> read = BlockedCall.start(in::read)) {
                    read.awaitBlockedIn(p.client);
                    read.thread.interrupt();
                    Throwable e = read.failure();
                    assertSame(ClosedByInterruptException.class, e.getClass(), "SO_TIMEOUT " + timeout + ": " + e);
                    assertTrue(read.interruptedAtEnd(), "the interrupt status stays set");
                    assertTrue(p.client.socket().isClosed());
                }
            }
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void connectWithATimeout(Impl impl) throws Exception {
        try (ServerSocketChannel server = impl.listen(Family.INET); SocketChannel ch = impl.openSocket()) {
            ch.socket().connect(server.getLocalAddress(), 10_000);
            assertTrue(ch.isConnected());
            assertTrue(ch.isBlocking());
        }
        try (FullBacklog full = FullBacklog.open(Family.INET); SocketChannel ch = impl.openSocket()) {
            long t0 = System.nanoTime();
            SocketTimeoutException e = assertThrows(SocketTimeoutException.class,
                    () -> ch.socket().connect(full.address, 300));
            long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
            assertEquals("Connect timed out", e.getMessage());
            assertTrue(took >= 250, "timed out after " + took + " ms");
            assertFalse(ch.isOpen(), "a connect time-out closes the channel");
            assertTrue(ch.socket().isClosed());
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void connectErrors(Impl impl) throws Exception {
        try (DeadPort deadPort = DeadPort.tcp(Family.INET.loopback());
                ServerSocketChannel server = impl.listen(Family.INET)) {
            InetSocketAddress dead = deadPort.address;
            SocketAddress live = server.getLocalAddress();
            Map<String, SocketCall> calls = new LinkedHashMap<>();
            calls.put("connect(null)", s -> connect(s, null, 0));
            calls.put("connect(live, -1)", s -> connect(s, live, -1));
            calls.put("connect(other kind of address)", s -> connect(s, new SocketAddress() {
            }, 0));
            calls.put("connect(dead)", s -> connect(s, dead, 0));
            calls.put("connect(dead, 5000)", s -> connect(s, dead, 5000));
            for (Map.Entry<String, SocketCall> call : calls.entrySet()) {
                try (SocketChannel ch = impl.openSocket(); SocketChannel twin = Impl.JDK.openSocket()) {
                    assertLikeJdk(ch.socket(), twin.socket(), call.getKey(), call.getValue());
                    assertEquals(twin.isOpen(), ch.isOpen(), "open after " + call.getKey());
                }
            }
            try (SocketChannel ch = impl.openSocket()) {
                ConnectException e = assertThrows(ConnectException.class, () -> ch.socket().connect(dead));
                assertEquals("Connection refused", e.getMessage());
                assertTrue(ch.socket().isClosed());
            }
            try (SocketChannel ch = impl.openSocket(); SocketChannel twin = Impl.JDK.openSocket()) {
                ch.socket().connect(live);
                twin.socket().connect(live);
                // Java 17 throws AlreadyConnectedException, later releases SocketException("Already connected")
                String later = Outcome.thrown(new SocketException("Already connected"));
                Outcome.assertJdkOrOtherRelease(Outcome.of(() -> connect(twin.socket(), live, 0)), later,
                        Outcome.of(() -> connect(ch.socket(), live, 0)), "connect when connected");
                Outcome.assertJdkOrOtherRelease(Outcome.of(() -> connect(twin.socket(), live, 100)), later,
                        Outcome.of(() -> connect(ch.socket(), live, 100)), "timed connect when connected");
                ch.close();
                twin.close();
                assertLikeJdk(ch.socket(), twin.socket(), "connect when closed", s -> connect(s, live, 0));
            }
            try (SocketChannel ch = impl.openSocket(); SocketChannel twin = Impl.JDK.openSocket()) {
                ch.configureBlocking(false);
                twin.configureBlocking(false);
                assertThrows(IllegalBlockingModeException.class, () -> ch.socket().connect(live));
                assertLikeJdk(ch.socket(), twin.socket(), "connect in non-blocking mode", s -> connect(s, live, 0));
            }
        }
    }

    /**
     * A connect to an address not resolved: JDK 25 closes the socket, as any failed connect does,
     * and names the host; 17 and 21 throw UnknownHostException without a message, and leave the
     * socket open. A lean socket does the former on every release, its closed and connected
     * states answered first.
     */
    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void connectToAnUnresolvedAddress(Impl impl) throws Exception {
        InetSocketAddress unresolved = InetSocketAddress.createUnresolved("host.invalid", 80);
        String unknown = UnknownHostException.class.getName() + ": " + unresolved + "; open false";
        try (ServerSocketChannel server = impl.listen(Family.INET)) {
            SocketAddress live = server.getLocalAddress();
            for (int timeout : new int[] {0, -1, 100}) {
                try (SocketChannel ch = impl.openSocket(); SocketChannel twin = Impl.JDK.openSocket()) {
                    assertUnresolvedConnectLikeJdk(ch, twin, unresolved, timeout, unknown, "timeout " + timeout);
                }
            }
            try (SocketChannel ch = impl.openSocket(); SocketChannel twin = Impl.JDK.openSocket()) {
                ch.close();
                twin.close();
                assertUnresolvedConnectLikeJdk(ch, twin, unresolved, 0,
                        SocketException.class.getName() + ": Socket is closed; open false", "closed");
            }
            try (SocketChannel ch = impl.openSocket(); SocketChannel twin = Impl.JDK.openSocket()) {
                ch.connect(live);
                twin.connect(live);
                assertUnresolvedConnectLikeJdk(ch, twin, unresolved, 0,
                        SocketException.class.getName() + ": Already connected; open true", "connected");
            }
        }
    }

    private static void assertUnresolvedConnectLikeJdk(SocketChannel ch, SocketChannel twin, SocketAddress unresolved,
            int timeout, String later, String what) {
        String jdk = Outcome.of(() -> connect(twin.socket(), unresolved, timeout)) + "; open " + twin.isOpen();
        String actual = Outcome.of(() -> connect(ch.socket(), unresolved, timeout)) + "; open " + ch.isOpen();
        Outcome.assertJdkOrOtherRelease(jdk, later, actual, "connect to an unresolved address, " + what);
    }

    private static String connect(Socket s, SocketAddress address, int timeout) throws Exception {
        if (timeout == 0) {
            s.connect(address);
        } else {
            s.connect(address, timeout);
        }
        return "connected";
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void bind(Impl impl) throws Exception {
        try (ServerSocketChannel taken = impl.listen(Family.INET)) {
            Map<String, SocketCall> calls = new LinkedHashMap<>();
            calls.put("bind(loopback)", s -> bind(s, Family.INET.loopback(0)) != null);
            calls.put("bind twice", s -> bind(bind(s, null), null));
            calls.put("bind(other kind of address)", s -> bind(s, new SocketAddress() {
            }));
            calls.put("bind(in use)", s -> bind(s, taken.getLocalAddress()));
            for (Map.Entry<String, SocketCall> call : calls.entrySet()) {
                try (SocketChannel ch = impl.openSocket(); SocketChannel twin = Impl.JDK.openSocket()) {
                    assertLikeJdk(ch.socket(), twin.socket(), call.getKey(), call.getValue());
                    assertEquals(twin.socket().isBound(), ch.socket().isBound(), "bound after " + call.getKey());
                }
            }
            try (SocketChannel ch = impl.openSocket(); SocketChannel twin = Impl.JDK.openSocket()) {
                ch.close();
                twin.close();
                assertLikeJdk(ch.socket(), twin.socket(), "bind when closed", s -> bind(s, null));
            }
        }
    }

    private static Socket bind(Socket s, SocketAddress address) throws Exception {
        s.bind(address);
        return s;
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void optionSetters(Impl impl) throws Exception {
        try (Pair p = Pair.open(impl); Pair twin = Pair.open(Impl.JDK)) {
            Socket s = p.client.socket();
            s.setTcpNoDelay(true);
            assertTrue(s.getTcpNoDelay());
            s.setSoLinger(true, 42);
            assertEquals(42, s.getSoLinger());
            s.setSoLinger(false, 42);
            assertEquals(-1, s.getSoLinger());
            s.setKeepAlive(true);
            assertTrue(s.getKeepAlive());
            s.setOOBInline(true);
            assertTrue(s.getOOBInline());
            s.setReuseAddress(true);
            assertTrue(s.getReuseAddress());
            assertThrows(IllegalArgumentException.class, () -> s.setSoTimeout(-1));
            assertThrows(IllegalArgumentException.class, () -> s.setReceiveBufferSize(0));
            assertThrows(IllegalArgumentException.class, () -> s.setSendBufferSize(-1));
            assertThrows(IllegalArgumentException.class, () -> s.setTrafficClass(256));
            for (boolean closed : new boolean[] {false, true}) {
                if (closed) {
                    p.client.close();
                    twin.client.close();
                }
                assertEquals(setters(twin.client.socket()), setters(s), closed ? "closed" : "connected");
            }
        }
        try (SocketChannel ch = impl.openSocket(); SocketChannel twin = Impl.JDK.openSocket()) {
            assertEquals(setters(twin.socket()), setters(ch.socket()), "unconnected");
        }
    }

    /** Each setter with good and bad values, each followed by the matching getter. */
    private static List<String> setters(Socket s) {
        List<String> outcomes = new ArrayList<>();
        for (int v : new int[] {0, 1, 1 << 16, 1 << 20, -1}) {
            outcomes.add("receive buffer " + v + ": " + Outcome.of(() -> {
                s.setReceiveBufferSize(v);
                return s.getReceiveBufferSize();
            }));
            outcomes.add("send buffer " + v + ": " + Outcome.of(() -> {
                s.setSendBufferSize(v);
                return s.getSendBufferSize();
            }));
            outcomes.add("so timeout " + v + ": " + Outcome.of(() -> {
                s.setSoTimeout(v);
                return s.getSoTimeout();
            }));
            outcomes.add("linger on " + v + ": " + Outcome.of(() -> {
                s.setSoLinger(true, v);
                return s.getSoLinger();
            }));
        }
        for (int v : new int[] {0x10, 0x20, 0, 255, 256, -1}) {
            outcomes.add("traffic class " + v + ": " + Outcome.of(() -> {
                s.setTrafficClass(v);
                return s.getTrafficClass();
            }));
        }
        outcomes.add("linger on 70000: " + Outcome.of(() -> {
            s.setSoLinger(true, 70_000);
            return s.getSoLinger();
        }));
        outcomes.add("linger off: " + Outcome.of(() -> {
            s.setSoLinger(false, 5);
            return s.getSoLinger();
        }));
        for (boolean on : new boolean[] {true, false}) {
            outcomes.add("no delay " + on + ": " + Outcome.of(() -> {
                s.setTcpNoDelay(on);
                return s.getTcpNoDelay();
            }));
            outcomes.add("keep alive " + on + ": " + Outcome.of(() -> {
                s.setKeepAlive(on);
                return s.getKeepAlive();
            }));
            outcomes.add("OOB inline " + on + ": " + Outcome.of(() -> {
                s.setOOBInline(on);
                return s.getOOBInline();
            }));
            outcomes.add("reuse address " + on + ": " + Outcome.of(() -> {
                s.setReuseAddress(on);
                return s.getReuseAddress();
            }));
        }
        outcomes.add("performance preferences: " + Outcome.ofRun(() -> s.setPerformancePreferences(1, 2, 3)));
        outcomes.add("supported options: " + Outcome.of(() -> s.supportedOptions().stream().map(o -> o.name()).sorted()
                .collect(Collectors.joining(","))));
        return outcomes;
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void urgentData(Impl impl) throws Exception {
        try (Pair p = Pair.open(impl); SocketChannel unconnected = impl.openSocket();
                SocketChannel twinUnconnected = Impl.JDK.openSocket()) {
            p.accepted.socket().setOOBInline(true);
            Socket s = p.client.socket();
            s.getOutputStream().write(1);
            s.sendUrgentData(0x141);
            s.getOutputStream().write(3);
            Bytes.assertReads(p.accepted, new byte[] {1, 0x41, 3});
            assertLikeJdk(unconnected.socket(), twinUnconnected.socket(), "urgent data unconnected", x -> {
                x.sendUrgentData(1);
                return "sent";
            });
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void urgentDataWithTheSendBufferFull(Impl impl) throws Exception {
        try (Pair p = Pair.open(impl)) {
            long written = Bytes.fillUntilFull(p.client, 50);
            Socket s = p.client.socket();
            assertEquals("java.io.IOException: Socket buffer full", Outcome.ofRun(() -> s.sendUrgentData(0)),
                    "non-blocking");
            p.client.configureBlocking(true);
            try (BlockedCall<String> send = BlockedCall.start(() -> Outcome.ofRun(() -> s.sendUrgentData(0)))) {
                send.awaitBlockedIn(p.client);
                Bytes.readAndCheck(p.accepted, 0, written, 50, false);
                assertEquals("returned normally", send.get(), "blocking: sent once there is room");
            }
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void closeEndsAnUrgentSendWaitingForRoom(Impl impl) throws Exception {
        try (Pair p = Pair.open(impl); BlockedCall<String> send = urgentSendWaitingForRoom(p)) {
            p.client.close();
            assertEquals("java.nio.channels.AsynchronousCloseException: null", send.get());
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void interruptEndsAnUrgentSendWaitingForRoom(Impl impl) throws Exception {
        try (Pair p = Pair.open(impl); BlockedCall<String> send = urgentSendWaitingForRoom(p)) {
            send.thread.interrupt();
            assertEquals("java.nio.channels.ClosedByInterruptException: null", send.get());
            assertTrue(send.interruptedAtEnd(), "the interrupt status stays set");
            assertFalse(p.client.isOpen(), "an interrupt closes the channel");
        }
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void urgentDataAfterThePeerReset(Impl impl) throws Exception {
        try (Pair p = Pair.open(impl)) {
            p.resetByAccepted();
            Socket s = p.client.socket();
            assertEquals("java.io.IOException: Connection reset by peer", Outcome.ofRun(() -> s.sendUrgentData(0)));
            assertEquals("java.io.IOException: Broken pipe", Outcome.ofRun(() -> s.sendUrgentData(0)), "and after");
            assertTrue(p.client.isOpen(), "a failed send does not close the channel");
        }
    }

    /** A platform thread's urgent send on {@code p.client}, blocked for want of room in the send buffer. */
    private static BlockedCall<String> urgentSendWaitingForRoom(Pair p) throws Exception {
        Bytes.fillUntilFull(p.client, 70);
        p.client.configureBlocking(true);
        Socket s = p.client.socket();
        return BlockedCall.start(() -> Outcome.ofRun(() -> s.sendUrgentData(0))).awaitBlockedIn(p.client);
    }

    private static void assertLikeJdk(Socket s, Socket twin, String what, SocketCall call) {
        assertLikeJdk(s, twin, what, call, call);
    }

    private static void assertLikeJdk(Socket s, Socket twin, String what, SocketCall call, SocketCall twinCall) {
        assertEquals(Outcome.of(() -> twinCall.call(twin)), Outcome.of(() -> call.call(s)), what);
    }

    @ParameterizedTest
    @MethodSource(Impl.ALL)
    void adaptorOfAnAcceptedSocket(Impl impl) throws Exception {
        try (ServerSocketChannel server = impl.listen(Family.INET); SocketChannel client = impl.openSocket()) {
            ServerSocket ss = server.socket();
            client.connect(server.getLocalAddress());
            try (Socket accepted = ss.accept()) {
                SocketChannel ch = accepted.getChannel();
                assertNotNull(ch, "a server channel's adaptor accepts sockets that have channels");
                assertSame(client.getClass(), ch.getClass());
                assertSame(accepted, ch.socket());
                assertTrue(ch.isBlocking());
                assertTrue(accepted.isConnected());
                assertEquals(client.getLocalAddress(), accepted.getRemoteSocketAddress());
                accepted.getOutputStream().write(77);
                ByteBuffer one = ByteBuffer.allocate(1);
                assertEquals(1, client.read(one));
                assertEquals(77, one.get(0));
            }
        }
    }
}
