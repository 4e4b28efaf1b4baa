/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.jmh;

import io.github.nativeselector.bench.selectors.SelectorKind.Ids;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.Iterator;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
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
 * The cost of delivering ready keys: {@value #REGISTERED} registered UDP channels, of which
 * {@code ready} hold a datagram that is never received, so they are ready at every select
 * (level-triggered). One operation is one {@code selectNow} that reports exactly those keys and
 * the handling of each:
 *
 * <ul>
 *   <li>{@link #selectedKeys}: the usual loop over the selected-key set, removing each key;
 *   <li>{@link #consumer}: {@code selectNow(Consumer)}, which leaves the selected-key set alone.
 * </ul>
 *
 * <p>The score is per select; divided by {@code ready} it is the cost per ready key (the report
 * does that division). Growing {@code ready} at a fixed N separates the cost per key from the
 * fixed cost of a select. On io_uring every ready key also costs the re-arm of its one-shot poll.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {Fixtures.NATIVE_ACCESS, Fixtures.JDK_POLL_ACCESS})
public class ReadyKeys {

    static final int REGISTERED = 1000;

    @Param({Ids.IO_URING, Ids.EPOLL, Ids.POLLSET, Ids.JDK, Ids.JDK_POLL})
    public String backend;

    /** Channels ready at every select, of the {@value #REGISTERED} registered. */
    @Param({"1", "10", "100", "1000"})
    public int ready;

    private Selector selector;
    private DatagramChannel[] channels;
    private long opsSeen;
    private final Consumer<SelectionKey> action = key -> opsSeen += key.readyOps();

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        if (ready < 1 || ready > REGISTERED) {
            throw new IllegalArgumentException("ready=" + ready + ": must be from 1 to " + REGISTERED);
        }
        selector = Fixtures.open(backend, 64);
        channels = new DatagramChannel[REGISTERED];
        for (int i = 0; i < REGISTERED; i++) {
            channels[i] = Fixtures.udpChannel();
            channels[i].register(selector, SelectionKey.OP_READ);
        }
        try (DatagramChannel sender = DatagramChannel.open()) {
            for (int i = 0; i < ready; i++) {
                if (sender.send(ByteBuffer.wrap(new byte[] {1}), channels[i].getLocalAddress()) != 1) {
                    throw new IllegalStateException("a datagram was not sent");
                }
            }
        }
        // Loopback delivers at once; the first selects also push every registration to the kernel.
        for (int i = 0; i < 3; i++) {
            selectedKeys();
        }
    }

    @Benchmark
    public long selectedKeys() throws IOException {
        int n = selector.selectNow();
        long ops = 0;
        int seen = 0;
        Iterator<SelectionKey> keys = selector.selectedKeys().iterator();
        while (keys.hasNext()) {
            SelectionKey key = keys.next();
            keys.remove();
            ops += key.readyOps();
            seen++;
        }
        check(n, seen);
        return ops;
    }

    @Benchmark
    public long consumer() throws IOException {
        long before = opsSeen;
        int n = selector.selectNow(action);
        check(n, (int) (opsSeen - before) / SelectionKey.OP_READ);
        return opsSeen;
    }

    private void check(int reported, int handled) {
        if (reported != ready || handled != ready) {
            throw new IllegalStateException("selectNow reported " + reported + " keys and " + handled
                    + " were handled; expected " + ready);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        System.out.println();
        System.out.println("ReadyKeys backend=" + backend + " ready=" + ready + " " + Fixtures.counters(selector));
        selector.close();
        Fixtures.closeAll(channels);
    }
}
