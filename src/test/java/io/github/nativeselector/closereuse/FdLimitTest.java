/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.closereuse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.nativeselector.support.ContractSupport;
import io.github.nativeselector.support.InstallChild;
import io.github.nativeselector.support.TestSelectors;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Each selector in a child JVM whose open-file limit is {@value #LIMIT} ({@link FdLimitProbe}):
 * at the limit, accept() fails with an IOException and the selector goes on selecting, waking
 * up and registering; opening another selector fails with an IOException and leaves no
 * descriptor behind; a selector holds as many channels as the limit allows; closing twice is
 * harmless; and the steps leave no descriptor open.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
public class FdLimitTest {

    static final int LIMIT = 256;
    static final String TOO_MANY = "Too many open files";
    private static final Pattern MANY = Pattern.compile("pipes (\\d+) keys (\\d+) writable (\\d+) true readable (\\d+) true");

    /**
     * Runs the probe with a hard and soft limit of {@link #LIMIT} (the JVM raises only the soft
     * one). While methods wait to be compiled, the JVM reads its cgroup's memory files before it
     * starts another compiler thread, each read holding a descriptor for a moment: a fixed
     * number of compiler threads keeps those reads out of the probe's count of free descriptors.
     */
    public static InstallChild.Result runProbe(List<String> jvmArgs, TestSelectors selectors) throws Exception {
        List<String> launcher = List.of("bash", "-c", "ulimit -n " + LIMIT + " && exec \"$@\"", "bash");
        List<String> args = new ArrayList<>(jvmArgs);
        args.add("-XX:-UseDynamicNumberOfCompilerThreads");
        return InstallChild.runThrough(launcher, args, FdLimitProbe.class, selectors.name());
    }

    @ParameterizedTest
    @MethodSource(ContractSupport.ALL)
    void atTheLimitSelectorsFailCleanlyAndKeepWorking(TestSelectors selectors) throws Exception {
        InstallChild.Result child = runProbe(List.of(), selectors);
        assertProbeSucceeded(child, selectors);
    }

    public static void assertProbeSucceeded(InstallChild.Result child, TestSelectors selectors) {
        String name = selectors.name() + ".";
        assertEquals(0, child.exitCode(), child::toString);
        assertTrue(String.valueOf(child.value(name + "fillError")).endsWith(TOO_MANY), child::toString);
        assertEquals("IOException: " + TOO_MANY, child.value(name + "accept"), () -> "accept() at the limit: " + child);
        assertEquals("1 true", child.value(name + "stillAcceptable"), () -> "select after accept() failed: " + child);
        assertEquals("0", child.value(name + "wakeupAtTheLimit"), child::toString);
        assertEquals("1", child.value(name + "registerAtTheLimit"), child::toString);
        assertStartsWith("IOException: ", child.value(name + "openAtTheLimit"), child);
        assertStartsWith("IOException: ", child.value(name + "openWithOneFree"), child);
        assertEquals("true", child.value(name + "oneStillFree"),
                () -> "a selector that failed to open kept a descriptor: " + child);
        assertEquals("ok", child.value(name + "acceptOnceFreed"), child::toString);

        String many = child.value(name + "manyChannels");
        Matcher counts = MANY.matcher(String.valueOf(many));
        assertTrue(counts.matches(), () -> "with every descriptor registered: " + child);
        int pipes = Integer.parseInt(counts.group(1));
        assertTrue(pipes > LIMIT / 4, () -> "only " + pipes + " pipes fitted under the limit: " + child);
        assertEquals(2 * pipes, Integer.parseInt(counts.group(2)), () -> "keys: " + child);
        assertEquals(pipes, Integer.parseInt(counts.group(3)), () -> "writable sinks: " + child);
        assertEquals((pipes + 2) / 3, Integer.parseInt(counts.group(4)), () -> "readable sources: " + child);
        assertEquals("0", child.value(name + "keysAfterClosingThem"), child::toString);

        assertEquals("ok false false false", child.value(name + "closeTwice"), child::toString);
        assertEquals("{}", child.value(name + "fdsLeftOpen"), () -> "descriptors the steps left open: " + child);
    }

    private static void assertStartsWith(String prefix, String value, InstallChild.Result child) {
        assertTrue(value != null && value.startsWith(prefix), () -> "expected " + prefix + "...: " + child);
    }
}
