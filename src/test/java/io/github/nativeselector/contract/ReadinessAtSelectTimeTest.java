/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.contract;

import static io.github.nativeselector.support.ContractChannels.readExactly;
import static io.github.nativeselector.support.ContractChannels.writeFully;
import static io.github.nativeselector.support.ContractSupport.witnessReady;
import static java.nio.channels.SelectionKey.OP_CONNECT;
import static java.nio.channels.SelectionKey.OP_READ;
import static java.nio.channels.SelectionKey.OP_WRITE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.nativeselector.support.ContractChannels.PipePair;
import io.github.nativeselector.support.ContractChannels.SocketKind;
import io.github.nativeselector.support.ContractChannels.SocketPair;
import io.github.nativeselector.support.ContractSupport;
import io.github.nativeselector.support.TestSelectors;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A select reports what each channel is ready for when the select runs, not what it was ready
 * for at some earlier moment: readiness that went away is not reported, and readiness that
 * came (or became interesting) since is. Each case is a program the differential fuzzer found
 * the io_uring backend to differ from the JDK's selector on, cut down by hand.
 */
@Timeout(value = 20, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ReadinessAtSelectTimeTest {

    /** Data arrives and is read again between two selects: the second select finds nothing. */
    @ParameterizedTest
    @MethodSource(ContractSupport.ALL)
    void readinessGoneBeforeTheSelectIsNotReported(TestSelectors selectors) throws Exception {
        try (Selector selector = selectors.open(); PipePair pipe = PipePair.open()) {
            pipe.source.configureBlocking(false);
            SelectionKey key = pipe.source.register(selector, OP_READ);
            assertEquals(0, selector.selectNow(), "nothing written yet");
            writeFully(pipe.sink, 1);
            witnessReady(pipe.source, OP_READ);
            readExactly(pipe.source, 1);
            assertEquals(0, selector.selectNow(), "select after the only byte was read: ready ops "
                    + readyOpsIfSelected(selector, key));
            assertEquals(Set.of(), selector.selectedKeys());
        }
    }

    /** The interest grows to READ|WRITE, then data arrives: a writable, readable socket is both. */
    @ParameterizedTest
    @MethodSource(ContractSupport.ALL)
    void everyInterestingReadinessIsReported(TestSelectors selectors) throws Exception {
        try (Selector selector = selectors.open(); SocketPair pair = SocketPair.open(SocketKind.INET)) {
            SelectionKey key = pair.local.register(selector, OP_READ);
            assertEquals(0, selector.selectNow(), "nothing written yet");
            key.interestOps(OP_READ | OP_WRITE);
            writeFully(pair.peer, 1);
            witnessReady(pair.local, OP_READ);
            assertEquals(1, selector.selectNow());
            assertEquals(Set.of(key), selector.selectedKeys());
            assertEquals(ContractSupport.ops(OP_READ | OP_WRITE), ContractSupport.ops(key.readyOps()),
                    "ready ops of a connected socket with data to read and room to write");
        }
    }

    /**
     * Interest READ|CONNECT on a connected socket (CONNECT is never ready there), then data
     * arrives: the socket is selected for READ, as the JDK's selector does.
     */
    @ParameterizedTest
    @MethodSource(ContractSupport.ALL)
    void readableSocketIsSelectedWhateverElseItsInterestHolds(TestSelectors selectors) throws Exception {
        try (Selector selector = selectors.open(); SocketPair pair = SocketPair.open(SocketKind.INET)) {
            SelectionKey key = pair.local.register(selector, OP_READ | OP_CONNECT);
            writeFully(pair.peer, 1);
            witnessReady(pair.local, OP_READ);
            assertEquals(1, selector.selectNow(), "selectNow() with a readable socket");
            assertTrue(selector.selectedKeys().contains(key));
            assertEquals(ContractSupport.ops(OP_READ), ContractSupport.ops(key.readyOps()));
        }
    }

    private static String readyOpsIfSelected(Selector selector, SelectionKey key) {
        return selector.selectedKeys().contains(key) ? ContractSupport.ops(key.readyOps()) : "(not selected)";
    }
}
