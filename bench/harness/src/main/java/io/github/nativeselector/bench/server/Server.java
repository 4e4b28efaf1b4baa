/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.bench.server;

import io.github.nativeselector.SelectorStats;
import java.util.Optional;

/** A running server of the protocol, listening on 127.0.0.1. */
interface Server {

    int port();

    /** What it runs on, as the harness checks it: a selector's name ({@code epoll}, {@code jdk-poll}, ...) or a transport's. */
    String backend();

    /** The class doing the waiting, for the record: a selector class, a Netty I/O handler, the JDK's blocking sockets. */
    String mechanism();

    /**
     * The class of the channel it listens on (what it accepts is of the same make): the harness
     * checks that a server asked to run on native-selector's lean channels got them.
     */
    String channels();

    /** native-selector's counters summed over its selectors; empty when it has none. */
    Optional<SelectorStats> counters();

    /** Stops serving; the process exits next, which releases whatever is left. */
    void stop() throws Exception;
}
