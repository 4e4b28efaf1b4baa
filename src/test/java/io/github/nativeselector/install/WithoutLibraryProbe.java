/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.install;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.channels.Channel;
import java.nio.channels.DatagramChannel;
import java.nio.channels.Pipe;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.spi.SelectorProvider;
import java.time.Duration;

/**
 * Child-JVM main: every NIO operation an application makes through the installed provider,
 * each printed as {@code name=ok <detail>} or {@code name=failed <throwable>}: the four channel
 * factories, {@link Selector#open()} with an echo and a pipe round trip on it, a second selector,
 * and the JDK's HTTP client talking to the JDK's HTTP server over loopback.
 */
public final class WithoutLibraryProbe {

    /** One operation; what it returns is printed after {@code ok}. */
    private interface Step {
        Object run() throws Exception;
    }

    private WithoutLibraryProbe() {
    }

    public static void main(String[] args) {
        System.out.println("provider=" + SelectorProvider.provider().getClass().getName());
        step("socketChannel", () -> closed(SocketChannel.open()));
        step("serverSocketChannel", () -> closed(ServerSocketChannel.open()));
        step("unixSocketChannel", () -> closed(SocketChannel.open(StandardProtocolFamily.UNIX)));
        step("datagramChannel", () -> closed(DatagramChannel.open()));
        step("pipe", () -> {
            Pipe pipe = Pipe.open();
            closed(pipe.sink());
            return closed(pipe.source());
        });
        step("selector", () -> {
            try (Selector selector = Selector.open()) {
                InstallProbe.echoRoundTrip(selector, 5);
                UringFallbackProbe.pipeRoundTrip(selector);
                return selector.getClass().getName();
            }
        });
        step("secondSelector", () -> {
            try (Selector selector = Selector.open()) {
                return selector.getClass().getName();
            }
        });
        step("http", WithoutLibraryProbe::httpRoundTrip);
        System.out.flush();
    }

    private static void step(String name, Step step) {
        String outcome;
        try {
            outcome = "ok " + step.run();
        } catch (Throwable t) {
            outcome = "failed " + t;
        }
        System.out.println(name + "=" + outcome);
    }

    /** Closes a freshly opened channel; its class name is the step's detail. */
    private static String closed(Channel channel) throws IOException {
        channel.close();
        return channel.getClass().getName();
    }

    private static String httpRoundTrip() throws Exception {
        HttpServer server = InstallHttpProbe.greetingServer();
        try {
            HttpClient client = HttpClient.newHttpClient();
            InetSocketAddress address = server.getAddress();
            URI uri = URI.create("http://127.0.0.1:" + address.getPort() + "/greet?name=probe");
            HttpResponse<String> response = client.send(
                    HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(20)).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            return response.statusCode() + " " + response.body();
        } finally {
            server.stop(0);
        }
    }
}
