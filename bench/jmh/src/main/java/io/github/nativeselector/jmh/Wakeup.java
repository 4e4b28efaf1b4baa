/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.jmh;

import io.github.nativeselector.bench.selectors.SelectorKind.Ids;
import java.io.IOException;
import java.nio.channels.Selector;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
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
 * What {@code wakeup()} costs.
 *
 * <ul>
 *   <li>{@link #roundTrip}: another thread is blocked in {@code select()}; the benchmark thread
 *       calls {@code wakeup()} and parks until that thread has come back from {@code select()}
 *       and unparked it. The operation is the whole round trip, as when a server hands work to
 *       its selector thread: the wakeup signal, the return from the kernel, and two thread
 *       hand-offs (which dominate when both threads share one CPU, as under
 *       {@code scripts/bench-backends}).
 *   <li>{@link #wakeupThenSelect}: one thread calls {@code wakeup()} and then {@code select()},
 *       which returns at once: the signal and its consumption without any thread switch.
 * </ul>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {Fixtures.NATIVE_ACCESS, Fixtures.JDK_POLL_ACCESS})
public class Wakeup {

    /** A selector with a thread of its own blocked in {@code select()}. */
    @State(Scope.Thread)
    public static class Blocked {
        @Param({Ids.IO_URING, Ids.EPOLL, Ids.POLLSET, Ids.JDK, Ids.JDK_POLL})
        public String backend;

        Selector selector;
        final AtomicLong returns = new AtomicLong();
        volatile Thread waiter;
        private volatile boolean stopping;
        private Thread selecting;
        private volatile Throwable failure;

        @Setup(Level.Trial)
        public void setUp() throws IOException {
            selector = Fixtures.open(backend, 64);
            selecting = new Thread(this::selectLoop, "selecting");
            selecting.setDaemon(true);
            selecting.start();
        }

        private void selectLoop() {
            try {
                while (!stopping) {
                    selector.select();
                    returns.incrementAndGet();
                    Thread w = waiter;
                    if (w != null) {
                        LockSupport.unpark(w);
                    }
                }
            } catch (Throwable t) {
                failure = t;
                Thread w = waiter;
                if (w != null) {
                    LockSupport.unpark(w);
                }
            }
        }

        void checkAlive() {
            if (failure != null) {
                throw new IllegalStateException("the selecting thread failed", failure);
            }
        }

        @TearDown(Level.Trial)
        public void tearDown() throws Exception {
            stopping = true;
            selector.wakeup();
            selecting.join(TimeUnit.SECONDS.toMillis(10));
            System.out.println();
            System.out.println("Wakeup.roundTrip backend=" + backend + " " + Fixtures.counters(selector));
            selector.close();
            checkAlive();
        }
    }

    /** A selector only the benchmark thread uses. */
    @State(Scope.Thread)
    public static class Own {
        @Param({Ids.IO_URING, Ids.EPOLL, Ids.POLLSET, Ids.JDK, Ids.JDK_POLL})
        public String backend;

        Selector selector;

        @Setup(Level.Trial)
        public void setUp() throws IOException {
            selector = Fixtures.open(backend, 64);
        }

        @TearDown(Level.Trial)
        public void tearDown() throws IOException {
            System.out.println();
            System.out.println("Wakeup.wakeupThenSelect backend=" + backend + " " + Fixtures.counters(selector));
            selector.close();
        }
    }

    @Benchmark
    public long roundTrip(Blocked state) {
        long before = state.returns.get();
        state.waiter = Thread.currentThread();
        state.selector.wakeup();
        while (state.returns.get() == before) {
            state.checkAlive();
            LockSupport.park(state);
        }
        return before;
    }

    @Benchmark
    public int wakeupThenSelect(Own state) throws IOException {
        state.selector.wakeup();
        return state.selector.select();
    }
}
