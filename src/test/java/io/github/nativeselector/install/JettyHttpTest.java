/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.install;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.nativeselector.NativeSelectorProvider;
import io.github.nativeselector.internal.NativeSelector;
import io.github.nativeselector.support.InstallChild;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Jetty 12 serving HTTP on our selector: unmodified and on its defaults under the flag, and through
 * the explicit route, a connector whose selector manager opens {@code NativeSelectorProvider.provider().openSelector()}.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class JettyHttpTest {

    private static final int REQUESTS = 20;

    @Test
    void jettyServesHttpOnTheNativeSelectorUnderTheFlag() throws Exception {
        InstallChild.Result child = InstallChild.run(List.of(InstallChild.FLAG), JettyHttpProbe.class,
                String.valueOf(REQUESTS));
        assertEquals(NativeSelectorProvider.class.getName(), child.value("provider"), child::toString);
        assertServedOnNativeSelectors(child);
    }

    /**
     * The explicit route, proved to be the only one: the child's system class path holds the test
     * classes alone (which carry no {@code META-INF/services}), and {@link OwnLoaderLauncher} runs
     * the probe in a class loader of its own over the whole test class path, native-selector's
     * classes and Jetty included, as a fat jar's launcher or a web application's loader would. So
     * neither the flag (absent) nor the services file (invisible to the system class loader) makes
     * our provider the system-wide one: {@code SelectorProvider.provider()} stays the JDK's, and
     * only Jetty's overridden {@code newSelector()} reaches ours. The totals MBean is the
     * platform's; the probe reads it through the interface its own loader loaded with the provider.
     */
    @Test
    void jettyServesHttpOnTheNativeSelectorThroughItsSelectorManager() throws Exception {
        Path testClasses = Paths.get(JettyExplicitProbe.class.getProtectionDomain().getCodeSource()
                .getLocation().toURI());
        assertFalse(Files.exists(testClasses.resolve("META-INF/services")), "test classes carry no META-INF/services");
        InstallChild.Result child = InstallChild.run(testClasses.toString(), List.of(), OwnLoaderLauncher.class,
                InstallChild.testClassPath(), JettyExplicitProbe.class.getName(), String.valueOf(REQUESTS));
        assertTrue(child.value("provider") != null && child.value("provider").startsWith("sun.nio.ch."),
                () -> "the system-wide provider is the JDK's: " + child);
        assertNotEquals(NativeSelectorProvider.class.getName(), child.value("provider"), child::toString);
        assertEquals("false", child.value("systemLoaderSeesNativeSelector"), child::toString);
        assertEquals(OwnLoaderLauncher.LOADER_NAME, child.value("nativeSelectorLoader"), child::toString);
        assertServedOnNativeSelectors(child);
    }

    private static void assertServedOnNativeSelectors(InstallChild.Result child) {
        assertEquals(0, child.exitCode(), child::toString);
        String selectors = child.value("jettySelectors");
        assertTrue(selectors != null && !selectors.isEmpty(), child::toString);
        for (String selector : selectors.split(",")) {
            assertEquals(NativeSelector.class.getName(), selector, child::toString);
        }
        GreetingRequests.assertAnswered(child, REQUESTS);
        // Only Jetty opens selectors in the child: what the native selectors counted, Jetty did on them.
        Map<String, Long> totals = SelectorTotals.parse(child.value("totals"));
        assertTrue(totals.getOrDefault("selectorsOpened", 0L) >= 1, () -> "no native selector: " + child);
        assertTrue(totals.get("readyEvents") >= REQUESTS, () -> "each request is read when ready: " + child);
        assertTrue(totals.get("changesApplied") >= 2, () -> "the acceptor and a connection registered: " + child);
    }
}
