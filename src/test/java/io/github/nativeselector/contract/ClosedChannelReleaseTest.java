/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.contract;

import static io.github.nativeselector.support.ContractChannels.bytes;
import static io.github.nativeselector.support.ContractChannels.writeFully;
import static io.github.nativeselector.support.ContractSupport.AWAIT_MS;
import static java.nio.channels.SelectionKey.OP_ACCEPT;
import static java.nio.channels.SelectionKey.OP_READ;
import static java.nio.channels.SelectionKey.OP_WRITE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.fail;

import io.github.nativeselector.support.ContractChannels;
import io.github.nativeselector.support.ContractChannels.PipePair;
import io.github.nativeselector.support.ContractChannels.SocketKind;
import io.github.nativeselector.support.ContractChannels.SocketPair;
import io.github.nativeselector.support.ContractSupport;
import io.github.nativeselector.support.TestSelectors;
import java.io.IOException;
import java.net.BindException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A registered channel's close is completed (its fd released) only once every selector has
 * deregistered it: each test first shows the fd still open, then that the next select releases
 * it. {@link WakeupInterruptCloseTest} runs the same cases with the selector's close instead.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ClosedChannelReleaseTest {

    private static final String ALL = ContractSupport.ALL;

    @ParameterizedTest
    @MethodSource(ALL)
    void closedPipeSinkIsReleasedByTheNextSelect(TestSelectors s) throws Exception {
        try (Selector sel = s.open(); PipePair p = PipePair.open()) {
            p.sink.configureBlocking(false);
            p.source.configureBlocking(false);
            p.sink.register(sel, OP_WRITE);
            assertEquals(1, sel.select(AWAIT_MS));
            p.sink.close();
            ContractChannels.assertNothingToRead(p.source);
            sel.selectNow();
            ContractChannels.assertEndOfStream(p.source);
        }
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void closedPipeSourceIsReleasedByTheNextSelect(TestSelectors s) throws Exception {
        try (Selector sel = s.open(); PipePair p = PipePair.open()) {
            p.source.configureBlocking(false);
            p.sink.configureBlocking(false);
            p.source.register(sel, OP_READ);
            assertEquals(0, sel.selectNow());
            p.source.close();
            assertEquals(1, p.sink.write(bytes(1)), "the reading end is still open");
            sel.selectNow();
            assertThrows(IOException.class, () -> p.sink.write(bytes(1)), "broken pipe");
        }
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void closedInetSocketIsReleasedByTheNextSelect(TestSelectors s) throws Exception {
        closedSocketIsReleased(s, SocketKind.INET, false);
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void closedUnixSocketIsReleasedByTheNextSelect(TestSelectors s) throws Exception {
        closedSocketIsReleased(s, SocketKind.UNIX, false);
    }

    /**
     * Closing a registered connected socket only shuts its output down; once the selector lets
     * go, the socket is really closed and the peer's writes fail (reset or broken pipe).
     */
    static void closedSocketIsReleased(TestSelectors s, SocketKind kind, boolean byClosingSelector)
            throws Exception {
        try (Selector sel = s.open(); SocketPair p = SocketPair.open(kind)) {
            writeFully(p.peer, 1); // unread data: the final close resets a TCP connection
            p.local.register(sel, OP_WRITE);
            assertEquals(1, sel.select(AWAIT_MS));
            p.local.close();
            assertEquals(-1, p.peer.read(ByteBuffer.allocate(1)), "output shut down at close");
            writeFully(p.peer, 1); // the socket is not closed yet
            if (byClosingSelector) {
                sel.close();
            } else {
                sel.selectNow();
            }
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(AWAIT_MS);
            while (true) {
                try {
                    writeFully(p.peer, 1);
                } catch (IOException expected) {
                    return;
                }
                if (System.nanoTime() > deadline) {
                    fail("peer can still write " + AWAIT_MS + " ms after the selector let go of the closed socket");
                }
                Thread.sleep(20);
            }
        }
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void closedServerSocketIsReleasedByTheNextSelect(TestSelectors s) throws Exception {
        closedServerSocketIsReleased(s, false);
    }

    static void closedServerSocketIsReleased(TestSelectors s, boolean byClosingSelector) throws Exception {
        try (Selector sel = s.open(); ServerSocketChannel ssc = ServerSocketChannel.open()) {
            ssc.bind(ContractChannels.loopback(0));
            InetSocketAddress address = (InetSocketAddress) ssc.getLocalAddress();
            ssc.configureBlocking(false);
            ssc.register(sel, OP_ACCEPT);
            assertEquals(0, sel.selectNow());
            ssc.close();
            if (byClosingSelector) {
                sel.close();
            } else {
                sel.selectNow();
            }
            assertThrows(ConnectException.class, () -> SocketChannel.open(address).close(),
                    "nothing listens on the port any more");
        }
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void closedDatagramChannelIsReleasedByTheNextSelect(TestSelectors s) throws Exception {
        closedDatagramChannelIsReleased(s, false);
    }

    static void closedDatagramChannelIsReleased(TestSelectors s, boolean byClosingSelector) throws Exception {
        try (Selector sel = s.open(); DatagramChannel dc = DatagramChannel.open()) {
            dc.bind(ContractChannels.loopback(0));
            InetSocketAddress address = (InetSocketAddress) dc.getLocalAddress();
            dc.configureBlocking(false);
            dc.register(sel, OP_READ);
            assertEquals(0, sel.selectNow());
            dc.close();
            try (DatagramChannel probe = DatagramChannel.open()) {
                assertThrows(BindException.class, () -> probe.bind(address), "port still held");
            }
            if (byClosingSelector) {
                sel.close();
            } else {
                sel.selectNow();
            }
            try (DatagramChannel again = DatagramChannel.open()) {
                again.bind(address);
            }
        }
    }
}
