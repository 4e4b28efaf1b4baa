/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.closereuse;

import io.github.nativeselector.NativeSelectorProvider;
import io.github.nativeselector.support.CloseReuseFds;
import io.github.nativeselector.support.ContractChannels;
import io.github.nativeselector.support.ContractChannels.Listener;
import io.github.nativeselector.support.ContractChannels.SocketKind;
import io.github.nativeselector.support.ContractSupport;
import io.github.nativeselector.support.TestSelectors;
import java.io.File;
import java.io.IOException;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.channels.Pipe;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Child-JVM main for {@link FdLimitTest}, run with a low limit on open files: for each selector
 * named in the arguments, uses up every file descriptor and prints {@code NAME.key=value}
 * lines saying what the selector did at the limit (accepting, registering, opening another
 * selector), with as many registered channels as the limit allows, and when closed twice.
 * Exit status 0 when every step ran, 2 when one threw what it should not have.
 *
 * <p>With no descriptor left, nothing may load a class from the class path (that opens a
 * file): the project's classes are loaded first, and each selector is exercised once with
 * descriptors to spare (the native library, lazily created JDK resources).
 */
public final class FdLimitProbe {

    /**
     * How long {@link #fill()} must find no descriptor free before the limit counts as met: a
     * descriptor the JVM holds for a moment of its own comes back within it, even on a busy machine.
     */
    private static final long FILL_SETTLE_MS = 500;

    private final TestSelectors selectors;
    private final String name;
    /** How opening one more descriptor failed, the last time {@link #fill()} ran. */
    private String fillError;

    private FdLimitProbe(TestSelectors selectors) {
        this.selectors = selectors;
        this.name = selectors.name();
    }

    public static void main(String[] args) throws Exception {
        loadEveryClassOfThisProject();
        for (String arg : args) {
            FdLimitProbe probe = new FdLimitProbe(TestSelectors.valueOf(arg));
            try {
                probe.run();
            } catch (Exception | Error e) {
                System.out.println(arg + ".error=" + e);
                e.printStackTrace(System.out);
                System.out.flush();
                System.exit(2);
            }
        }
        System.out.flush();
    }

    /**
     * With no descriptor free, a class not loaded yet cannot be read from the class path: this
     * project's classes (main and test) are all loaded now. The JDK's come from its runtime
     * image, which is open already.
     */
    private static void loadEveryClassOfThisProject() throws IOException, ClassNotFoundException {
        String packagePath = NativeSelectorProvider.class.getPackageName().replace('.', File.separatorChar);
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            Path root = Path.of(entry);
            if (!Files.isDirectory(root.resolve(packagePath))) {
                continue;
            }
            List<String> names;
            try (Stream<Path> files = Files.walk(root.resolve(packagePath))) {
                names = files.map(root::relativize).map(Path::toString).filter(file -> file.endsWith(".class"))
                        .map(file -> file.substring(0, file.length() - ".class".length()).replace(File.separatorChar, '.'))
                        .collect(Collectors.toList());
            }
            for (String className : names) {
                Class.forName(className, false, FdLimitProbe.class.getClassLoader());
            }
        }
    }

    private void print(String key, Object value) {
        System.out.println(name + "." + key + "=" + value);
    }

    private void run() throws Exception {
        warmUp();
        Map<Integer, String> before = CloseReuseFds.snapshot();
        atTheLimit();
        asManyChannelsAsTheLimitAllows();
        closingTwice();
        print("fdsLeftOpen", CloseReuseFds.opened(before, CloseReuseFds.snapshot()));
    }

    /** Every path the steps below take, once with descriptors to spare. */
    private void warmUp() throws IOException, InterruptedException {
        try (Selector selector = selectors.open(); Listener listener = nonBlockingListener();
                SocketChannel client = SocketChannel.open(listener.address)) {
            SelectionKey acceptKey = listener.channel.register(selector, SelectionKey.OP_ACCEPT);
            ContractSupport.awaitSelected(selector, acceptKey);
            selector.selectNow(key -> { });
            selector.wakeup();
            selector.select(1);
            try (SocketChannel accepted = listener.channel.accept()) {
                accepted.configureBlocking(false);
                accepted.register(selector, SelectionKey.OP_READ);
            }
            fill().forEach(ContractChannels::closeQuietly);
            pipesUntilTheLimit().forEach(pipe -> {
                ContractChannels.closeQuietly(pipe.source());
                ContractChannels.closeQuietly(pipe.sink());
            });
        }
    }

    /**
     * A client waits in the listener's backlog while no descriptor is free: accept() fails,
     * and the selector keeps working; opening another selector fails and leaves no
     * descriptor behind; once descriptors are freed, accept() works again.
     */
    private void atTheLimit() throws Exception {
        try (Selector selector = selectors.open(); Listener listener = nonBlockingListener()) {
            SelectionKey acceptKey = listener.channel.register(selector, SelectionKey.OP_ACCEPT);
            Deque<DatagramChannel> fillers = fill();
            // Registered below, so its descriptor is released only by a select after its close: not a filler to free.
            DatagramChannel registered = fillers.pop();
            SocketChannel client = null;
            try {
                fillers.pop().close();
                client = connectWithTheLastFree(listener.address, ContractSupport.AWAIT_MS);
                print("fillError", fillError);

                ContractSupport.awaitSelected(selector, acceptKey);
                print("accept", attempt(() -> String.valueOf(listener.channel.accept())));
                selector.selectedKeys().clear();
                print("stillAcceptable", selector.selectNow() + " " + selector.selectedKeys().contains(acceptKey));

                acceptKey.interestOps(0);
                selector.selectedKeys().clear();
                selector.wakeup();
                print("wakeupAtTheLimit", selector.select(ContractSupport.AWAIT_MS));

                registered.configureBlocking(false);
                registered.register(selector, SelectionKey.OP_WRITE);
                print("registerAtTheLimit", selector.selectNow());

                print("openAtTheLimit", attempt(() -> openAndClose()));
                fillers.pop().close();
                print("openWithOneFree", attempt(() -> openAndClose()));
                print("oneStillFree", exactlyOneFreeWithin(ContractSupport.AWAIT_MS));

                fillers.pop().close();
                fillers.pop().close();
                acceptKey.interestOps(SelectionKey.OP_ACCEPT);
                ContractSupport.awaitSelected(selector, acceptKey);
                try (SocketChannel accepted = listener.channel.accept()) {
                    accepted.configureBlocking(false);
                    SelectionKey readKey = accepted.register(selector, SelectionKey.OP_READ);
                    client.write(ByteBuffer.wrap(new byte[] {1}));
                    ContractSupport.awaitSelected(selector, readKey);
                    print("acceptOnceFreed", "ok");
                }
            } finally {
                ContractChannels.closeQuietly(client);
                ContractChannels.closeQuietly(registered);
                fillers.forEach(ContractChannels::closeQuietly);
            }
        }
    }

    /** Every descriptor left goes to a pipe, and both ends of each pipe to the selector. */
    private void asManyChannelsAsTheLimitAllows() throws Exception {
        try (Selector selector = selectors.open()) {
            List<Pipe> pipes = pipesUntilTheLimit();
            try {
                List<SelectionKey> sources = new ArrayList<>();
                Set<SelectionKey> sinks = new HashSet<>();
                for (Pipe pipe : pipes) {
                    pipe.source().configureBlocking(false);
                    pipe.sink().configureBlocking(false);
                    sources.add(pipe.source().register(selector, SelectionKey.OP_READ));
                    sinks.add(pipe.sink().register(selector, SelectionKey.OP_WRITE));
                }
                int writable = selector.selectNow();
                boolean sinksSelected = selector.selectedKeys().equals(sinks);
                selector.selectedKeys().clear();
                Set<SelectionKey> written = new HashSet<>();
                for (int i = 0; i < pipes.size(); i++) {
                    if (i % 3 == 0) {
                        pipes.get(i).sink().write(ByteBuffer.wrap(new byte[] {1}));
                        written.add(sources.get(i));
                    }
                }
                for (SelectionKey sink : sinks) {
                    sink.interestOps(0);
                }
                int readable = selector.selectNow();
                print("manyChannels", "pipes " + pipes.size() + " keys " + selector.keys().size()
                        + " writable " + writable + " " + sinksSelected
                        + " readable " + readable + " " + selector.selectedKeys().equals(written));
            } finally {
                for (Pipe pipe : pipes) {
                    ContractChannels.closeQuietly(pipe.source());
                    ContractChannels.closeQuietly(pipe.sink());
                }
            }
            selector.selectNow();
            print("keysAfterClosingThem", selector.keys().size());
        }
    }

    /** close() twice, on the selector and on a channel registered with it, in both orders. */
    private void closingTwice() throws IOException {
        Selector selector = selectors.open();
        Pipe pipe = Pipe.open();
        pipe.source().configureBlocking(false);
        pipe.sink().configureBlocking(false);
        pipe.source().register(selector, SelectionKey.OP_READ);
        pipe.sink().register(selector, SelectionKey.OP_WRITE);
        pipe.source().close();
        pipe.source().close();
        selector.close();
        selector.close();
        selector.wakeup();
        pipe.sink().close();
        pipe.sink().close();
        print("closeTwice", "ok " + selector.isOpen() + " " + pipe.source().isOpen() + " " + pipe.sink().isOpen());
    }

    // ---- descriptors ---------------------------------------------------------------------

    /**
     * Opens datagram channels (one descriptor each) until the limit stops it. The JVM itself
     * may hold a descriptor for a moment (as in exactlyOneFreeWithin) just when the limit is
     * met, and give it back later: the limit counts as met only once checks over
     * {@value #FILL_SETTLE_MS} ms find no descriptor free, each one found being taken too, so
     * no descriptor the steps below count on being used up comes free behind them.
     */
    private Deque<DatagramChannel> fill() throws InterruptedException {
        Deque<DatagramChannel> fillers = new ArrayDeque<>();
        BooleanSupplier anotherCameFree = () -> openUntilTheLimit(fillers) > 0;
        openUntilTheLimit(fillers);
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ContractSupport.AWAIT_MS);
        while (within(FILL_SETTLE_MS, anotherCameFree)) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("descriptors still came free " + ContractSupport.AWAIT_MS
                        + " ms after the limit was first met; " + fillers.size() + " fillers open");
            }
        }
        return fillers;
    }

    /** Opens fillers until the limit stops it; returns how many it opened. */
    private int openUntilTheLimit(Deque<DatagramChannel> fillers) {
        for (int opened = 0;; opened++) {
            try {
                fillers.push(DatagramChannel.open());
            } catch (IOException e) {
                fillError = e.getClass().getSimpleName() + ": " + e.getMessage();
                return opened;
            }
        }
    }

    private static List<Pipe> pipesUntilTheLimit() {
        List<Pipe> pipes = new ArrayList<>();
        for (;;) {
            try {
                pipes.add(Pipe.open());
            } catch (IOException e) {
                return pipes;
            }
        }
    }

    /**
     * Whether exactly one descriptor is free, now or within {@code millis}: the JVM itself may
     * hold one for a moment (a cgroup file it reads, see FdLimitTest.runProbe), and gives it back,
     * while a descriptor a failed open kept would never come back.
     */
    private static boolean exactlyOneFreeWithin(long millis) throws InterruptedException {
        return within(millis, FdLimitProbe::exactlyOneFree);
    }

    /** Whether {@code condition} holds now or at one of its checks, every 10 ms, for {@code millis}. */
    private static boolean within(long millis, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(10);
        }
        return true;
    }

    /** Whether one descriptor, and no more, can be opened now. */
    private static boolean exactlyOneFree() {
        DatagramChannel first = null;
        DatagramChannel second = null;
        try {
            first = DatagramChannel.open();
            second = DatagramChannel.open();
            return false;
        } catch (IOException e) {
            return first != null;
        } finally {
            ContractChannels.closeQuietly(first);
            ContractChannels.closeQuietly(second);
        }
    }

    /**
     * A client on the last free descriptor, which the JVM itself may hold for a moment (as in
     * exactlyOneFreeWithin): a connect that finds none free is tried again for {@code millis}.
     */
    private static SocketChannel connectWithTheLastFree(SocketAddress address, long millis)
            throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        for (;;) {
            try {
                return SocketChannel.open(address);
            } catch (IOException e) {
                if (!String.valueOf(e.getMessage()).endsWith(FdLimitTest.TOO_MANY) || System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(10);
            }
        }
    }

    private String openAndClose() throws IOException {
        selectors.open().close();
        return "opened";
    }

    @FunctionalInterface
    private interface Attempt {
        String run() throws IOException;
    }

    /** What the attempt returned, or the class and message of the IOException it threw. */
    private static String attempt(Attempt attempt) {
        try {
            return attempt.run();
        } catch (IOException e) {
            return "IOException: " + e.getMessage();
        }
    }

    private static Listener nonBlockingListener() throws IOException {
        Listener listener = Listener.open(SocketKind.INET);
        listener.channel.configureBlocking(false);
        return listener;
    }
}
