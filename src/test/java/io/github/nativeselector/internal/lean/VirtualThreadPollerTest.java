/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.internal.lean;

import static io.github.nativeselector.support.ContractSupport.AWAIT_MS;
import static io.github.nativeselector.support.ContractSupport.awaitCondition;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.nativeselector.NativeSelectorProvider;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The error paths of the poller that virtual threads wait on, each on a poller of its own so that
 * the JVM's stays whole: a registration the kernel refuses, and a poller whose wait fails. The
 * waits run on platform threads, which park the same way, so this runs on Java 17 too.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class VirtualThreadPollerTest {

    private final ServerSocketChannel server;
    private final SocketChannel[] clients = new SocketChannel[2];
    private final SocketChannel[] accepted = new SocketChannel[2];

    VirtualThreadPollerTest() throws IOException {
        NativeSelectorProvider provider = new NativeSelectorProvider();
        server = LeanChannels.openServerSocketChannel(provider, StandardProtocolFamily.INET);
        server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        for (int i = 0; i < clients.length; i++) {
            clients[i] = LeanChannels.openSocketChannel(provider, StandardProtocolFamily.INET);
            clients[i].connect(server.getLocalAddress());
            accepted[i] = server.accept();
        }
    }

    @AfterEach
    void closeChannels() throws IOException {
        for (int i = 0; i < clients.length; i++) {
            clients[i].close();
            accepted[i].close();
        }
        server.close();
    }

    @Test
    void aRegistrationTheKernelRefusesFailsTheWaitAndLeavesNoWaiter() throws Exception {
        VirtualThreadPoller poller = VirtualThreadPoller.start();
        try {
            int notOpen = Integer.MAX_VALUE;
            IOException e = assertThrows(IOException.class, () -> poller.await(notOpen, Sockets.POLLIN, 0));
            assertTrue(String.valueOf(e.getMessage()).contains("Bad file descriptor"), e::toString);
            assertFalse(poller.hasWaiters(notOpen), "the waiter the kernel refused is gone");
            assertThrows(IllegalArgumentException.class, () -> poller.await(-1, Sockets.POLLIN, 0));
            assertFalse(poller.hasWaiters(-1), "the waiter with a negative descriptor is gone");

            int fd = fdOf(clients[0]);
            CompletableFuture<Void> wait = waitIn(poller, fd);
            awaitCondition(() -> poller.hasWaiters(fd), "the second waiter armed");
            accepted[0].write(ByteBuffer.wrap(new byte[] {1}));
            wait.get(AWAIT_MS, TimeUnit.MILLISECONDS);
            assertFalse(poller.hasWaiters(fd), "the woken waiter is gone");
        } finally {
            stop(poller, 1);
        }
    }

    @Test
    void aPollerWhoseWaitFailsWakesEveryWaiterAndFailsLaterWaits() throws Exception {
        VirtualThreadPoller poller = VirtualThreadPoller.start();
        int readyFd = fdOf(clients[0]);
        int quietFd = fdOf(clients[1]);
        CompletableFuture<Void> woken = waitIn(poller, readyFd);
        CompletableFuture<Void> stranded = waitIn(poller, quietFd);
        awaitCondition(() -> poller.hasWaiters(readyFd) && poller.hasWaiters(quietFd), "both waiters armed");

        // The wait under way keeps the closed set alive; the next one fails with EBADF.
        stop(poller, 0);
        woken.get(AWAIT_MS, TimeUnit.MILLISECONDS);
        stranded.get(AWAIT_MS, TimeUnit.MILLISECONDS);
        assertFalse(poller.hasWaiters(quietFd), "the waiter woken by the failure is gone");

        IOException later = assertThrows(IOException.class, () -> poller.await(quietFd, Sockets.POLLIN, 0));
        assertTrue(later.getMessage().startsWith("the virtual-thread poller failed"), later::toString);
        assertNotNull(later.getCause(), "the poller's own failure is the cause");
        assertFalse(poller.hasWaiters(quietFd), "a wait refused after the failure leaves no waiter");
    }

    /** A platform thread waiting on {@code poller} for {@code fd} to be readable. */
    private static CompletableFuture<Void> waitIn(VirtualThreadPoller poller, int fd) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        Thread thread = new Thread(() -> {
            try {
                poller.await(fd, Sockets.POLLIN, 0);
                done.complete(null);
            } catch (Throwable e) {
                done.completeExceptionally(e);
            }
        }, "poller-waiter-" + fd);
        thread.setDaemon(true);
        thread.start();
        return done;
    }

    /**
     * Ends the poller's thread: its epoll set is closed while a waiter has {@code clients[index]}
     * armed, and that socket is made readable, which ends the wait under way; the next one fails.
     */
    private void stop(VirtualThreadPoller poller, int index) throws Exception {
        int fd = fdOf(clients[index]);
        CompletableFuture<Void> wait = poller.hasWaiters(fd) ? null : waitIn(poller, fd);
        awaitCondition(() -> poller.hasWaiters(fd), "a waiter on the socket that stops the poller");
        Sockets.close(poller.epfd);
        accepted[index].write(ByteBuffer.wrap(new byte[] {2}));
        if (wait != null) {
            wait.get(AWAIT_MS, TimeUnit.MILLISECONDS);
        }
    }

    private static int fdOf(SocketChannel channel) {
        return ((LeanChannel) channel).fdVal();
    }
}
