/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.install;

import java.net.HttpURLConnection;
import java.nio.ByteBuffer;
import java.nio.channels.spi.SelectorProvider;
import java.nio.charset.StandardCharsets;
import java.util.stream.Collectors;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.ManagedSelector;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;

/**
 * Child-JVM main: Jetty 12 on its defaults serving HTTP on loopback, asked {@code requests} times
 * by {@link HttpURLConnection}, which blocks and opens no selector, so every selector the totals
 * count is Jetty's. Prints the provider, the class of each of the connector's selectors, each
 * status and body, and the totals MBean.
 */
public final class JettyHttpProbe {

    private JettyHttpProbe() {
    }

    public static void main(String[] args) throws Exception {
        System.out.println("provider=" + SelectorProvider.provider().getClass().getName());
        Server server = new Server();
        serve(server, new ServerConnector(server), Integer.parseInt(args[0]));
        System.out.flush();
        System.exit(0);
    }

    /**
     * Serves {@code /greet?Q} (answering {@code hello Q}) on {@code connector}, bound to loopback,
     * asks it {@code requests} times, prints what the class comment says, and stops the server.
     */
    static void serve(Server server, ServerConnector connector, int requests) throws Exception {
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        server.setHandler(new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) {
                byte[] body = ("hello " + request.getHttpURI().getQuery()).getBytes(StandardCharsets.UTF_8);
                response.setStatus(200);
                response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/plain; charset=utf-8");
                response.write(true, ByteBuffer.wrap(body), callback);
                return true;
            }
        });
        server.start();
        try {
            System.out.println("jettySelectors=" + selectorClasses(connector));
            GreetingRequests.print(connector.getLocalPort(), requests, 0);
            SelectorTotals.print();
        } finally {
            server.stop();
        }
    }

    /** The class names of the selectors the started connector's selector manager polls, comma-separated. */
    static String selectorClasses(ServerConnector connector) {
        return connector.getSelectorManager().getBeans(ManagedSelector.class).stream()
                .map(managed -> managed.getSelector().getClass().getName())
                .collect(Collectors.joining(","));
    }
}
