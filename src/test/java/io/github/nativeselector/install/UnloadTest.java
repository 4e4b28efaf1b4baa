/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.install;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.nativeselector.NativeSelectorProvider;
import io.github.nativeselector.support.InstallChild;
import java.nio.file.Paths;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A web application that carried the library and is undeployed leaves nothing of it behind: once
 * its selectors are closed, its class loader can be collected. The cleaner's thread kept it (its
 * context class loader, and on JDK 17 to 23 its inherited access control context), and so did the
 * totals MBean and the flight recorder's listener and periodic event, which are now withdrawn with
 * the last selector of a copy that such a loader loaded. Its MBeans' names carry a key of its own
 * beside the system class loader's copy's, whose selectors are numbered from 1 too.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class UnloadTest {

    @Test
    void aClassLoaderThatCarriedTheLibraryIsCollectedOnceItsSelectorsAreClosed() throws Exception {
        String mainClasses = Paths.get(NativeSelectorProvider.class.getProtectionDomain().getCodeSource()
                .getLocation().toURI()).toString();
        InstallChild.Result child = InstallChild.run(List.of(), UnloadProbe.class, mainClasses);
        assertEquals(0, child.exitCode(), child::toString);
        assertEquals("io.github.nativeselector.internal.NativeSelector", child.value("selector"), child::toString);
        assertEquals("1", child.value("selected"), child::toString);
        assertEquals("true", child.value("totalsOpen"), child::toString);
        assertEquals("2", child.value("selectorMBeans"), () -> "one per copy: " + child);
        assertEquals("2", child.value("totalsMBeans"), () -> "one per copy: " + child);
        assertEquals("false", child.value("totalsClosed"), child::toString);
        assertEquals("true", child.value("collected"), child::toString);
    }
}
