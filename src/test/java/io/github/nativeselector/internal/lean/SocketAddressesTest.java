/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.internal.lean;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

/**
 * A connect to a wildcard address goes to loopback, as on the JDK's channels. Checked where a lean
 * channel's connect, and its adaptor's, take their target from, and not by connecting: a test
 * sends nothing to an address other than loopback.
 */
class SocketAddressesTest {

    @Test
    void aWildcardRemoteAddressIsTakenForLoopbackOfItsOwnFamily() {
        InetSocketAddress inet4Loopback = new InetSocketAddress("127.0.0.1", 4321);
        assertEquals(inet4Loopback, SocketAddresses.checkRemote(new InetSocketAddress("0.0.0.0", 4321), false));
        assertEquals(inet4Loopback, SocketAddresses.checkRemote(new InetSocketAddress("0.0.0.0", 4321), true),
                "on a dual-stack socket");
        assertEquals(new InetSocketAddress("::1", 4321),
                SocketAddresses.checkRemote(new InetSocketAddress("::", 4321), true));
    }
}
