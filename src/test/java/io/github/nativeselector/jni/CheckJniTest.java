/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.jni;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import io.github.nativeselector.closereuse.FdLimitTest;
import io.github.nativeselector.support.InstallChild;
import io.github.nativeselector.support.TestSelectors;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The library's JNI use under {@code -Xcheck:jni}, in child JVMs whose whole output is read:
 * the JVM's checks print a warning (or stop the JVM) for a JNI call made with an exception
 * pending, a leaked or misused reference, a wrong type; any warning fails the test. The
 * normal paths run through {@link JniWorkoutProbe}, the error paths (every descriptor in use)
 * through {@link io.github.nativeselector.closereuse.FdLimitProbe}.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class CheckJniTest {

    private static final List<String> CHECK_JNI = List.of("-Xcheck:jni");

    @Test
    void selectingRaisesNoJniWarning() throws Exception {
        InstallChild.Result child = InstallChild.run(CHECK_JNI, JniWorkoutProbe.class, "20", "300");
        assertEquals(0, child.exitCode(), child::toString);
        assertNoJniComplaint(child);
    }

    @Test
    void failingAtTheFileDescriptorLimitRaisesNoJniWarning() throws Exception {
        for (TestSelectors selectors : TestSelectors.all().toList()) {
            InstallChild.Result child = FdLimitTest.runProbe(CHECK_JNI, selectors);
            FdLimitTest.assertProbeSucceeded(child, selectors);
            assertNoJniComplaint(child);
        }
    }

    /** -Xcheck:jni reports as "WARNING in native method: ..." or "FATAL ERROR in native method: ...". */
    private static void assertNoJniComplaint(InstallChild.Result child) {
        for (String line : (child.stdout() + child.stderr()).split("\\R")) {
            if (line.contains("WARNING") || line.contains("FATAL")) {
                fail("-Xcheck:jni complained: " + line + "\n" + child);
            }
        }
    }
}
