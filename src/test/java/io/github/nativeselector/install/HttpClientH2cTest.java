/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.install;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.nativeselector.NativeSelectorProvider;
import io.github.nativeselector.internal.NativeSelector;
import io.github.nativeselector.support.InstallChild;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The JDK's {@code HttpClient} on HTTP/2 cleartext (h2c, upgraded from HTTP/1.1) against Jetty 12's
 * {@code HTTP2CServerConnectionFactory}, under the flag: both open their selectors with
 * {@code Selector.open()}, so both client and server run on native selectors, with hundreds of
 * streams in flight at once on one connection. On each native backend, asked for by name.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class HttpClientH2cTest {

    private static final int STREAMS = 250;

    @ParameterizedTest
    @ValueSource(strings = {"epoll", "io_uring", "pollset"})
    void httpClientMultiplexesStreamsOverH2cOnNativeSelectorsUnderTheFlag(String backend) throws Exception {
        InstallChild.Result child = InstallChild.run(List.of(InstallChild.FLAG, "-Dnativeselector.backend=" + backend),
                HttpClientH2cProbe.class, String.valueOf(STREAMS));
        assertEquals(0, child.exitCode(), child::toString);
        assertEquals(NativeSelectorProvider.class.getName(), child.value("provider"), child::toString);
        assertEquals(NativeSelector.class.getName(), child.value("jettySelectors"), child::toString);
        assertTrue(child.value("nativeSelectorThreads").contains("SelectorManager"),
                () -> "HttpClient's selector thread is not in a native selector: " + child);

        assertEquals("200 HTTP_2 hello n=upgrade", child.value("upgrade"), child::toString);
        assertEquals("none", child.value("streamsWrong"), child::toString);
        assertEquals(String.valueOf(STREAMS), child.value("streamsRight"),
                () -> "each stream answered 200 on HTTP/2 with its own body: " + child);
        assertEquals(String.valueOf(STREAMS), child.value("heldAtOnce"),
                () -> "Jetty held every stream's answer until all had arrived: " + child);
        assertEquals("HTTP/2.0", child.value("serverProtocols"), child::toString);
        assertTrue(Integer.parseInt(child.value("remotePorts")) <= 2,
                () -> "the upgrade and the streams share the upgraded connection: " + child);

        // Jetty's selectors and the client's (found waiting in one above): Jetty registered its
        // acceptor and the connection and read the requests, the client registered the connection
        // and read the answers.
        Map<String, Long> totals = SelectorTotals.parse(child.value("totals"));
        assertTrue(totals.getOrDefault("selectorsOpened", 0L) >= 2, () -> "client and server selectors: " + child);
        assertTrue(totals.get("readyEvents") >= 3, () -> "ready events counted by the native selectors: " + child);
        assertTrue(totals.get("changesApplied") >= 3, () -> "registrations on both sides: " + child);
    }
}
