/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.nativeselector.support.InstallChild;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A selector that cannot be made around a backend already open (here for want of direct memory
 * for its buffers) closes the backend: each failed {@code Selector.open()} used to leave an epoll
 * descriptor, an eventfd and an io_uring ring open for good. One that fails once published (its
 * batch's memory) withdraws itself at once: it stayed counted open, with its MBean, until the
 * cleaner came for it.
 */
@Timeout(120)
class SelectorOpenFailureTest {

    @Test
    void aSelectorThatCannotBeMadeClosesItsBackend() throws Exception {
        InstallChild.Result child = InstallChild.run(List.of("-XX:MaxDirectMemorySize=4m"),
                SelectorOpenFailureProbe.class);
        assertEquals(0, child.exitCode(), child::toString);
        assertEquals("5", child.value("failures"), child::toString);
        assertEquals("5", child.value("laterFailures"), child::toString);
        assertEquals(child.value("before"), child.value("after"), child::toString);
    }
}
