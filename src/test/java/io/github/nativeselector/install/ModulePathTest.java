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
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The library as a module on the module path ({@link ModulePathProbe} in a child JVM, run from the
 * class path with the main classes as the module {@code io.github.nativeselector}): it exports its
 * public package alone and opens nothing, installs itself as the JVM's provider, and its selector
 * works, with every module it can do without (as a runtime built with jlink may lack them) and
 * with none of them.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class ModulePathTest {

    private static final String MODULE = "io.github.nativeselector";
    private static final String PROVIDER = NativeSelectorProvider.class.getName();

    @Test
    void everyModuleInTheGraph() throws Exception {
        InstallChild.Result child = runProbe(List.of());
        assertSealedModuleWorks(child);
        assertEquals("[java.management, jdk.jfr, jdk.unsupported]", child.value("optionalModules"), child::toString);
        assertEquals("epoll", child.value("mbean"), child::toString);
        assertTrue(Long.parseLong(child.value("batchEvents")) > 0, child::toString);
    }

    @Test
    void noModuleButJavaBaseBesideIt() throws Exception {
        InstallChild.Result child = runProbe(List.of("--limit-modules", MODULE));
        assertSealedModuleWorks(child);
        assertEquals("[]", child.value("optionalModules"), child::toString);
    }

    private static void assertSealedModuleWorks(InstallChild.Result child) {
        assertEquals(0, child.exitCode(), child::toString);
        assertEquals(MODULE, child.value("module"), child::toString);
        assertEquals("[" + MODULE + "]", child.value("exports"), child::toString);
        assertEquals("[]", child.value("opens"), child::toString);
        assertEquals("[java.nio.channels.spi.SelectorProvider with [" + PROVIDER + "]]", child.value("provides"),
                child::toString);
        assertEquals("false", child.value("internalExported"), child::toString);
        assertEquals("false", child.value("internalOpen"), child::toString);
        assertEquals(PROVIDER, child.value("provider"), child::toString);
        assertEquals(NativeSelector.class.getName(), child.value("selector"), child::toString);
        assertEquals("ok rounds=20", child.value("echo"), child::toString);
        assertEquals("epoll polls>0=true", child.value("stats"), child::toString);
        assertEquals("IllegalAccessException", child.value("internalCall"), child::toString);
        assertEquals("InaccessibleObjectException", child.value("internalSetAccessible"), child::toString);
        assertTrue(child.stderr().isBlank(), child::toString);
    }

    /**
     * Runs the probe with the main classes as the module and the test classes, which hold the
     * probe, as the class path.
     */
    private static InstallChild.Result runProbe(List<String> jvmArgs) throws Exception {
        Path mainClasses = Paths.get(NativeSelectorProvider.class.getProtectionDomain().getCodeSource()
                .getLocation().toURI());
        Path testClasses = Paths.get(ModulePathProbe.class.getProtectionDomain().getCodeSource()
                .getLocation().toURI());
        assertTrue(Files.isRegularFile(mainClasses.resolve("module-info.class")), mainClasses::toString);
        List<String> args = new ArrayList<>(List.of("--enable-native-access=" + MODULE,
                "--module-path", mainClasses.toString(), "--add-modules", MODULE));
        args.addAll(jvmArgs);
        return InstallChild.run(testClasses.toString(), args, ModulePathProbe.class);
    }
}
