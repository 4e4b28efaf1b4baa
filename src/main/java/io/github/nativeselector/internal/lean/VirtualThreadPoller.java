/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.internal.lean;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Where virtual threads wait for their sockets: a private epoll set, watched by one daemon
 * platform thread, on which a waiter arms its descriptor one-shot (EPOLLONESHOT) and then parks.
 * When the descriptor fires, every thread waiting for it is unparked and each tries its operation
 * again; one that still cannot proceed arms again. A virtual thread thus never blocks its carrier
 * in a system call. A channel that is closed or shut down under its waiters shuts the socket
 * down, which makes it ready for all of them and so fires their registration: they are woken here
 * like any other. A registration left behind by waiters that have gone is disabled once it fires,
 * and the kernel drops it when the socket is closed.
 *
 * <p>All waiters of a descriptor are woken, whichever event fired, because a reader and a writer
 * share one registration: the events armed are the union of theirs, and the one not served must
 * arm again or it would sleep on a disabled registration.
 *
 * <p>Locking: {@code lock} guards {@code waiters} and {@code failure}, and is held around arming
 * so that a registration never lacks the events of a waiter in the map. No thread parks or
 * unparks while holding it: on Java 21, unparking a virtual thread pinned to its carrier takes
 * that thread's interrupt lock, which {@code Thread.interrupt} holds while it closes the thread's
 * channel, so the unparking thread may wait on that close, and must not make every waiter, nor
 * the poller's own thread, wait with it. The poller's thread is started once, under the class's
 * {@code START} lock.
 */
final class VirtualThreadPoller {

    private static final String THREAD_NAME = "nativeselector-lean-poller";
    private static final int BATCH = 256;

    private static final ReentrantLock START = new ReentrantLock();
    private static volatile VirtualThreadPoller started;

    /** The epoll set; package-private so that a test can make the poller's wait fail. */
    final int epfd;
    private final ReentrantLock lock = new ReentrantLock();
    private final Map<Integer, List<Waiter>> waiters = new HashMap<>();
    private Throwable failure;
    /** The threads a batch of ready descriptors wakes; the poller's thread's alone. */
    private final List<Thread> woken = new ArrayList<>();

    /** A parked thread and what it waits for. */
    private record Waiter(Thread thread, int events) {
    }

    private VirtualThreadPoller(int epfd) {
        this.epfd = epfd;
    }

    /** The JVM's poller, started on first use. */
    static VirtualThreadPoller get() throws IOException {
        VirtualThreadPoller poller = started;
        if (poller != null) {
            return poller;
        }
        START.lock();
        try {
            if (started == null) {
                started = start();
            }
            return started;
        } finally {
            START.unlock();
        }
    }

    /** A new poller on an epoll set of its own, with its thread running. */
    static VirtualThreadPoller start() throws IOException {
        VirtualThreadPoller poller = new VirtualThreadPoller(Sockets.pollerCreate());
        Thread thread = new Thread(null, poller::run, THREAD_NAME, 0, false);
        thread.setDaemon(true);
        // It may outlive whoever started it (the JVM's lives as long as the JVM): it must not keep their class loader.
        thread.setContextClassLoader(null);
        thread.start();
        return poller;
    }

    /**
     * Parks the current thread until {@code fd} may be ready for {@code events} (Sockets.POLLIN,
     * POLLOUT), for at most {@code nanos} when more than 0. May return early: the caller checks.
     */
    void await(int fd, int events, long nanos) throws IOException {
        Waiter waiter = new Waiter(Thread.currentThread(), events);
        lock.lock();
        try {
            if (failure != null) {
                throw new IOException("the virtual-thread poller failed: " + failure, failure);
            }
            List<Waiter> list = waiters.computeIfAbsent(fd, key -> new ArrayList<>(2));
            list.add(waiter);
            try {
                Sockets.pollerArm(epfd, fd, union(list));
            } catch (IOException | RuntimeException e) {
                leave(fd, waiter);
                throw e;
            }
        } finally {
            lock.unlock();
        }
        try {
            if (nanos > 0) {
                LockSupport.parkNanos(this, nanos);
            } else {
                LockSupport.park(this);
            }
        } finally {
            lock.lock();
            try {
                leave(fd, waiter);
            } finally {
                lock.unlock();
            }
        }
    }

    /** Whether a thread waits for {@code fd} now. */
    boolean hasWaiters(int fd) {
        lock.lock();
        try {
            return waiters.containsKey(fd);
        } finally {
            lock.unlock();
        }
    }

    private void run() {
        int[] ready = new int[BATCH];
        try {
            for (;;) {
                int n = Sockets.pollerWait(epfd, ready, -1);
                if (n > 0) {
                    unparkWaiters(ready, n);
                }
            }
        } catch (Throwable e) {
            // Each wait from now on fails with this as its cause, which is where it is reported.
            fail(e);
        }
    }

    private void unparkWaiters(int[] ready, int n) {
        lock.lock();
        try {
            for (int i = 0; i < n; i++) {
                List<Waiter> list = waiters.get(ready[i]);
                if (list != null) {
                    addThreads(list, woken);
                }
            }
        } finally {
            lock.unlock();
        }
        unparkAll(woken);
    }

    /** Without its thread no waiter would wake: all are woken and every later wait fails. */
    private void fail(Throwable e) {
        List<Thread> threads = new ArrayList<>();
        lock.lock();
        try {
            failure = e;
            for (List<Waiter> list : waiters.values()) {
                addThreads(list, threads);
            }
        } finally {
            lock.unlock();
        }
        unparkAll(threads);
    }

    private static void addThreads(List<Waiter> list, List<Thread> threads) {
        for (Waiter waiter : list) {
            threads.add(waiter.thread());
        }
    }

    /** Unparks {@code threads}, without holding {@code lock}, and empties the list. */
    private static void unparkAll(List<Thread> threads) {
        for (Thread thread : threads) {
            LockSupport.unpark(thread);
        }
        threads.clear();
    }

    private void leave(int fd, Waiter waiter) {
        List<Waiter> list = waiters.get(fd);
        if (list != null && list.remove(waiter) && list.isEmpty()) {
            waiters.remove(fd);
        }
    }

    private static int union(List<Waiter> list) {
        int events = 0;
        for (Waiter waiter : list) {
            events |= waiter.events();
        }
        return events;
    }
}
