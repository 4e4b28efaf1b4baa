/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.install;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.channels.spi.SelectorProvider;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.catalina.Context;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;

/**
 * Child-JVM main: embedded Tomcat on its default HTTP/1.1 connector (NIO) serving a servlet on
 * loopback, asked over raw sockets (which open no selector, so every selector the totals count is
 * Tomcat's) from {@code clients} threads at once: first {@code perClient} requests each over one
 * persistent connection, then {@code perClient} requests each with {@code Connection: close} on a
 * connection of its own. Prints the provider, the connector's protocol, for each phase the number
 * of correct responses, the first wrong one and the totals MBean after it, and the remote ports the
 * servlet saw during the persistent phase.
 */
public final class TomcatHttpProbe {

    private static final Set<Integer> REMOTE_PORTS = ConcurrentHashMap.newKeySet();

    private TomcatHttpProbe() {
    }

    public static void main(String[] args) throws Exception {
        int clients = Integer.parseInt(args[0]);
        int perClient = Integer.parseInt(args[1]);
        System.out.println("provider=" + SelectorProvider.provider().getClass().getName());
        Path baseDir = Files.createTempDirectory("tomcat-probe-");
        Tomcat tomcat = new Tomcat();
        tomcat.setBaseDir(baseDir.toString());
        Connector connector = new Connector();
        connector.setPort(0);
        connector.setProperty("address", "127.0.0.1");
        tomcat.setConnector(connector);
        Context context = tomcat.addContext("", null);
        Tomcat.addServlet(context, "greet", new Greeter());
        context.addServletMappingDecoded("/greet", "greet");
        tomcat.start();
        try {
            System.out.println("protocol=" + connector.getProtocolHandlerClassName());
            int port = connector.getLocalPort();
            SelectorTotals.print("totalsStarted");
            phase("keepAlive", clients, client -> keepAlive(port, client, perClient));
            System.out.println("keepAliveRemotePorts=" + REMOTE_PORTS.size());
            SelectorTotals.print("totalsKeepAlive");
            phase("close", clients, client -> close(port, client, perClient));
            SelectorTotals.print("totalsClose");
        } finally {
            tomcat.stop();
            tomcat.destroy();
            try (Stream<Path> files = Files.walk(baseDir)) {
                for (Path file : (Iterable<Path>) files.sorted(Comparator.reverseOrder())::iterator) {
                    Files.delete(file);
                }
            }
        }
        System.out.flush();
        System.exit(0);
    }

    /** One client's requests: the first wrong response, or null, and how many were right. */
    private record Outcome(int right, String firstWrong) {
    }

    private interface Client {
        Outcome run(int client) throws Exception;
    }

    /** Runs {@code clients} clients at once; prints {@code <name>Right=N} and {@code <name>Wrong=...|none}. */
    private static void phase(String name, int clients, Client body) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        try {
            List<Future<Outcome>> futures = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                int client = c;
                futures.add(pool.submit(() -> body.run(client)));
            }
            int right = 0;
            String firstWrong = "none";
            for (Future<Outcome> future : futures) {
                Outcome outcome = future.get(40, TimeUnit.SECONDS);
                right += outcome.right();
                if (outcome.firstWrong() != null && firstWrong.equals("none")) {
                    firstWrong = outcome.firstWrong();
                }
            }
            System.out.println(name + "Right=" + right);
            System.out.println(name + "Wrong=" + firstWrong);
        } finally {
            pool.shutdownNow();
        }
    }

    /** {@code requests} requests, one after the other, over one connection. */
    private static Outcome keepAlive(int port, int client, int requests) throws IOException {
        int right = 0;
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
            socket.setSoTimeout(20_000);
            InputStream in = new BufferedInputStream(socket.getInputStream());
            for (int i = 0; i < requests; i++) {
                int n = client * requests + i;
                String wrong = check(exchange(socket, in, n, false), n, false);
                if (wrong != null) {
                    return new Outcome(right, wrong);
                }
                right++;
            }
        }
        return new Outcome(right, null);
    }

    /** {@code requests} requests, each on a connection of its own that the server closes. */
    private static Outcome close(int port, int client, int requests) throws IOException {
        int right = 0;
        for (int i = 0; i < requests; i++) {
            int n = 100_000 + client * requests + i;
            try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
                socket.setSoTimeout(20_000);
                InputStream in = new BufferedInputStream(socket.getInputStream());
                String wrong = check(exchange(socket, in, n, true), n, true);
                if (wrong == null && in.read() != -1) {
                    wrong = "n=" + n + ": the server did not close the connection";
                }
                if (wrong != null) {
                    return new Outcome(right, wrong);
                }
                right++;
            }
        }
        return new Outcome(right, null);
    }

    /** A response as read off the wire: the status line, the headers (names in lower case), the body. */
    private record Reply(String statusLine, List<String> headers, String body) {
    }

    /** Sends {@code GET /greet?n=N} and reads the response, whose length Content-Length gives. */
    private static Reply exchange(Socket socket, InputStream in, int n, boolean close) throws IOException {
        String request = "GET /greet?n=" + n + " HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                + (close ? "Connection: close\r\n" : "") + "\r\n";
        OutputStream out = socket.getOutputStream();
        out.write(request.getBytes(StandardCharsets.US_ASCII));
        out.flush();
        String statusLine = line(in);
        List<String> headers = new ArrayList<>();
        int length = -1;
        for (String header = line(in); !header.isEmpty(); header = line(in)) {
            String lower = header.toLowerCase(Locale.ROOT);
            headers.add(lower);
            if (lower.startsWith("content-length:")) {
                length = Integer.parseInt(lower.substring("content-length:".length()).trim());
            }
        }
        if (length < 0) {
            return new Reply(statusLine, headers, null);
        }
        return new Reply(statusLine, headers, new String(in.readNBytes(length), StandardCharsets.UTF_8));
    }

    /** What is wrong with {@code reply} to request {@code n}, or null. */
    private static String check(Reply reply, int n, boolean close) {
        if (!reply.statusLine().startsWith("HTTP/1.1 200 ")
                || !("hello n=" + n).equals(reply.body())
                || close != reply.headers().contains("connection: close")) {
            return "n=" + n + ": " + reply;
        }
        return null;
    }

    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        for (int b = in.read(); b != '\n'; b = in.read()) {
            if (b == -1) {
                throw new IOException("connection closed after \"" + line.toString(StandardCharsets.US_ASCII) + "\"");
            }
            if (b != '\r') {
                line.write(b);
            }
        }
        return line.toString(StandardCharsets.US_ASCII);
    }

    /** Answers {@code /greet?n=N} with {@code hello n=N}, noting the connection's remote port. */
    private static final class Greeter extends HttpServlet {
        private static final long serialVersionUID = 1L;

        @Override
        protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
            REMOTE_PORTS.add(request.getRemotePort());
            byte[] body = ("hello n=" + request.getParameter("n")).getBytes(StandardCharsets.UTF_8);
            response.setStatus(200);
            response.setContentType("text/plain;charset=utf-8");
            response.setContentLength(body.length);
            response.getOutputStream().write(body);
        }
    }
}
