/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.jmh;

import io.github.nativeselector.bench.selectors.SelectorKind.Ids;
import java.io.IOException;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Registration churn: what registering, cancelling and changing interest cost, on a selector
 * that already holds {@value #IDLE} idle registrations (UDP sockets bound to 127.0.0.1,
 * registered for {@code OP_READ}, never sent anything).
 *
 * <ul>
 *   <li>{@link #registerCancel}: register one channel, cancel its key, {@code selectNow()}. A
 *       selector may coalesce the pair (below the threshold nothing reaches the kernel); at
 *       threshold 1 the registration is applied at once, so the kernel sees an add and a remove.
 *   <li>{@link #registerCancelBatch}: {@value #WINDOW} distinct channels registered, a
 *       {@code selectNow()}, all {@value #WINDOW} keys cancelled, a {@code selectNow()}; scored per
 *       channel. Nothing can be coalesced: every channel is added to and removed from the kernel,
 *       as with connections that come and go.
 *   <li>{@link #interestToggle}: a window of {@value #WINDOW} of the idle keys goes
 *       {@code OP_READ -> 0}, {@code selectNow()}, back {@code 0 -> OP_READ}, {@code selectNow()};
 *       scored per interest change (2 x {@value #WINDOW} per invocation), so a select comes every
 *       {@value #WINDOW} changes. Windows walk round the idle keys.
 *   <li>{@link #writeInterestToggle}: as {@link #interestToggle}, but {@code OP_READ ->
 *       OP_READ | OP_WRITE -> OP_READ}, as a server asks for writability while a reply is
 *       pending: the key stays in the kernel, and each select reports the window writable.
 * </ul>
 *
 * <p>{@code batchThreshold} is {@code nativeselector.batchThreshold}: 1 applies every change as
 * it is made, N applies N queued changes at once (64 is the default); a select applies what is
 * queued whatever the threshold. The JDK's selectors ignore it and hold every change until the
 * next select: their rows for the thresholds are repeated measurements of the same thing.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {Fixtures.NATIVE_ACCESS, Fixtures.JDK_POLL_ACCESS})
public class Churn {

    static final int IDLE = 1000;
    static final int WINDOW = 64;

    @Param({Ids.IO_URING, Ids.EPOLL, Ids.POLLSET, Ids.JDK, Ids.JDK_POLL})
    public String backend;

    @Param({"1", "8", "64", "512"})
    public int batchThreshold;

    private Selector selector;
    private DatagramChannel[] idle;
    private SelectionKey[] idleKeys;
    private DatagramChannel[] spare;
    private final SelectionKey[] spareKeys = new SelectionKey[WINDOW];
    private int window;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        selector = Fixtures.open(backend, batchThreshold);
        idle = new DatagramChannel[IDLE];
        idleKeys = new SelectionKey[IDLE];
        for (int i = 0; i < IDLE; i++) {
            idle[i] = Fixtures.udpChannel();
            idleKeys[i] = idle[i].register(selector, SelectionKey.OP_READ);
        }
        spare = new DatagramChannel[WINDOW];
        for (int i = 0; i < WINDOW; i++) {
            spare[i] = Fixtures.udpChannel();
        }
        if (selector.selectNow() != 0) {
            throw new IllegalStateException("an idle channel was reported ready");
        }
    }

    @Benchmark
    public int registerCancel() throws IOException {
        SelectionKey key = spare[0].register(selector, SelectionKey.OP_READ);
        key.cancel();
        return selector.selectNow();
    }

    @Benchmark
    @OperationsPerInvocation(WINDOW)
    public int registerCancelBatch() throws IOException {
        DatagramChannel[] channels = spare;
        SelectionKey[] keys = spareKeys;
        for (int i = 0; i < WINDOW; i++) {
            keys[i] = channels[i].register(selector, SelectionKey.OP_READ);
        }
        int n = selector.selectNow();
        for (int i = 0; i < WINDOW; i++) {
            keys[i].cancel();
        }
        return n + selector.selectNow();
    }

    @Benchmark
    @OperationsPerInvocation(2 * WINDOW)
    public int interestToggle() throws IOException {
        SelectionKey[] keys = idleKeys;
        int first = nextWindow();
        int end = first + WINDOW;
        for (int i = first; i < end; i++) {
            keys[i].interestOps(0);
        }
        int n = selector.selectNow();
        for (int i = first; i < end; i++) {
            keys[i].interestOps(SelectionKey.OP_READ);
        }
        return n + selector.selectNow();
    }

    @Benchmark
    @OperationsPerInvocation(2 * WINDOW)
    public int writeInterestToggle() throws IOException {
        SelectionKey[] keys = idleKeys;
        int first = nextWindow();
        int end = first + WINDOW;
        for (int i = first; i < end; i++) {
            keys[i].interestOps(SelectionKey.OP_READ | SelectionKey.OP_WRITE);
        }
        int n = selector.selectNow();
        selector.selectedKeys().clear();
        for (int i = first; i < end; i++) {
            keys[i].interestOps(SelectionKey.OP_READ);
        }
        return n + selector.selectNow();
    }

    /** The first key of this invocation's window; the windows walk round the idle keys. */
    private int nextWindow() {
        int first = window;
        window = first + 2 * WINDOW > IDLE ? 0 : first + WINDOW;
        return first;
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        System.out.println();
        System.out.println("Churn backend=" + backend + " batchThreshold=" + batchThreshold + " "
                + Fixtures.counters(selector));
        selector.close();
        Fixtures.closeAll(idle);
        Fixtures.closeAll(spare);
    }
}
