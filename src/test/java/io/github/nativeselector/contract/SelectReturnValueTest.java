/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.contract;

import static io.github.nativeselector.support.ContractChannels.readExactly;
import static io.github.nativeselector.support.ContractChannels.writeFully;
import static io.github.nativeselector.support.ContractSupport.AWAIT_MS;
import static io.github.nativeselector.support.ContractSupport.awaitCondition;
import static io.github.nativeselector.support.ContractSupport.awaitSelected;
import static io.github.nativeselector.support.ContractSupport.ops;
import static java.nio.channels.SelectionKey.OP_READ;
import static java.nio.channels.SelectionKey.OP_WRITE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.nativeselector.support.ContractChannels.PipePair;
import io.github.nativeselector.support.ContractChannels.SocketKind;
import io.github.nativeselector.support.ContractChannels.SocketPair;
import io.github.nativeselector.support.ContractSupport;
import io.github.nativeselector.support.TestSelectors;
import java.io.IOException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The value a select returns: the keys it newly selected or whose ready set grew, as the JDK's
 * own selector counts them.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class SelectReturnValueTest {

    private static final String ALL = ContractSupport.ALL;

    @ParameterizedTest
    @MethodSource(ALL)
    void selectCountsKeysNewlySelectedOrGainingReadyOps(TestSelectors s) throws Exception {
        try (Selector sel = s.open(); SocketPair p = SocketPair.open(SocketKind.INET)) {
            writeFully(p.peer, 10);
            SelectionKey key = p.local.register(sel, OP_READ);
            assertEquals(1, awaitSelected(sel, key));
            assertEquals(ops(OP_READ), ops(key.readyOps()));

            assertEquals(0, sel.selectNow(), "still selected, no new ready ops");
            assertTrue(sel.selectedKeys().contains(key));
            assertEquals(ops(OP_READ), ops(key.readyOps()));

            key.interestOpsOr(OP_WRITE);
            assertEquals(1, sel.selectNow(), "already selected key gains WRITE");
            assertEquals(ops(OP_READ | OP_WRITE), ops(key.readyOps()));
            assertEquals(1, sel.selectedKeys().size());

            readExactly(p.local, 10);
            assertEquals(0, sel.selectNow(), "nothing new: WRITE was already there");
            assertEquals(ops(OP_READ | OP_WRITE), ops(key.readyOps()),
                    "ready ops of a key left in the selected set are OR'ed, READ stays");

            sel.selectedKeys().remove(key);
            assertEquals(1, sel.selectNow(), "removed key is selected again");
            assertEquals(ops(OP_WRITE), ops(key.readyOps()), "ready ops replaced once the key was removed");
        }
    }

    @ParameterizedTest
    @MethodSource(ALL)
    void selectCountsEveryReadyKey(TestSelectors s) throws Exception {
        try (Selector sel = s.open(); PipePair a = PipePair.open(); PipePair b = PipePair.open();
                PipePair c = PipePair.open()) {
            a.sink.configureBlocking(false);
            b.sink.configureBlocking(false);
            c.source.configureBlocking(false);
            SelectionKey ka = a.sink.register(sel, OP_WRITE);
            SelectionKey kb = b.sink.register(sel, OP_WRITE);
            SelectionKey kc = c.source.register(sel, OP_READ);
            assertEquals(2, sel.select(AWAIT_MS), "two writable sinks");
            assertEquals(Set.of(ka, kb), new HashSet<>(sel.selectedKeys()));
            writeFully(c.sink, 1);
            awaitCondition(() -> {
                try {
                    return sel.selectNow() == 1 && sel.selectedKeys().contains(kc);
                } catch (IOException e) {
                    throw new AssertionError(e);
                }
            }, "source selected with the two sinks still in the selected set");
            assertEquals(Set.of(ka, kb, kc), new HashSet<>(sel.selectedKeys()));
            sel.selectedKeys().clear();
            assertEquals(3, sel.selectNow());
        }
    }
}
