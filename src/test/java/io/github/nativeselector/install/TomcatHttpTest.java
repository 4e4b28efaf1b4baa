/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.install;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.nativeselector.NativeSelectorProvider;
import io.github.nativeselector.support.InstallChild;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Embedded Tomcat (Spring Boot's, 10.1), unmodified, on its default HTTP/1.1 connector
 * ({@code Http11NioProtocol}, whose poller opens its selector with {@code Selector.open()}), serving
 * on our selector under the flag: keep-alive requests over a few persistent connections, then
 * short connections, each closed after one request. On each native backend, asked for by name, so
 * that one that cannot open fails Tomcat's start instead of giving way to the JDK's selector.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class TomcatHttpTest {

    private static final int CLIENTS = 4;
    private static final int PER_CLIENT = 60;
    private static final int REQUESTS = CLIENTS * PER_CLIENT;

    @ParameterizedTest
    @ValueSource(strings = {"epoll", "io_uring", "pollset"})
    void tomcatServesKeepAliveAndShortConnectionsOnTheNativeSelectorUnderTheFlag(String backend) throws Exception {
        InstallChild.Result child = InstallChild.run(List.of(InstallChild.FLAG, "-Dnativeselector.backend=" + backend),
                TomcatHttpProbe.class, String.valueOf(CLIENTS), String.valueOf(PER_CLIENT));
        assertEquals(0, child.exitCode(), child::toString);
        assertEquals(NativeSelectorProvider.class.getName(), child.value("provider"), child::toString);
        assertEquals("org.apache.coyote.http11.Http11NioProtocol", child.value("protocol"), child::toString);

        // Every request answered 200 with its own body; each client's connection carried all its requests.
        assertEquals("none", child.value("keepAliveWrong"), child::toString);
        assertEquals(String.valueOf(REQUESTS), child.value("keepAliveRight"), child::toString);
        assertEquals(String.valueOf(CLIENTS), child.value("keepAliveRemotePorts"),
                () -> "the servlet saw one connection per client: " + child);
        // Each closed by the server after its response, which said Connection: close.
        assertEquals("none", child.value("closeWrong"), child::toString);
        assertEquals(String.valueOf(REQUESTS), child.value("closeRight"), child::toString);

        // Only Tomcat opens selectors in the child (its poller's): what they counted, Tomcat did on them.
        Map<String, Long> started = SelectorTotals.parse(child.value("totalsStarted"));
        Map<String, Long> keepAlive = SelectorTotals.parse(child.value("totalsKeepAlive"));
        Map<String, Long> close = SelectorTotals.parse(child.value("totalsClose"));
        assertTrue(started.getOrDefault("selectorsOpened", 0L) >= 1, () -> "no native selector: " + child);
        // A new connection goes to the poller, which hands it to a worker once it is readable; a
        // worker that has answered a keep-alive request reads on, so the next request, if already
        // there, needs no select.
        assertTrue(keepAlive.get("readyEvents") - started.get("readyEvents") >= CLIENTS,
                () -> "each persistent connection's first request is read when ready: " + child);
        assertTrue(keepAlive.get("changesApplied") - started.get("changesApplied") >= CLIENTS,
                () -> "each persistent connection registered with the poller: " + child);
        assertTrue(close.get("readyEvents") - keepAlive.get("readyEvents") >= REQUESTS,
                () -> "each short connection's request is read when ready: " + child);
        assertTrue(close.get("changesApplied") - keepAlive.get("changesApplied") >= REQUESTS,
                () -> "each short connection registered with the poller: " + child);
    }
}
