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
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Jetty 12, unmodified and on its defaults, serving HTTP on our selector under the flag. */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class JettyHttpTest {

    private static final int REQUESTS = 20;

    @Test
    void jettyServesHttpOnTheNativeSelectorUnderTheFlag() throws Exception {
        InstallChild.Result child = InstallChild.run(List.of(InstallChild.FLAG), JettyHttpProbe.class,
                String.valueOf(REQUESTS));
        assertEquals(0, child.exitCode(), child::toString);
        assertEquals(NativeSelectorProvider.class.getName(), child.value("provider"), child::toString);
        List<String> lines = List.of(child.stdout().split("\\R"));
        assertEquals(IntStream.range(0, REQUESTS).mapToObj(i -> "status=200").collect(Collectors.toList()),
                lines.stream().filter(l -> l.startsWith("status=")).collect(Collectors.toList()), child::toString);
        assertEquals(IntStream.range(0, REQUESTS).mapToObj(i -> "body=hello n=" + i).collect(Collectors.toList()),
                lines.stream().filter(l -> l.startsWith("body=")).collect(Collectors.toList()), child::toString);
        // Only Jetty opens selectors in the child: what the native selectors counted, Jetty did on them.
        Map<String, Long> totals = SelectorTotals.parse(child.value("totals"));
        assertTrue(totals.getOrDefault("selectorsOpened", 0L) >= 1, () -> "no native selector: " + child);
        assertTrue(totals.get("readyEvents") >= REQUESTS, () -> "each request is read when ready: " + child);
        assertTrue(totals.get("changesApplied") >= 2, () -> "the acceptor and a connection registered: " + child);
    }
}
