/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.internal.lean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.nativeselector.internal.BuiltInProvider;
import java.io.IOException;
import java.net.SocketOption;
import java.net.StandardSocketOptions;
import java.nio.channels.SocketChannel;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The options that depend on the kernel (SO_REUSEPORT, and jdk.net's, such as SO_INCOMING_NAPI_ID)
 * are a lean channel's only where the JDK's own channel has them, as on a kernel or sandbox that
 * lacks one, which this machine's kernel is not: the JDK's set here is doctored.
 */
class SocketOptionTableTest {

    @Test
    void optionsTheKernelLacksAreNotSupported() throws IOException {
        Set<SocketOption<?>> jdk;
        try (SocketChannel channel = BuiltInProvider.get().openSocketChannel()) {
            jdk = new HashSet<>(channel.supportedOptions());
        }
        assertEquals(jdk, SocketOptionTable.socketTable(jdk).names(), "the JDK's set, untouched");
        assertEquals(jdk, SocketOptionTable.socketTable(null).names(), "the JDK's set when it cannot be asked");

        Set<SocketOption<?>> lacking = new HashSet<>(jdk);
        assertTrue(lacking.remove(StandardSocketOptions.SO_REUSEPORT));
        // A runtime without module jdk.net has no SO_INCOMING_NAPI_ID to take away.
        Optional<SocketOption<?>> napi = jdk.stream().filter(o -> o.name().equals("SO_INCOMING_NAPI_ID")).findFirst();
        napi.ifPresent(lacking::remove);
        SocketOptionTable table = SocketOptionTable.socketTable(lacking);
        assertEquals(lacking, table.names());
        UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class,
                () -> table.checkSet(StandardSocketOptions.SO_REUSEPORT, true));
        assertEquals("'SO_REUSEPORT' not supported", e.getMessage());
        napi.ifPresent(option -> assertEquals("'SO_INCOMING_NAPI_ID' not supported",
                assertThrows(UnsupportedOperationException.class, () -> table.checkGet(option)).getMessage()));
        assertTrue(table.names().contains(StandardSocketOptions.TCP_NODELAY), "options every kernel has stay");
    }
}
