/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.internal;

import static io.github.nativeselector.support.CloseReuseFds.count;
import static io.github.nativeselector.support.CloseReuseFds.singleOpened;
import static io.github.nativeselector.support.CloseReuseFds.snapshot;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.nativeselector.NativeSelectorProvider;
import io.github.nativeselector.internal.lean.LeanChannels;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import java.nio.channels.Pipe;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Backends that fail: a batch the backend cannot apply, at a threshold flush, in a flush handed
 * to the selector thread and in removals of cancelled keys. A failure reaches the caller; the
 * queue stays consistent, every change is sent again until it is applied, a cancelled key stays
 * registered (its channel's fd open) until the kernel has dropped it, and the wakeup latch stays
 * in step with the kernel's wakeup object. A lean channel whose close cannot take its descriptor
 * out of the kernel at once (refused, or a backend that takes no change while it polls) keeps it
 * open for the selector's own removal, its peer told of the close all the same.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ChangeFailureTest {

    private static final long AWAIT_MS = 5_000;

    private final List<Pipe> pipes = new ArrayList<>();

    enum Kind {
        EPOLL, IO_URING, POLLSET;

        Backend open() throws IOException {
            return NativeBackend.open(BackendChoice.valueOf(name()), NativeSelector.READY_CAPACITY, true);
        }

        /** The backend behind a wrapper that fails on request, applying during a poll as it does. */
        FailingBackend failing() throws IOException {
            Backend backend = open();
            return new FailingBackend(backend, backend.appliesDuringPoll());
        }
    }

    static Stream<Kind> kinds() {
        return Stream.of(Kind.values());
    }

    @AfterEach
    void closePipes() throws IOException {
        for (Pipe pipe : pipes) {
            pipe.source().close();
            pipe.sink().close();
        }
    }

    private static NativeSelector open(FailingBackend backend, int threshold) {
        return new NativeSelector(NativeSelectorProvider.provider(), backend, threshold, false);
    }

    /** A pipe whose source is readable, non-blocking. */
    private Pipe readablePipe() throws IOException {
        Pipe pipe = Pipe.open();
        pipes.add(pipe);
        pipe.source().configureBlocking(false);
        pipe.sink().write(ByteBuffer.wrap(new byte[] {1}));
        return pipe;
    }

    private List<SelectionKey> registerReadable(Selector selector, int count) throws IOException {
        List<SelectionKey> keys = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            keys.add(readablePipe().source().register(selector, SelectionKey.OP_READ));
        }
        return keys;
    }

    /** Selects until every key has been selected at least once; fails after a bound. */
    private static void awaitAllSelected(Selector selector, List<SelectionKey> keys) throws IOException {
        Set<SelectionKey> seen = new HashSet<>();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(AWAIT_MS);
        while (!seen.containsAll(keys) && System.nanoTime() < deadline) {
            selector.select(seen::add, 100);
        }
        assertTrue(seen.containsAll(keys), () -> (keys.size() - seen.size()) + " of " + keys.size()
                + " keys were never selected: their registration was lost");
    }

    /** {@code select(timeout)} on another thread. */
    private static CompletableFuture<Integer> selectAsync(Selector selector, long timeout) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return selector.select(timeout);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
    }

    /** A select on another thread, returned once its poll is held until {@link #release}. */
    private static CompletableFuture<Integer> selectWithPollHeld(Selector selector, FailingBackend backend,
            CountDownLatch released) throws InterruptedException {
        CountDownLatch entered = new CountDownLatch(1);
        backend.pollEntered = entered;
        backend.pollReleased = released;
        CompletableFuture<Integer> select = selectAsync(selector, AWAIT_MS * 4);
        assertTrue(entered.await(AWAIT_MS, TimeUnit.MILLISECONDS), "the select never polled");
        return select;
    }

    /** With nothing ready, a {@code select()} blocked (or about to block) ends with a {@code wakeup()}. */
    private static void assertWakeupEndsABlockedSelect(Selector selector) throws Exception {
        CompletableFuture<Integer> blocked = selectAsync(selector, 0);
        selector.wakeup();
        assertEquals(0, blocked.get(AWAIT_MS, TimeUnit.MILLISECONDS), "the select was not woken");
    }

    /** Lets the held poll go on; later polls are not held. */
    private static void release(FailingBackend backend, CountDownLatch released) {
        backend.pollEntered = null;
        backend.pollReleased = null;
        released.countDown();
    }

    /**
     * Changes the kernel refuses at threshold flushes between two selects, whose threads cannot
     * be told: the next select reports them all, the first with the later ones suppressed in it,
     * up to {@link ChangeQueue#MAX_DEFERRED_SUPPRESSED} of them (the later ones were dropped).
     */
    @ParameterizedTest
    @MethodSource("kinds")
    void changesRefusedBetweenSelectsAreAllReportedByTheNext(Kind kind) throws Exception {
        FailingBackend backend = kind.failing();
        List<Integer> fds = new ArrayList<>();
        Set<Integer> refused = ConcurrentHashMap.newKeySet();
        backend.refuseFd = refused::contains;
        try (NativeSelector selector = open(backend, 1)) {
            for (int i = 0; i < ChangeQueue.MAX_DEFERRED_SUPPRESSED + 3; i++) {
                Pipe pipe = readablePipe();
                int fd = JdkChannels.fd(pipe.source());
                fds.add(fd);
                refused.add(fd);
                pipe.source().register(selector, SelectionKey.OP_READ);
            }
            IOException failure = assertThrows(IOException.class, selector::selectNow);
            assertTrue(failure.getMessage().contains("of fd " + fds.get(0) + " failed"), failure::toString);
            Throwable[] later = failure.getSuppressed();
            assertEquals(ChangeQueue.MAX_DEFERRED_SUPPRESSED, later.length, failure::toString);
            for (int i = 0; i < later.length; i++) {
                assertTrue(later[i].getMessage().contains("of fd " + fds.get(i + 1) + " failed"), later[i]::toString);
            }
            // Reported once: the next select does not throw them again.
            selector.selectNow();
        }
    }

    @ParameterizedTest
    @MethodSource("kinds")
    void aFailedFlushIsSentAgainByTheNextSelect(Kind kind) throws Exception {
        FailingBackend backend = kind.failing();
        try (NativeSelector selector = open(backend, 64)) {
            List<SelectionKey> keys = registerReadable(selector, 3);
            backend.failApplies(1);
            IOException e = assertThrows(IOException.class, () -> selector.select(AWAIT_MS));
            assertTrue(e.getMessage().contains("injected"), e::toString);
            awaitAllSelected(selector, keys);
        }
    }

    @ParameterizedTest
    @MethodSource("kinds")
    void aFailedThresholdFlushIsReportedBySelectAndSentAgain(Kind kind) throws Exception {
        FailingBackend backend = kind.failing();
        try (NativeSelector selector = open(backend, 4)) {
            backend.failApplies(1);
            List<SelectionKey> keys = registerReadable(selector, 10);
            IOException e = assertThrows(IOException.class, () -> selector.selectNow());
            assertTrue(e.getMessage().contains("injected"), e::toString);
            awaitAllSelected(selector, keys);
        }
    }

    /**
     * A flush handed to the selector thread during its poll, larger than a batch, whose first
     * batch fails: the queue must not keep emptied slots behind a stale size.
     */
    @ParameterizedTest
    @MethodSource("kinds")
    void aFailedHandedOverFlushLeavesTheQueueConsistent(Kind kind) throws Exception {
        FailingBackend backend = new FailingBackend(kind.open(), false);
        try (NativeSelector selector = open(backend, 64)) {
            CountDownLatch released = new CountDownLatch(1);
            CompletableFuture<Integer> select = selectWithPollHeld(selector, backend, released);
            List<SelectionKey> keys = registerReadable(selector, 100);
            selector.wakeup();
            backend.failApplies(1);
            release(backend, released);
            Throwable failure = assertThrows(Exception.class, () -> select.get(AWAIT_MS, TimeUnit.MILLISECONDS));
            assertTrue(String.valueOf(failure.getCause()).contains("injected"), failure::toString);
            awaitAllSelected(selector, keys);
            for (SelectionKey key : keys) {
                key.cancel();
            }
            selector.selectNow();
            assertWakeupEndsABlockedSelect(selector);
        }
    }

    /**
     * Cancelled keys beyond one batch whose first removal batch fails: the later batches are
     * still removed, the failed keys stay registered with their channels' fds open, and the
     * next select removes them; a key registered meanwhile is polled.
     */
    @ParameterizedTest
    @MethodSource("kinds")
    void aFailedRemovalKeepsItsKeysUntilTheKernelHasDroppedThem(Kind kind) throws Exception {
        FailingBackend backend = kind.failing();
        try (NativeSelector selector = open(backend, 64)) {
            List<SelectionKey> keys = registerReadable(selector, 100);
            awaitAllSelected(selector, keys);
            for (SelectionKey key : keys) {
                key.cancel();
                key.channel().close();
            }
            backend.applySizes.clear();
            backend.failApplies(1);
            IOException e = assertThrows(IOException.class, () -> selector.selectNow());
            assertTrue(e.getMessage().contains("injected"), e::toString);
            assertEquals(List.of(64, 36), backend.applySizes, "removal batches after the failed one were not sent");
            long stillRegistered = keys.stream().filter(key -> key.channel().isRegistered()).count();
            assertEquals(64, stillRegistered, "keys whose removal failed must stay registered, the others not");
            assertTrue(selector.keys().stream().allMatch(key -> key.channel().isRegistered()));
            assertEquals(64, selector.keys().size());
            List<SelectionKey> fresh = registerReadable(selector, 3);
            awaitAllSelected(selector, fresh);
            for (SelectionKey key : keys) {
                assertFalse(key.channel().isRegistered());
            }
            assertEquals(new HashSet<>(fresh), selector.keys());
        }
    }

    /**
     * A select's removals and its queued changes go in one batch; when it fails, the cancelled
     * keys stay registered and the queued ones are queued again, and the next select sends both.
     */
    @ParameterizedTest
    @MethodSource("kinds")
    void aFailedBatchOfRemovalsAndQueuedChangesIsSentAgainWhole(Kind kind) throws Exception {
        FailingBackend backend = kind.failing();
        try (NativeSelector selector = open(backend, 64)) {
            List<SelectionKey> old = registerReadable(selector, 3);
            awaitAllSelected(selector, old);
            for (SelectionKey key : old) {
                key.cancel();
                key.channel().close();
            }
            List<SelectionKey> fresh = registerReadable(selector, 3);
            backend.applySizes.clear();
            backend.failApplies(1);
            IOException e = assertThrows(IOException.class, () -> selector.selectNow());
            assertTrue(e.getMessage().contains("injected"), e::toString);
            assertEquals(List.of(6), backend.applySizes, "the removals and the queued changes in one batch");
            assertTrue(old.stream().allMatch(key -> key.channel().isRegistered()),
                    "keys whose removal failed must stay registered");
            awaitAllSelected(selector, fresh);
            for (SelectionKey key : old) {
                assertFalse(key.channel().isRegistered());
            }
            assertEquals(new HashSet<>(fresh), selector.keys());
        }
    }

    /**
     * A flush handed to a polling selector thread whose wakeup fails: the failure reaches the
     * select, and the next change at the threshold wakes the poll again rather than leave the
     * queued changes out of the kernel for as long as it waits.
     */
    @ParameterizedTest
    @MethodSource("kinds")
    void aFailedHandOffWakeupIsTriedAgainByTheNextChange(Kind kind) throws Exception {
        FailingBackend backend = new FailingBackend(kind.open(), false);
        try (NativeSelector selector = open(backend, 4)) {
            CountDownLatch released = new CountDownLatch(1);
            CompletableFuture<Integer> select = selectWithPollHeld(selector, backend, released);
            backend.failWakeups = true;
            List<SelectionKey> keys = registerReadable(selector, 4);
            backend.failWakeups = false;
            release(backend, released);
            keys.addAll(registerReadable(selector, 1));
            Throwable failure = assertThrows(ExecutionException.class, () -> select.get(AWAIT_MS, TimeUnit.MILLISECONDS),
                    "the select still waits: the changes were never handed to it");
            assertTrue(String.valueOf(failure.getCause()).contains("injected failure of wakeup"), failure::toString);
            awaitAllSelected(selector, keys);
        }
    }

    /** A close whose wakeup fails still releases what the selector holds, then reports the failure. */
    @ParameterizedTest
    @MethodSource("kinds")
    void aFailedWakeupStillClosesTheSelector(Kind kind) throws Exception {
        FailingBackend backend = kind.failing();
        NativeSelector selector = open(backend, 64);
        List<SelectionKey> keys = registerReadable(selector, 2);
        awaitAllSelected(selector, keys);
        keys.get(0).channel().close();
        backend.failWakeups = true;
        UncheckedIOException e = assertThrows(UncheckedIOException.class, selector::close);
        assertTrue(e.getCause().getMessage().contains("injected"), e::toString);
        assertFalse(selector.isOpen());
        for (SelectionKey key : keys) {
            assertFalse(key.isValid());
            assertFalse(key.channel().isRegistered(), "the close deregistered every key");
        }
    }

    /** A poll that a signal ended made a system call: it is not counted as one that made none. */
    @ParameterizedTest
    @MethodSource("kinds")
    void aPollEndedByASignalIsCountedAsOneWithASystemCall(Kind kind) throws Exception {
        FailingBackend backend = kind.failing();
        try (NativeSelector selector = open(backend, 64)) {
            CounterSnapshot before = selector.counterSnapshot();
            backend.interruptedPolls.set(1);
            assertEquals(0, selector.select(20));
            CounterSnapshot after = selector.counterSnapshot();
            assertEquals(2, after.polls() - before.polls(), "the interrupted poll and the one after it");
            assertEquals(0, after.pollsWithoutSyscall() - before.pollsWithoutSyscall());
        }
    }

    /** A removal failing after the poll, with a wakeup in the same answer: the latch must not stay set. */
    @ParameterizedTest
    @MethodSource("kinds")
    void aFailedRemovalAfterThePollKeepsTheWakeupLatchInStep(Kind kind) throws Exception {
        FailingBackend backend = kind.failing();
        try (NativeSelector selector = open(backend, 64)) {
            Pipe idle = Pipe.open();
            pipes.add(idle);
            idle.source().configureBlocking(false);
            SelectionKey key = idle.source().register(selector, SelectionKey.OP_READ);
            assertEquals(0, selector.selectNow());
            CountDownLatch released = new CountDownLatch(1);
            CompletableFuture<Integer> select = selectWithPollHeld(selector, backend, released);
            key.cancel();
            selector.wakeup();
            backend.failApplies(1);
            release(backend, released);
            Throwable failure = assertThrows(ExecutionException.class, () -> select.get(AWAIT_MS, TimeUnit.MILLISECONDS));
            assertTrue(String.valueOf(failure.getCause()).contains("injected"), failure::toString);
            assertWakeupEndsABlockedSelect(selector);
        }
    }

    /**
     * The cleaner closes the backend of a selector nobody references; never while a call of
     * that selector is still in the backend, however soon after the call began the selector
     * became unreachable.
     */
    @ParameterizedTest
    @MethodSource("kinds")
    void theCleanerNeverClosesABackendDuringACall(Kind kind) throws Exception {
        for (int round = 0; round < 20; round++) {
            FailingBackend backend = kind.failing();
            // Not a wait for an event: collections during the call give the cleaner its chance to
            // close the backend under it, should the selector be unreachable by then.
            backend.duringWakeup = () -> {
                for (int i = 0; i < 5 && !backend.closedDuringCall; i++) {
                    System.gc();
                    try {
                        Thread.sleep(2);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            };
            open(backend, 64).wakeup();
            assertFalse(backend.closedDuringCall, "the backend was closed during wakeup()");
            // Without a cleaner that closes this backend once the selector is unreachable, the
            // check above could not fail.
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(AWAIT_MS);
            while (!backend.closed) {
                assertTrue(System.nanoTime() < deadline,
                        "the cleaner did not close the backend of an unreachable selector within " + AWAIT_MS + " ms");
                System.gc();
                Thread.sleep(10);
            }
        }
    }

    /**
     * A lean channel accepted on loopback, registered for reads (reaching the kernel), and read
     * to the end of its peer's stream.
     */
    private static final class LeanConnection implements AutoCloseable {
        final ServerSocketChannel server;
        final SocketChannel client;
        final SocketChannel accepted;
        /** The accepted socket's entry in /proc/self/fd, to count. */
        final String file;
        final SelectionKey key;

        LeanConnection(NativeSelector selector) throws IOException {
            NativeSelectorProvider provider = NativeSelectorProvider.provider();
            server = LeanChannels.openServerSocketChannel(provider, StandardProtocolFamily.INET);
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            client = LeanChannels.openSocketChannel(provider, StandardProtocolFamily.INET);
            client.connect(server.getLocalAddress());
            Map<Integer, String> before = snapshot();
            accepted = server.accept();
            file = snapshot().get(singleOpened(before, snapshot()));
            accepted.configureBlocking(false);
            key = accepted.register(selector, SelectionKey.OP_READ);
            selector.selectNow();
            client.shutdownOutput();
            // Read to the end, as a server before it closes: with nothing unread, a lean channel's
            // close takes the descriptor out of the kernel itself.
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(AWAIT_MS);
            while (accepted.read(ByteBuffer.allocate(1)) == 0) {
                assertTrue(System.nanoTime() < deadline, "no end of stream");
                LockSupport.parkNanos(1_000_000);
            }
        }

        /** The closed channel's peer reads end of stream, and its descriptor is open still. */
        void assertPeerToldAndDescriptorKept() throws IOException {
            assertEquals(-1, client.read(ByteBuffer.allocate(8)), "the peer sees the close at once all the same");
            assertEquals(1, count(file), "the descriptor waits for the selector's removal");
        }

        /** After the selector's removal: nothing left of the channel. */
        void assertReleasedBy(Selector selector) throws IOException {
            assertFalse(selector.keys().contains(key));
            assertFalse(accepted.isRegistered());
            assertEquals(0, count(file), "the selector's removal released the descriptor");
        }

        @Override
        public void close() throws IOException {
            accepted.close();
            client.close();
            server.close();
        }
    }

    @ParameterizedTest
    @MethodSource("kinds")
    void aLeanChannelWhoseRemovalAtCloseFailsIsReleasedByTheNextSelect(Kind kind) throws Exception {
        FailingBackend backend = kind.failing();
        try (NativeSelector selector = open(backend, 64); LeanConnection connection = new LeanConnection(selector)) {
            backend.failApplies(1);
            connection.accepted.close();
            connection.assertPeerToldAndDescriptorKept();
            assertEquals(0, selector.selectNow());
            connection.assertReleasedBy(selector);
        }
    }

    /**
     * A cancelled key whose removal the kernel refused, and whose channel's close then takes it
     * out of the kernel: it keeps its slot until the next select, which frees it and deregisters
     * the key, and the kernel is asked nothing more for it. (A close that lands between a select's
     * removal and its deregistration loop, which the selector must leave to the next select too,
     * has no point a test can stop the selector at.)
     */
    @ParameterizedTest
    @MethodSource("kinds")
    void aRefusedRemovalThatTheChannelsCloseMakesIsFinishedByTheNextSelect(Kind kind) throws Exception {
        FailingBackend backend = kind.failing();
        try (NativeSelector selector = open(backend, 64); LeanConnection connection = new LeanConnection(selector)) {
            NativeSelectionKey key = (NativeSelectionKey) connection.key;
            key.cancel();
            backend.failApplies(1);
            IOException e = assertThrows(IOException.class, () -> selector.selectNow());
            assertTrue(e.getMessage().contains("injected"), e::toString);
            assertTrue(key.slot >= 0, "a refused key keeps its slot");
            assertTrue(connection.accepted.isRegistered());
            connection.accepted.close();
            assertTrue(key.isOutOfKernel(), "the close took the key out of the kernel");
            backend.applySizes.clear();
            assertEquals(0, selector.selectNow());
            assertEquals(List.of(), backend.applySizes, "the key was out of the kernel already");
            assertEquals(-1, key.slot, "the select freed the key's slot");
            connection.assertReleasedBy(selector);
        }
    }

    @ParameterizedTest
    @MethodSource("kinds")
    void aLeanChannelClosedWhileABackendThatTakesNoChangesPollsWaitsForThePoll(Kind kind) throws Exception {
        FailingBackend backend = new FailingBackend(kind.open(), false);
        try (NativeSelector selector = open(backend, 64); LeanConnection connection = new LeanConnection(selector)) {
            CountDownLatch released = new CountDownLatch(1);
            CompletableFuture<Integer> select = selectWithPollHeld(selector, backend, released);
            connection.accepted.close();
            connection.assertPeerToldAndDescriptorKept();
            release(backend, released);
            selector.wakeup();
            select.get(AWAIT_MS, TimeUnit.MILLISECONDS);
            selector.selectNow();
            connection.assertReleasedBy(selector);
        }
    }
}
