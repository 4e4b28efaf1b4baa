/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.install;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.nativeselector.support.InstallChild;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * The exchange the HTTP server tests share: a child JVM asks {@code GET /greet?n=i} of a server on
 * loopback with {@link HttpURLConnection}, which blocks and opens no selector, and prints each
 * answer's status and body; the test checks every answer, in order.
 */
final class GreetingRequests {

    private GreetingRequests() {
    }

    /**
     * Child side: {@code requests} requests, printing {@code status=} and {@code body=} lines; every
     * {@code closeEvery}-th one asks for {@code Connection: close} (0: none does).
     */
    static void print(int port, int requests, int closeEvery) throws IOException {
        for (int i = 0; i < requests; i++) {
            URL url = new URL("http://127.0.0.1:" + port + "/greet?n=" + i);
            HttpURLConnection connection = (HttpURLConnection) url.openConnection();
            connection.setConnectTimeout(10_000);
            connection.setReadTimeout(20_000);
            if (closeEvery > 0 && i % closeEvery == closeEvery - 1) {
                connection.setRequestProperty("Connection", "close");
            }
            System.out.println("status=" + connection.getResponseCode());
            try (InputStream in = connection.getInputStream()) {
                System.out.println("body=" + new String(in.readAllBytes(), StandardCharsets.UTF_8));
            }
        }
    }

    /** Test side: each of the {@code requests} was answered 200 with {@code hello n=i}, in order. */
    static void assertAnswered(InstallChild.Result child, int requests) {
        List<String> lines = List.of(child.stdout().split("\\R"));
        assertEquals(IntStream.range(0, requests).mapToObj(i -> "status=200").collect(Collectors.toList()),
                lines.stream().filter(l -> l.startsWith("status=")).collect(Collectors.toList()), child::toString);
        assertEquals(IntStream.range(0, requests).mapToObj(i -> "body=hello n=" + i).collect(Collectors.toList()),
                lines.stream().filter(l -> l.startsWith("body=")).collect(Collectors.toList()), child::toString);
    }
}
