/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.install;

import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.channels.spi.SelectorProvider;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http2.server.HTTP2CServerConnectionFactory;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;

/**
 * Child-JVM main: the JDK's {@link HttpClient} on HTTP/2 over cleartext (h2c) against Jetty 12
 * serving HTTP/1.1 with the upgrade to h2c, both on their defaults. One request upgrades the
 * connection, then {@code streams} requests go at once; Jetty holds every answer until all of them
 * have arrived, so they are all in flight together. Prints the provider, the class of Jetty's
 * selectors, the upgrade's and the streams' outcomes, the protocols and remote ports Jetty saw, the
 * threads waiting in a native selector, and the totals MBean.
 */
public final class HttpClientH2cProbe {

    private HttpClientH2cProbe() {
    }

    public static void main(String[] args) throws Exception {
        int streams = Integer.parseInt(args[0]);
        System.out.println("provider=" + SelectorProvider.provider().getClass().getName());
        Server server = new Server();
        HttpConfiguration config = new HttpConfiguration();
        HTTP2CServerConnectionFactory h2c = new HTTP2CServerConnectionFactory(config);
        h2c.setMaxConcurrentStreams(2 * streams);
        ServerConnector connector = new ServerConnector(server, new HttpConnectionFactory(config), h2c);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        Held held = new Held(streams);
        server.setHandler(held);
        server.start();
        try {
            System.out.println("jettySelectors=" + JettyHttpProbe.selectorClasses(connector));
            HttpClient client = HttpClient.newBuilder()
                    .version(HttpClient.Version.HTTP_2)
                    .connectTimeout(Duration.ofSeconds(10))
                    .build();
            String base = "http://127.0.0.1:" + connector.getLocalPort();
            HttpResponse<String> upgrade = client.send(request(base + "/upgrade?n=upgrade"),
                    HttpResponse.BodyHandlers.ofString());
            System.out.println("upgrade=" + upgrade.statusCode() + " " + upgrade.version() + " " + upgrade.body());
            List<CompletableFuture<HttpResponse<String>>> responses = new ArrayList<>();
            for (int i = 0; i < streams; i++) {
                responses.add(client.sendAsync(request(base + "/held?n=" + i), HttpResponse.BodyHandlers.ofString()));
            }
            int right = 0;
            String firstWrong = "none";
            for (int i = 0; i < streams; i++) {
                HttpResponse<String> response = responses.get(i).get(50, TimeUnit.SECONDS);
                if (response.statusCode() == 200 && response.version() == HttpClient.Version.HTTP_2
                        && response.body().equals("hello n=" + i)) {
                    right++;
                } else if (firstWrong.equals("none")) {
                    firstWrong = "n=" + i + ": " + response.statusCode() + " " + response.version() + " "
                            + response.body();
                }
            }
            System.out.println("streamsRight=" + right);
            System.out.println("streamsWrong=" + firstWrong);
            System.out.println("heldAtOnce=" + held.releasedAt);
            System.out.println("serverProtocols=" + String.join(",", new TreeSet<>(held.protocols)));
            System.out.println("remotePorts=" + held.remotePorts.size());
            System.out.println("nativeSelectorThreads="
                    + InstallHttpProbe.threadsInNativeSelector(client, "SelectorManager"));
            SelectorTotals.print();
        } finally {
            server.stop();
        }
        System.out.flush();
        System.exit(0);
    }

    private static HttpRequest request(String uri) {
        return HttpRequest.newBuilder(URI.create(uri)).timeout(Duration.ofSeconds(40)).GET().build();
    }

    /**
     * Answers {@code /P?Q} with {@code hello Q}: {@code /upgrade} at once, {@code /held} once
     * {@code count} of them have arrived, all of them then. Notes each request's remote port and
     * each {@code /held} request's protocol.
     */
    private static final class Held extends Handler.Abstract {
        final Set<String> protocols = ConcurrentHashMap.newKeySet();
        final Set<Integer> remotePorts = ConcurrentHashMap.newKeySet();
        private final int count;
        private final List<Runnable> waiting = new ArrayList<>();
        private int releasedAt;

        Held(int count) {
            this.count = count;
        }

        @Override
        public boolean handle(Request request, Response response, Callback callback) {
            remotePorts.add(((InetSocketAddress) request.getConnectionMetaData().getRemoteSocketAddress()).getPort());
            Runnable answer = () -> {
                byte[] body = ("hello " + request.getHttpURI().getQuery()).getBytes(StandardCharsets.UTF_8);
                response.setStatus(200);
                response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/plain; charset=utf-8");
                response.write(true, ByteBuffer.wrap(body), callback);
            };
            if (!request.getHttpURI().getPath().equals("/held")) {
                answer.run();
                return true;
            }
            protocols.add(request.getConnectionMetaData().getProtocol());
            List<Runnable> release = List.of();
            synchronized (this) {
                waiting.add(answer);
                if (waiting.size() == count) {
                    releasedAt = waiting.size();
                    release = new ArrayList<>(waiting);
                }
            }
            release.forEach(Runnable::run);
            return true;
        }
    }
}
