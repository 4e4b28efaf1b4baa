/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.install;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.channels.spi.SelectorProvider;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeSet;

/**
 * Child-JVM main: the JDK's own HTTP server and client, which both open their selectors with
 * {@link java.nio.channels.Selector#open()}, talking over loopback. Prints the provider, the
 * response, and the threads found waiting inside a native selector.
 */
public final class InstallHttpProbe {

    static final String NATIVE_SELECTOR = "io.github.nativeselector.internal.NativeSelector";

    private InstallHttpProbe() {
    }

    public static void main(String[] args) throws Exception {
        System.out.println("provider=" + SelectorProvider.provider().getClass().getName());
        HttpServer server = greetingServer();
        try {
            HttpClient client = HttpClient.newBuilder()
                    .version(HttpClient.Version.HTTP_1_1)
                    .connectTimeout(Duration.ofSeconds(10))
                    .build();
            URI uri = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/greet?name=probe");
            for (int i = 0; i < 3; i++) {
                HttpResponse<String> response = client.send(
                        HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(20)).GET().build(),
                        HttpResponse.BodyHandlers.ofString());
                System.out.println("status=" + response.statusCode());
                System.out.println("body=" + response.body());
            }
            System.out.println("nativeSelectorThreads="
                    + threadsInNativeSelector(client, "SelectorManager", "HTTP-Dispatcher"));
            SelectorTotals.print();
        } finally {
            server.stop(0);
        }
        System.out.flush();
        System.exit(0);
    }

    /** A started HTTP server on loopback whose {@code /greet?Q} answers {@code hello, Q}. */
    static HttpServer greetingServer() throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/greet", exchange -> {
            byte[] body = ("hello, " + exchange.getRequestURI().getQuery()).getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        server.start();
        return server;
    }

    /**
     * Names of the threads (idle, so waiting in a select) whose stack passes through a native
     * selector; polls up to 5 s for a thread whose name contains each of {@code expected} (the
     * JDK's HTTP client names its selector thread {@code ...SelectorManager}, its server
     * {@code HTTP-Dispatcher}).
     */
    static String threadsInNativeSelector(Object keepAlive, String... expected) throws InterruptedException {
        TreeSet<String> names = new TreeSet<>();
        long deadline = System.nanoTime() + 5_000_000_000L;
        do {
            for (Map.Entry<Thread, StackTraceElement[]> e : Thread.getAllStackTraces().entrySet()) {
                for (StackTraceElement frame : e.getValue()) {
                    if (frame.getClassName().equals(NATIVE_SELECTOR)) {
                        names.add(e.getKey().getName());
                        break;
                    }
                }
            }
            if (Arrays.stream(expected).allMatch(part -> names.stream().anyMatch(n -> n.contains(part)))) {
                break;
            }
            Thread.sleep(20);
        } while (System.nanoTime() - deadline < 0);
        java.lang.ref.Reference.reachabilityFence(keepAlive);
        return String.join(",", names);
    }
}
