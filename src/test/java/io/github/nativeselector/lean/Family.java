/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.lean;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ProtocolFamily;
import java.net.StandardProtocolFamily;
import java.net.UnknownHostException;

/**
 * The protocol family a channel is opened with, and the loopback address it talks to. A channel
 * opened without a family is an IPv6 one that also speaks IPv4 (on a machine with IPv6), so its
 * loopback here is IPv4's: the dual-stack case.
 */
enum Family {
    INET(StandardProtocolFamily.INET, new byte[] {127, 0, 0, 1}),
    INET6(StandardProtocolFamily.INET6, new byte[] {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}),
    DEFAULT(null, new byte[] {127, 0, 0, 1});

    private final ProtocolFamily protocolFamily;
    private final byte[] loopback;

    Family(ProtocolFamily protocolFamily, byte[] loopback) {
        this.protocolFamily = protocolFamily;
        this.loopback = loopback;
    }

    /** The family to open channels with; null for the no-argument {@code open}. */
    ProtocolFamily protocolFamily() {
        return protocolFamily;
    }

    InetAddress loopback() {
        try {
            return InetAddress.getByAddress(loopback);
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    InetSocketAddress loopback(int port) {
        return new InetSocketAddress(loopback(), port);
    }

    /** The class of address this family's loopback is reported with. */
    Class<? extends InetAddress> addressClass() {
        return loopback.length == 4 ? Inet4Address.class : Inet6Address.class;
    }

    /** The class of the wildcard address a socket of this family binds to when given none. */
    Class<? extends InetAddress> wildcardClass() {
        return this == INET ? Inet4Address.class : Inet6Address.class;
    }
}
