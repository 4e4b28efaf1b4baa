/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.jmh;

import io.github.nativeselector.bench.selectors.SelectorKind.Ids;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.channels.Pipe;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.Iterator;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The cost of one {@code selectNow()} that finds one ready channel among many idle ones.
 *
 * <p>{@code registered} idle channels (UDP sockets bound to 127.0.0.1, one descriptor each,
 * registered for {@code OP_READ}; nothing is ever sent to them) plus one pipe whose source is
 * registered for {@code OP_READ} and holds one unread byte, so it is ready at every select
 * (level-triggered). One operation is the usual NIO loop: {@code selectNow()}, then iterate the
 * selected-key set, removing the key. Every select must report exactly that one key, or the
 * benchmark fails.
 *
 * <p>What it shows: epoll and the JDK's selector (also epoll) pay one {@code epoll_wait}; the
 * io_uring backend re-arms the ready channel's one-shot poll, and its cost per select should not
 * grow with the number of idle registrations either. The JDK's poll selector hands the kernel
 * every registered descriptor at each select, so its cost grows with N.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {Fixtures.NATIVE_ACCESS, Fixtures.JDK_POLL_ACCESS})
public class SelectCost {

    @Param({Ids.IO_URING, Ids.EPOLL, Ids.POLLSET, Ids.JDK, Ids.JDK_POLL})
    public String backend;

    /** Idle registered channels besides the ready pipe. */
    @Param({"10", "1000", "10000"})
    public int registered;

    private Selector selector;
    private DatagramChannel[] idle;
    private Pipe pipe;
    private SelectionKey readyKey;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        selector = Fixtures.open(backend, 64);
        idle = new DatagramChannel[registered];
        for (int i = 0; i < registered; i++) {
            idle[i] = Fixtures.udpChannel();
            idle[i].register(selector, SelectionKey.OP_READ);
        }
        pipe = Pipe.open();
        pipe.source().configureBlocking(false);
        readyKey = pipe.source().register(selector, SelectionKey.OP_READ);
        if (pipe.sink().write(ByteBuffer.wrap(new byte[] {1})) != 1) {
            throw new IllegalStateException("the pipe took no byte");
        }
        // Every registration reaches the kernel, and the pipe is seen ready.
        for (int i = 0; i < 3; i++) {
            selectOnce();
        }
    }

    @Benchmark
    public int selectNow() throws IOException {
        return selectOnce();
    }

    private int selectOnce() throws IOException {
        int n = selector.selectNow();
        int ops = 0;
        Iterator<SelectionKey> keys = selector.selectedKeys().iterator();
        while (keys.hasNext()) {
            SelectionKey key = keys.next();
            keys.remove();
            if (key != readyKey) {
                throw new IllegalStateException("an idle channel was reported ready: " + key);
            }
            ops += key.readyOps();
        }
        if (n != 1 || ops != SelectionKey.OP_READ) {
            throw new IllegalStateException("selectNow reported " + n + " keys, ready ops " + ops
                    + "; expected the pipe alone, readable");
        }
        return ops;
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        System.out.println();
        System.out.println("SelectCost backend=" + backend + " registered=" + registered + " "
                + Fixtures.counters(selector));
        selector.close();
        Fixtures.closeAll(idle);
        pipe.sink().close();
        pipe.source().close();
    }
}
