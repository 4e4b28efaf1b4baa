/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.jmh;

import io.github.nativeselector.NativeSelectorProvider;
import io.github.nativeselector.bench.selectors.CpuTime;
import io.github.nativeselector.bench.selectors.SystemProperties;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.channels.FileChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;
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
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;

/**
 * What sending a file costs through {@code FileChannel.transferTo} into a socket channel this
 * provider opened: the JDK's ({@code channels=jdk}) or a lean one ({@code channels=lean}).
 *
 * <p>One operation sends a whole file of {@code fileKiB} KiB, held in the page cache, over a
 * blocking connection on the loopback interface to a reader in another process, which drops what
 * it reads. The JDK's {@code FileChannel} hands its own socket channels to {@code sendfile(2)}; any
 * other channel, a lean one among them, it feeds through an 8 KiB buffer, a file read and a socket
 * write each time. The reader runs on the CPUs this JVM may not use (on any CPU when it may use
 * them all), as a client does in the load harness, so this process's CPU is the sender's: when the
 * fork ends it prints it per operation, user and system apart ({@code /proc/self/stat}), over the
 * measured iterations. On the loopback interface the sender's system time includes part of the
 * receiving end's work, done in its system calls; a network card's driver would do that part on
 * the other machine.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = Fixtures.NATIVE_ACCESS)
public class FileTransfer {

    private static final Path PROCESS_STAT = Path.of("/proc/self/stat");

    @Param({"jdk", "lean"})
    public String channels;

    @Param({"64", "1024"})
    public int fileKiB;

    private long size;
    private Path file;
    private FileChannel source;
    private Process reader;
    private SocketChannel target;

    private boolean measuring;
    private long operations;
    private CpuTime atIterationStart;
    private long measuredOperations;
    private CpuTime measured = new CpuTime(0, 0);

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        size = fileKiB * 1024L;
        file = Files.createTempFile("native-selector-transfer", ".bin");
        byte[] content = new byte[(int) size];
        for (int i = 0; i < content.length; i++) {
            content[i] = (byte) i;
        }
        Files.write(file, content);
        source = FileChannel.open(file, StandardOpenOption.READ);
        ServerSocketChannel listener = SystemProperties.with(Map.of("nativeselector.channels", channels),
                () -> new NativeSelectorProvider().openServerSocketChannel());
        try (listener) {
            boolean jdkChannel = listener.getClass().getName().startsWith("sun.nio.ch.");
            if (jdkChannel != channels.equals("jdk")) {
                throw new IllegalStateException("channels=" + channels + " opened " + listener.getClass().getName()
                        + " (lean channels need Linux and the native library)");
            }
            listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            reader = startReader(((InetSocketAddress) listener.getLocalAddress()).getPort());
            target = acceptReader(listener);
        }
    }

    /** A JVM running {@link Reader} against the port, on the CPUs this one may not use. */
    private static Process startReader(int port) throws IOException {
        List<String> command = new ArrayList<>(List.of("taskset", "-c", readerCpus()));
        command.addAll(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                System.getProperty("java.class.path"), Reader.class.getName(), Integer.toString(port)));
        return new ProcessBuilder(command).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
    }

    /** The reader's connection, in blocking mode; fails if the reader ends or does not connect in 30 s. */
    private SocketChannel acceptReader(ServerSocketChannel listener) throws IOException {
        listener.configureBlocking(false);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        SocketChannel accepted;
        while ((accepted = listener.accept()) == null) {
            if (!reader.isAlive()) {
                throw new IllegalStateException("the reader ended (exit status " + reader.exitValue() + ") before it connected");
            }
            if (System.nanoTime() > deadline) {
                reader.destroyForcibly();
                throw new IllegalStateException("the reader did not connect within 30 s");
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
        }
        accepted.configureBlocking(true);
        return accepted;
    }

    /** The online CPUs this process may not run on, or all of them when it may run on every one. */
    private static String readerCpus() throws IOException {
        BitSet online = cpuList(Files.readString(Path.of("/sys/devices/system/cpu/online")));
        BitSet others = (BitSet) online.clone();
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("Cpus_allowed_list:")) {
                others.andNot(cpuList(line.substring(line.indexOf(':') + 1)));
            }
        }
        BitSet cpus = others.isEmpty() ? online : others;
        return cpus.stream().mapToObj(Integer::toString).collect(Collectors.joining(","));
    }

    /** A CPU list as the kernel writes one: "0-3,8,10-11". */
    private static BitSet cpuList(String text) {
        BitSet cpus = new BitSet();
        for (String part : text.strip().split(",")) {
            int dash = part.indexOf('-');
            int first = Integer.parseInt(dash < 0 ? part : part.substring(0, dash));
            int last = dash < 0 ? first : Integer.parseInt(part.substring(dash + 1));
            cpus.set(first, last + 1);
        }
        return cpus;
    }

    @Setup(Level.Iteration)
    public void startIteration(IterationParams iteration) throws IOException {
        measuring = iteration.getType() == IterationType.MEASUREMENT;
        operations = 0;
        atIterationStart = CpuTime.read(PROCESS_STAT);
    }

    @TearDown(Level.Iteration)
    public void endIteration() throws IOException {
        if (measuring) {
            measuredOperations += operations;
            measured = measured.plus(CpuTime.read(PROCESS_STAT).since(atIterationStart));
        }
    }

    @Benchmark
    public long transferTo() throws IOException {
        long sent = 0;
        while (sent < size) {
            sent += source.transferTo(sent, size - sent, target);
        }
        operations++;
        return sent;
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        String targetClass = target.getClass().getName();
        target.close();
        source.close();
        Files.delete(file);
        if (!reader.waitFor(10, TimeUnit.SECONDS)) {
            reader.destroyForcibly();
            throw new IllegalStateException("the reader did not end within 10 s of the connection's close");
        }
        if (reader.exitValue() != 0) {
            throw new IllegalStateException("the reader failed (exit status " + reader.exitValue() + ")");
        }
        double perOperation = 1e6 / Math.max(1, measuredOperations);
        System.out.println();
        System.out.printf(Locale.ROOT,
                "FileTransfer.transferTo channels=%s fileKiB=%d process CPU us per operation %.1f (user %.1f, system %.1f)"
                        + " over %d measured operations (%s)%n",
                channels, fileKiB, (measured.userSeconds() + measured.systemSeconds()) * perOperation,
                measured.userSeconds() * perOperation, measured.systemSeconds() * perOperation, measuredOperations,
                targetClass);
    }

    /** The reading end: connects to the port given, reads until the end of the stream, drops it all. */
    public static final class Reader {
        private Reader() {}

        public static void main(String[] args) throws IOException {
            try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), Integer.parseInt(args[0]))) {
                InputStream in = socket.getInputStream();
                byte[] buffer = new byte[64 * 1024];
                while (in.read(buffer) >= 0) {
                    // dropped
                }
            }
        }
    }
}
