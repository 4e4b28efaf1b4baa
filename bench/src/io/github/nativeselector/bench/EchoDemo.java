package io.github.nativeselector.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.spi.SelectorProvider;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * An NIO echo server under load from the C load generator, measured.
 *
 * <p>The server is one thread around one {@link Selector#open()}, so it runs on whichever
 * {@link SelectorProvider} the JVM was told to use. The load generator runs as a child process;
 * when it reports that its warm-up is over the demo takes a snapshot of this process's CPU time
 * and of the selector's counters, and again when it reports its result. It then prints one line:
 *
 * <pre>
 * demo selector=... backend=... connections=... size=... requests=... seconds=... requests_per_s=...
 *     cpu_us_per_request=... p50_us=... p99_us=... errors=... batches=... changes=...
 *     kernel_calls_for_changes=... polls=... ready_events=... wakeups=...
 * </pre>
 *
 * <p>The counters come from {@code io.github.nativeselector.SelectorStats}, looked up
 * reflectively so that the demo also runs without the library on the class path; they are
 * {@code -} when the selector has none (the JDK's own selector). With {@code --expect-backend}
 * the demo stops before any load unless the selector is the one named.
 */
public final class EchoDemo {

    private static final String STATS_CLASS = "io.github.nativeselector.SelectorStats";
    private static final int BACKLOG = 4096;
    private static final int BUFFER_BYTES = 8192;
    /** Time the load generator gets beyond its warm-up and measurement (connecting, closing). */
    private static final long SPARE_SECONDS = 60;

    private EchoDemo() {}

    public static void main(String[] args) throws Exception {
        Options options;
        try {
            options = Options.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("EchoDemo: " + e.getMessage());
            System.err.print(Options.USAGE);
            System.exit(2);
            return;
        }
        if (options == null) {
            System.out.print(Options.USAGE);
            return;
        }
        try {
            run(options);
        } catch (DemoFailure e) {
            System.err.println("EchoDemo: " + e.getMessage());
            System.exit(1);
        }
        System.exit(0);
    }

    private static void run(Options options) throws Exception {
        StatsReader stats = StatsReader.load();
        com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

        EchoServer server = EchoServer.start(InetAddress.getByName("127.0.0.1"));
        if (options.expectBackend != null) {
            Counters initial = stats.read(server.selector());
            String got = initial == null ? Options.NO_BACKEND : initial.backend;
            if (!got.equals(options.expectBackend)) {
                server.stop();
                throw new DemoFailure("asked for the " + options.expectBackend + " selector, got "
                        + (initial == null ? "the JDK's built-in selector" : "the " + got + " backend")
                        + " (" + server.selectorName() + ")");
            }
        }
        Process loadgen = null;
        StreamCollector loadgenErr;
        Map<String, String> result = null;
        long cpuStart = -1;
        long cpuEnd = -1;
        Counters countersStart = null;
        Counters countersEnd = null;
        try {
            List<String> command = options.loadgenCommand(server.port());
            try {
                loadgen = new ProcessBuilder(command).start();
            } catch (IOException e) {
                throw new DemoFailure("cannot start the load generator " + command + ": " + e.getMessage(), e);
            }
            loadgen.getOutputStream().close();
            loadgenErr = StreamCollector.start(loadgen.getErrorStream());
            Process child = loadgen;
            Thread watchdog = new Thread(() -> {
                try {
                    if (!child.waitFor(options.warmup + options.seconds + SPARE_SECONDS, TimeUnit.SECONDS)) {
                        System.err.println("EchoDemo: the load generator overran its time; stopping it");
                        child.destroyForcibly();
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "loadgen-watchdog");
            watchdog.setDaemon(true);
            watchdog.start();

            try (BufferedReader out = new BufferedReader(
                    new InputStreamReader(loadgen.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = out.readLine()) != null) {
                    if (line.equals("measuring")) {
                        cpuStart = os.getProcessCpuTime();
                        countersStart = stats.read(server.selector());
                    } else if (line.startsWith("result ")) {
                        cpuEnd = os.getProcessCpuTime();
                        countersEnd = stats.read(server.selector());
                        result = parseFields(line.substring("result ".length()));
                    } else {
                        System.err.println("loadgen: " + line);
                    }
                }
            }
            int status = loadgen.waitFor();
            String errText = loadgenErr.text();
            if (status != 0) {
                throw new DemoFailure("the load generator failed (exit status " + status + "): "
                        + (errText.isBlank() ? "no message" : "\n" + errText.strip()) + failureNote(server));
            }
            if (result == null || cpuStart < 0) {
                throw new DemoFailure("the load generator ended without reporting a measurement:\n"
                        + errText.strip() + failureNote(server));
            }
            if (!"0".equals(result.get("errors"))) {
                System.err.print(errText);
            }
        } finally {
            if (loadgen != null && loadgen.isAlive()) {
                loadgen.destroyForcibly();
            }
            server.stop();
        }
        if (server.failure() != null) {
            throw new DemoFailure("the echo server failed: " + server.failure(), server.failure());
        }
        if (cpuStart < 0 || cpuEnd < 0) {
            throw new DemoFailure("this JVM does not report its process CPU time");
        }

        long requests = Long.parseLong(field(result, "requests"));
        double seconds = Double.parseDouble(field(result, "seconds"));
        if (requests <= 0 || seconds <= 0) {
            throw new DemoFailure("no requests completed in the measured window: " + result);
        }
        double cpuMicros = (cpuEnd - cpuStart) / 1e3;
        StringBuilder line = new StringBuilder("demo");
        append(line, "selector", server.selectorName());
        append(line, "backend", countersEnd == null ? "-" : countersEnd.backend);
        append(line, "connections", Integer.toString(options.connections));
        append(line, "size", Integer.toString(options.size));
        append(line, "requests", Long.toString(requests));
        append(line, "seconds", field(result, "seconds"));
        append(line, "requests_per_s", format("%.0f", requests / seconds));
        append(line, "cpu_us_per_request", format("%.3f", cpuMicros / requests));
        append(line, "p50_us", field(result, "p50_us"));
        append(line, "p99_us", field(result, "p99_us"));
        append(line, "errors", field(result, "errors"));
        for (int i = 0; i < Counters.NAMES.length; i++) {
            append(line, Counters.NAMES[i], countersEnd == null || countersStart == null
                    ? "-" : Long.toString(countersEnd.values[i] - countersStart.values[i]));
        }
        System.out.println(line);
    }

    private static String failureNote(EchoServer server) {
        return server.failure() == null ? "" : "\n(the echo server had failed: " + server.failure() + ")";
    }

    private static void append(StringBuilder line, String key, String value) {
        line.append(' ').append(key).append('=').append(value);
    }

    private static String format(String pattern, double value) {
        return String.format(Locale.ROOT, pattern, value);
    }

    private static Map<String, String> parseFields(String text) {
        Map<String, String> fields = new HashMap<>();
        for (String part : text.trim().split("\\s+")) {
            int eq = part.indexOf('=');
            if (eq > 0) {
                fields.put(part.substring(0, eq), part.substring(eq + 1));
            }
        }
        return fields;
    }

    private static String field(Map<String, String> fields, String key) {
        String value = fields.get(key);
        if (value == null) {
            throw new DemoFailure("the load generator's result has no " + key + ": " + fields);
        }
        return value;
    }

    /** A failure with a message meant for the user; no stack trace. */
    private static final class DemoFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        DemoFailure(String message) {
            super(message);
        }

        DemoFailure(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** The command line. */
    private static final class Options {
        static final String USAGE = String.join("\n",
                "usage: java [selector flags] io.github.nativeselector.bench.EchoDemo --loadgen PATH",
                "           [--loadgen-cpu CPU] [--connections 1000] [--size 64] [--warmup 2] [--seconds 8]",
                "           [--expect-backend epoll|io_uring|jdk]",
                "",
                "Runs a single-threaded NIO echo server on 127.0.0.1 with the selector of",
                "Selector.open(), starts the load generator against it (under taskset -c CPU when",
                "--loadgen-cpu is given) and prints one 'demo ...' line: throughput, this process's",
                "CPU time per request over the measured window, latency percentiles and the",
                "selector's counters (- when it has none). --expect-backend makes it fail before",
                "any load unless the selector runs on that native backend (jdk: the JDK's built-in",
                "selector, which has no counters).",
                "");

        /** {@code --expect-backend} value for the JDK's built-in selector. */
        static final String NO_BACKEND = "jdk";

        String loadgen;
        String loadgenCpu;
        String expectBackend;
        int connections = 1000;
        int size = 64;
        long warmup = 2;
        long seconds = 8;

        /** The options, or null when help was asked for. */
        static Options parse(String[] args) {
            Options o = new Options();
            for (int i = 0; i < args.length; i++) {
                String arg = args[i];
                if (arg.equals("--help") || arg.equals("-h")) {
                    return null;
                }
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException("unknown option or missing value: " + arg);
                }
                String value = args[++i];
                switch (arg) {
                    case "--loadgen" -> o.loadgen = value;
                    case "--loadgen-cpu" -> o.loadgenCpu = value;
                    case "--expect-backend" -> o.expectBackend = value;
                    case "--connections" -> o.connections = (int) number(arg, value, 1, 1_000_000);
                    case "--size" -> o.size = (int) number(arg, value, 1, 1 << 20);
                    case "--warmup" -> o.warmup = number(arg, value, 0, 3600);
                    case "--seconds" -> o.seconds = number(arg, value, 1, 3600);
                    default -> throw new IllegalArgumentException("unknown option: " + arg);
                }
            }
            if (o.loadgen == null) {
                throw new IllegalArgumentException("--loadgen is required");
            }
            return o;
        }

        static long number(String name, String value, long min, long max) {
            try {
                long v = Long.parseLong(value);
                if (v >= min && v <= max) {
                    return v;
                }
            } catch (NumberFormatException e) {
                // reported below
            }
            throw new IllegalArgumentException(name + " " + value + ": expected an integer from "
                    + min + " to " + max);
        }

        List<String> loadgenCommand(int port) {
            List<String> command = new ArrayList<>();
            if (loadgenCpu != null) {
                command.addAll(List.of("taskset", "-c", loadgenCpu));
            }
            command.addAll(List.of(loadgen,
                    "--host", "127.0.0.1",
                    "--port", Integer.toString(port),
                    "--connections", Integer.toString(connections),
                    "--size", Integer.toString(size),
                    "--warmup", Long.toString(warmup),
                    "--seconds", Long.toString(seconds)));
            return command;
        }
    }

    /** The single-threaded echo server. */
    private static final class EchoServer implements Runnable {
        private final Selector selector;
        private final ServerSocketChannel listener;
        private final Thread thread;
        private volatile boolean stopping;
        private volatile Throwable failure;

        private EchoServer(Selector selector, ServerSocketChannel listener) {
            this.selector = selector;
            this.listener = listener;
            this.thread = new Thread(this, "echo-server");
            this.thread.setDaemon(true);
        }

        static EchoServer start(InetAddress address) throws IOException {
            Selector selector = Selector.open();
            ServerSocketChannel listener = ServerSocketChannel.open();
            try {
                listener.bind(new InetSocketAddress(address, 0), BACKLOG);
                listener.configureBlocking(false);
                listener.register(selector, SelectionKey.OP_ACCEPT);
            } catch (IOException | RuntimeException e) {
                listener.close();
                selector.close();
                throw e;
            }
            EchoServer server = new EchoServer(selector, listener);
            server.thread.start();
            return server;
        }

        Selector selector() {
            return selector;
        }

        String selectorName() {
            return selector.getClass().getSimpleName();
        }

        int port() throws IOException {
            return ((InetSocketAddress) listener.getLocalAddress()).getPort();
        }

        Throwable failure() {
            return failure;
        }

        /** Stops the loop, which closes every channel and the selector. */
        void stop() throws InterruptedException {
            stopping = true;
            selector.wakeup();
            thread.join(TimeUnit.SECONDS.toMillis(10));
            if (thread.isAlive()) {
                throw new DemoFailure("the echo server did not stop within 10 s");
            }
        }

        @Override
        public void run() {
            try {
                loop();
            } catch (Throwable t) {
                failure = t;
            } finally {
                closeAll();
            }
        }

        private void loop() throws IOException {
            while (!stopping) {
                selector.select();
                Iterator<SelectionKey> keys = selector.selectedKeys().iterator();
                while (keys.hasNext()) {
                    SelectionKey key = keys.next();
                    keys.remove();
                    if (!key.isValid()) {
                        continue;
                    }
                    if (key.isAcceptable()) {
                        accept();
                        continue;
                    }
                    try {
                        if (key.isWritable()) {
                            writePending(key);
                        } else if (key.isReadable()) {
                            echo(key);
                        }
                    } catch (IOException e) {
                        // The peer reset the connection: drop it.
                        close(key);
                    }
                }
            }
        }

        private void accept() throws IOException {
            SocketChannel channel;
            while ((channel = listener.accept()) != null) {
                channel.configureBlocking(false);
                channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
                channel.register(selector, SelectionKey.OP_READ, ByteBuffer.allocateDirect(BUFFER_BYTES));
            }
        }

        /** Reads what has arrived and writes it back; waits for OP_WRITE only if that falls short. */
        private void echo(SelectionKey key) throws IOException {
            SocketChannel channel = (SocketChannel) key.channel();
            ByteBuffer buffer = (ByteBuffer) key.attachment();
            int n = channel.read(buffer);
            if (n < 0) {
                close(key);
                return;
            }
            if (n == 0) {
                return;
            }
            buffer.flip();
            channel.write(buffer);
            if (buffer.hasRemaining()) {
                key.interestOps(SelectionKey.OP_WRITE);
            } else {
                buffer.clear();
            }
        }

        private void writePending(SelectionKey key) throws IOException {
            SocketChannel channel = (SocketChannel) key.channel();
            ByteBuffer buffer = (ByteBuffer) key.attachment();
            channel.write(buffer);
            if (!buffer.hasRemaining()) {
                buffer.clear();
                key.interestOps(SelectionKey.OP_READ);
            }
        }

        private static void close(SelectionKey key) {
            key.cancel();
            try {
                key.channel().close();
            } catch (IOException e) {
                // closing anyway
            }
        }

        private void closeAll() {
            try {
                for (SelectionKey key : selector.keys()) {
                    close(key);
                }
            } catch (RuntimeException e) {
                recordFailure(e);
            }
            try {
                listener.close();
            } catch (IOException e) {
                recordFailure(e);
            }
            try {
                selector.close();
            } catch (IOException e) {
                recordFailure(e);
            }
        }

        private void recordFailure(Throwable t) {
            if (failure == null) {
                failure = t;
            }
        }
    }

    /** Collects a child's stderr on a thread of its own, so that the child never blocks on it. */
    private static final class StreamCollector {
        private static final int LIMIT = 64 * 1024;
        private final StringBuilder text = new StringBuilder();
        private final Thread thread;

        private StreamCollector(InputStream in) {
            thread = new Thread(() -> {
                try (BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                    String line;
                    while ((line = reader.readLine()) != null) {
                        synchronized (text) {
                            if (text.length() < LIMIT) {
                                text.append(line).append('\n');
                            }
                        }
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }, "loadgen-stderr");
            thread.setDaemon(true);
        }

        static StreamCollector start(InputStream in) {
            StreamCollector collector = new StreamCollector(in);
            collector.thread.start();
            return collector;
        }

        String text() throws InterruptedException {
            thread.join(TimeUnit.SECONDS.toMillis(5));
            synchronized (text) {
                return text.toString();
            }
        }
    }

    /** A snapshot of a native selector's counters. */
    private static final class Counters {
        /** Output names, in the order of {@link StatsReader#ACCESSORS}. */
        static final String[] NAMES = {
            "batches", "changes", "kernel_calls_for_changes", "polls", "ready_events", "wakeups"
        };

        final String backend;
        final long[] values;

        Counters(String backend, long[] values) {
            this.backend = backend;
            this.values = values;
        }
    }

    /** Reads {@code SelectorStats.of(selector)} if the library is on the class path. */
    private static final class StatsReader {
        static final String[] ACCESSORS = {
            "batches", "changesApplied", "kernelCallsForChanges", "polls", "readyEvents", "wakeups"
        };

        private final Method of;
        private final Method backend;
        private final Method[] accessors;

        private StatsReader(Method of, Method backend, Method[] accessors) {
            this.of = of;
            this.backend = backend;
            this.accessors = accessors;
        }

        static StatsReader load() {
            Class<?> type;
            try {
                type = Class.forName(STATS_CLASS);
            } catch (ClassNotFoundException | LinkageError e) {
                return new StatsReader(null, null, null);
            }
            try {
                Method[] accessors = new Method[ACCESSORS.length];
                for (int i = 0; i < ACCESSORS.length; i++) {
                    accessors[i] = type.getMethod(ACCESSORS[i]);
                }
                return new StatsReader(type.getMethod("of", Selector.class), type.getMethod("backend"), accessors);
            } catch (NoSuchMethodException e) {
                throw new DemoFailure(STATS_CLASS + " lacks a method the demo reads: " + e.getMessage());
            }
        }

        /** The selector's counters, or null when it has none. */
        Counters read(Selector selector) {
            if (of == null) {
                return null;
            }
            try {
                Optional<?> stats = (Optional<?>) of.invoke(null, selector);
                if (stats.isEmpty()) {
                    return null;
                }
                Object s = stats.get();
                long[] values = new long[accessors.length];
                for (int i = 0; i < accessors.length; i++) {
                    values[i] = ((Number) accessors[i].invoke(s)).longValue();
                }
                return new Counters(String.valueOf(backend.invoke(s)), values);
            } catch (IllegalAccessException e) {
                throw new DemoFailure("cannot read " + STATS_CLASS + ": " + e);
            } catch (InvocationTargetException e) {
                throw new DemoFailure("reading " + STATS_CLASS + " failed: " + e.getCause(), e.getCause());
            }
        }
    }
}
