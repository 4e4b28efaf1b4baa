/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.races;

import static io.github.nativeselector.support.RaceSupport.allThreads;

import io.github.nativeselector.support.RaceSupport;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.channels.CancelledKeyException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.IllegalBlockingModeException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * One selector under load for a while: a thread selecting (all the select forms) and dropping
 * the interest that fired; a thread replacing channels (closing the old one's ends in a random
 * order while it is registered, opening and registering a new one); threads changing
 * interest, cancelling, re-registering, toggling blocking mode, calling {@code wakeup()}, and
 * making channels ready or taking what is ready; and a thread interrupting the selecting
 * thread. Now and then everything but the selecting thread pauses, the selecting thread
 * blocks in a select without timeout with nothing left to report, and a {@code wakeup()} must
 * end that select.
 *
 * <p>Its findings: exceptions no specification allows, a wakeup that did not end a blocked
 * select (within {@value #WAKEUP_BOUND_SECONDS} s), a deadlock or a thread that does not stop
 * (with every thread's stack).
 */
public final class SelectorStress {

    static final int SLOTS = 24;
    private static final int MUTATORS = 2;
    private static final long WAKEUP_BOUND_SECONDS = 5;
    private static final long STOP_BOUND_SECONDS = 10;

    private final Selector selector;
    private final AtomicReferenceArray<StressChannel> slots = new AtomicReferenceArray<>(SLOTS);
    private final List<String> problems = Collections.synchronizedList(new ArrayList<>());
    private final List<Thread> threads = new ArrayList<>();
    /** Held shared by every thread that changes or pokes anything; exclusively while a wakeup is checked. */
    private final ReentrantReadWriteLock quiet = new ReentrantReadWriteLock();
    private volatile boolean stop;
    /** Set by the selecting thread around its selects that only a wakeup, an interrupt or readiness ends. */
    private volatile boolean inUntimedSelect;

    public final AtomicLong selects = new AtomicLong();
    final AtomicLong keysHandled = new AtomicLong();
    final AtomicLong interruptsSeen = new AtomicLong();
    final AtomicLong wakeupsChecked = new AtomicLong();
    final AtomicLong channelsOpened = new AtomicLong();
    public final AtomicLong mutations = new AtomicLong();
    final AtomicLong refusals = new AtomicLong();

    public SelectorStress(Selector selector) {
        this.selector = selector;
    }

    /**
     * Runs the load for {@code millis}, stops it, and returns what went wrong (empty when
     * nothing did). The channels stay open and registered for the caller's last checks.
     */
    public List<String> run(long millis, long seed) throws InterruptedException {
        SplittableRandom seeds = new SplittableRandom(seed);
        Thread selecting = start("stress selecting", new SplittableRandom(seeds.nextLong()), this::select);
        start("stress channels", new SplittableRandom(seeds.nextLong()), this::replaceChannels);
        for (int i = 0; i < MUTATORS; i++) {
            start("stress mutator " + i, new SplittableRandom(seeds.nextLong()), this::mutate);
        }
        Thread checking = start("stress wakeup check", new SplittableRandom(seeds.nextLong()),
                random -> checkWakeups(random, selecting));
        start("stress interrupt", new SplittableRandom(seeds.nextLong()), random -> interrupt(random, selecting));

        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (System.nanoTime() < end && problems.isEmpty()) {
            Thread.sleep(50);
            if (ManagementFactory.getThreadMXBean().findDeadlockedThreads() != null) {
                problems.add("deadlock:\n" + allThreads());
            }
        }
        stop = true;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(STOP_BOUND_SECONDS);
        // A wakeup check in progress ends first: the wakeup that stops the selecting thread would hide a lost one.
        checking.join(TimeUnit.SECONDS.toMillis(STOP_BOUND_SECONDS));
        selector.wakeup();
        for (Thread thread : threads) {
            thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            if (thread.isAlive()) {
                problems.add(thread.getName() + " did not stop within " + STOP_BOUND_SECONDS + " s:\n" + allThreads());
                break;
            }
        }
        return List.copyOf(problems);
    }

    /** The channels in the slots now, for the caller to close. */
    public List<StressChannel> channels() {
        List<StressChannel> open = new ArrayList<>();
        for (int i = 0; i < SLOTS; i++) {
            if (slots.get(i) != null) {
                open.add(slots.get(i));
            }
        }
        return open;
    }

    @FunctionalInterface
    private interface Body {
        void run(SplittableRandom random) throws Exception;
    }

    private Thread start(String name, SplittableRandom random, Body body) {
        Thread thread = new Thread(() -> {
            try {
                body.run(random);
            } catch (Throwable e) {
                problems.add(Thread.currentThread().getName() + " failed: " + RaceSupport.stackOf(e));
                stop = true;
            }
        }, name);
        thread.setDaemon(true);
        threads.add(thread);
        thread.start();
        return thread;
    }

    // ---- the threads ---------------------------------------------------------------------

    private void select(SplittableRandom random) throws IOException {
        while (!stop) {
            switch (random.nextInt(10)) {
                case 0, 1, 2, 3, 4 -> untimed(selector::select);
                case 5, 6 -> untimed(() -> selector.select(this::handle));
                case 7 -> selector.select(this::handle, 20);
                case 8 -> selector.select(20);
                default -> selector.selectNow();
            }
            // Only this thread uses the selected-key set until the selector is closed.
            for (SelectionKey key : selector.selectedKeys()) {
                handle(key);
            }
            selector.selectedKeys().clear();
            selects.incrementAndGet();
            if (Thread.interrupted()) {
                interruptsSeen.incrementAndGet();
            }
        }
    }

    @FunctionalInterface
    private interface Select {
        int call() throws IOException;
    }

    private void untimed(Select select) throws IOException {
        inUntimedSelect = true;
        try {
            select.call();
        } finally {
            inUntimedSelect = false;
        }
    }

    /** Drops the interest that fired, as a server does until it has handled the event. */
    private void handle(SelectionKey key) {
        try {
            int ready = key.readyOps();
            if ((ready & ~key.channel().validOps()) != 0) {
                problems.add("ready ops " + ready + " outside the valid ops of " + key.channel());
            }
            key.interestOpsAnd(~ready);
            keysHandled.incrementAndGet();
        } catch (CancelledKeyException e) {
            refusals.incrementAndGet(); // cancelled, or its channel closed, since the select
        }
    }

    private void replaceChannels(SplittableRandom random) throws IOException {
        StressChannel.Kind[] kinds = StressChannel.Kind.values();
        while (!stop) {
            quiet.readLock().lock();
            try {
                int slot = random.nextInt(SLOTS);
                StressChannel old = slots.getAndSet(slot, null);
                if (old != null) {
                    closeRegistered(old, random);
                }
                StressChannel fresh = StressChannel.open(kinds[random.nextInt(kinds.length)]);
                channelsOpened.incrementAndGet();
                fresh.key = fresh.local.register(selector, fresh.randomOps(random), slot);
                slots.set(slot, fresh);
            } finally {
                quiet.readLock().unlock();
            }
            LockSupport.parkNanos(random.nextInt(500_000));
        }
    }

    /** Closes both ends of a registered channel, in either order, perhaps with a select between. */
    private static void closeRegistered(StressChannel channel, SplittableRandom random) {
        if (random.nextBoolean()) {
            channel.closePeer();
            LockSupport.parkNanos(random.nextInt(200_000));
        }
        channel.close();
    }

    private void mutate(SplittableRandom random) {
        while (!stop) {
            StressChannel channel = slots.get(random.nextInt(SLOTS));
            if (channel == null) {
                continue;
            }
            int dice = random.nextInt(12);
            quiet.readLock().lock();
            try {
                if (dice < 7) {
                    changeRegistration(channel, dice, random);
                } else {
                    useChannel(channel, dice);
                }
                mutations.incrementAndGet();
            } catch (CancelledKeyException | ClosedChannelException | IllegalBlockingModeException e) {
                // What register(), interestOps() and configureBlocking() may throw when another thread got there first.
                refusals.incrementAndGet();
            } catch (IOException e) {
                if (dice < 7) {
                    problems.add("a registration change threw " + RaceSupport.stackOf(e));
                }
                refusals.incrementAndGet(); // reads and writes on ends another thread closed
            } catch (RuntimeException e) {
                problems.add(Thread.currentThread().getName() + " got " + RaceSupport.stackOf(e));
            } finally {
                quiet.readLock().unlock();
            }
            if (random.nextInt(8) == 0) {
                LockSupport.parkNanos(random.nextInt(300_000));
            }
        }
    }

    private void changeRegistration(StressChannel channel, int dice, SplittableRandom random) throws IOException {
        SelectionKey key = channel.key;
        switch (dice) {
            case 0, 1 -> key.interestOps(channel.randomOps(random));
            case 2 -> key.interestOpsOr(channel.randomOps(random));
            case 3 -> key.interestOpsAnd(random.nextBoolean() ? ~channel.randomOps(random) : channel.randomOps(random));
            case 4 -> key.cancel();
            case 5 -> channel.key = channel.local.register(selector, channel.randomOps(random), key.attachment());
            default -> channel.toggleBlocking();
        }
    }

    private void useChannel(StressChannel channel, int dice) throws IOException {
        switch (dice) {
            case 7, 8 -> channel.poke();
            case 9, 10 -> channel.drain();
            default -> selector.wakeup();
        }
    }

    /**
     * Pauses every other thread, waits until the selecting thread sits in a select without
     * timeout (it drops the interest of what it selects, so soon nothing is left to report),
     * then calls wakeup(): the select must return. When the selecting thread does not come to
     * block (readiness still arriving), the check is given up and tried again later.
     */
    private void checkWakeups(SplittableRandom random, Thread selecting) {
        while (!stop) {
            LockSupport.parkNanos(random.nextInt(20_000_000));
            quiet.writeLock().lock();
            try {
                if (!awaitBlockedWithoutTimeout(selecting)) {
                    continue;
                }
                long before = selects.get();
                selector.wakeup();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAKEUP_BOUND_SECONDS);
                while (selects.get() == before) {
                    if (System.nanoTime() > deadline) {
                        problems.add("lost wakeup: a select() blocked with nothing to report did not return within "
                                + WAKEUP_BOUND_SECONDS + " s of wakeup():\n" + allThreads());
                        stop = true;
                        return;
                    }
                    LockSupport.parkNanos(50_000);
                }
                wakeupsChecked.incrementAndGet();
            } finally {
                quiet.writeLock().unlock();
            }
        }
    }

    private boolean awaitBlockedWithoutTimeout(Thread selecting) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200);
        while (System.nanoTime() < deadline && !stop) {
            if (inUntimedSelect && RaceSupport.isBlockedInSelect(selecting) && inUntimedSelect) {
                return true;
            }
            LockSupport.parkNanos(100_000);
        }
        return false;
    }

    private void interrupt(SplittableRandom random, Thread selecting) {
        while (!stop) {
            LockSupport.parkNanos(random.nextInt(10_000_000));
            quiet.readLock().lock();
            try {
                selecting.interrupt();
            } finally {
                quiet.readLock().unlock();
            }
        }
    }
}
