/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.install;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.nativeselector.NativeSelectorProvider;
import io.github.nativeselector.SelectorStats;
import io.github.nativeselector.internal.NativeSelector;
import io.github.nativeselector.support.InstallChild;
import java.io.IOException;
import java.net.ProtocolFamily;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.spi.AbstractSelector;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Netty 4.1's NIO transport, unmodified, on our provider: in this JVM, and in a child JVM under the flag. */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class NettyEchoTest {

    private static final int CONNECTIONS = 50;
    private static final int MESSAGES_PER_CONNECTION = 20;

    /** Our provider, remembering the selectors it opened and counting the channels. */
    static final class RecordingProvider extends NativeSelectorProvider {
        final List<AbstractSelector> opened = Collections.synchronizedList(new ArrayList<>());
        final AtomicInteger socketChannels = new AtomicInteger();
        final AtomicInteger serverSocketChannels = new AtomicInteger();

        @Override
        public AbstractSelector openSelector() throws IOException {
            AbstractSelector selector = super.openSelector();
            opened.add(selector);
            return selector;
        }

        @Override
        public SocketChannel openSocketChannel() throws IOException {
            socketChannels.incrementAndGet();
            return super.openSocketChannel();
        }

        @Override
        public SocketChannel openSocketChannel(ProtocolFamily family) throws IOException {
            socketChannels.incrementAndGet();
            return super.openSocketChannel(family);
        }

        @Override
        public ServerSocketChannel openServerSocketChannel() throws IOException {
            serverSocketChannels.incrementAndGet();
            return super.openServerSocketChannel();
        }

        @Override
        public ServerSocketChannel openServerSocketChannel(ProtocolFamily family) throws IOException {
            serverSocketChannels.incrementAndGet();
            return super.openServerSocketChannel(family);
        }
    }

    @Test
    void nettyEchoesEveryByteOnOurSelectors() throws Exception {
        String savedBackend = System.clearProperty("nativeselector.backend");
        try {
            RecordingProvider serverProvider = new RecordingProvider();
            RecordingProvider clientProvider = new RecordingProvider();
            EchoNetty.Outcome outcome = EchoNetty.run(serverProvider, clientProvider, CONNECTIONS,
                    MESSAGES_PER_CONNECTION, 7);

            assertEquals(List.of(), outcome.failures());
            assertEquals(CONNECTIONS, outcome.connectionsDone());
            assertEquals(CONNECTIONS * MESSAGES_PER_CONNECTION, outcome.messagesEchoed());
            assertTrue(outcome.bytesEchoed() > CONNECTIONS * 256L * 1024, "bytes echoed: " + outcome.bytesEchoed());

            // Netty opened its selectors and channels through our provider...
            assertEquals(1, serverProvider.opened.size(), "one server event loop, one selector");
            assertEquals(2, clientProvider.opened.size(), "two client event loops, two selectors");
            assertEquals(1, serverProvider.serverSocketChannels.get());
            assertEquals(CONNECTIONS, clientProvider.socketChannels.get());
            // ...and the selectors its loops use are the ones we opened.
            assertSame(serverProvider.opened.get(0), outcome.serverSelectors().get(0));
            assertEquals(new HashSet<Selector>(clientProvider.opened), new HashSet<>(outcome.clientSelectors()));

            // Our selectors did the work.
            SelectorStats server = nativeStats(serverProvider.opened.get(0));
            assertTrue(server.polls() > 0, server.toString());
            assertTrue(server.readyEvents() >= CONNECTIONS * MESSAGES_PER_CONNECTION,
                    "the server must wait for each message of the ping-pong: " + server);
            assertTrue(server.changesApplied() >= CONNECTIONS + 1, "registrations: " + server);
            long clientReady = 0;
            for (AbstractSelector selector : clientProvider.opened) {
                SelectorStats client = nativeStats(selector);
                assertTrue(client.polls() > 0, client.toString());
                assertTrue(client.readyEvents() > 0, client.toString());
                clientReady += client.readyEvents();
            }
            assertTrue(clientReady >= CONNECTIONS * MESSAGES_PER_CONNECTION, "client ready events: " + clientReady);
            for (AbstractSelector selector : serverProvider.opened) {
                assertFalse(selector.isOpen(), "Netty's shutdown closed the selector");
            }
            for (AbstractSelector selector : clientProvider.opened) {
                assertFalse(selector.isOpen(), "Netty's shutdown closed the selector");
            }
        } finally {
            if (savedBackend != null) {
                System.setProperty("nativeselector.backend", savedBackend);
            }
        }
    }

    @Test
    void nettyOnItsDefaultsUsesOurSelectorUnderTheFlagInAChildJvm() throws Exception {
        InstallChild.Result child = InstallChild.run(List.of(InstallChild.FLAG), EchoNetty.class,
                String.valueOf(CONNECTIONS), String.valueOf(MESSAGES_PER_CONNECTION));
        assertEquals(0, child.exitCode(), child::toString);
        assertEquals("[]", child.value("failures"), child::toString);
        assertEquals(String.valueOf(CONNECTIONS), child.value("connections"), child::toString);
        assertEquals(String.valueOf(CONNECTIONS * MESSAGES_PER_CONNECTION), child.value("messages"), child::toString);
        assertEquals(NativeSelectorProvider.class.getName(), child.value("providers"), child::toString);
        assertEquals(NativeSelector.class.getName(), child.value("selectors"), child::toString);
        String[] server = child.value("server").split(":");
        assertEquals(2, server.length, child::toString);
        assertTrue(Long.parseLong(server[0]) > 0, child::toString);
        assertTrue(Long.parseLong(server[1]) >= CONNECTIONS * MESSAGES_PER_CONNECTION, child::toString);
        String[] clients = child.value("client").split(",");
        assertEquals(2, clients.length, child::toString);
        for (String client : clients) {
            String[] counts = client.split(":");
            assertTrue(Long.parseLong(counts[0]) > 0 && Long.parseLong(counts[1]) > 0, child::toString);
        }
    }

    private static SelectorStats nativeStats(Selector selector) {
        assertInstanceOf(NativeSelector.class, selector);
        Optional<SelectorStats> stats = SelectorStats.of(selector);
        assertTrue(stats.isPresent());
        return stats.get();
    }
}
