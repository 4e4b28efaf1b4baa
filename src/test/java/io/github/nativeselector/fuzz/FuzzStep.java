/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.fuzz;

/**
 * One operation of a fuzz program. {@code target} picks an endpoint (modulo the endpoints open
 * when the step runs, so that a program stays meaningful when the shrinker drops steps);
 * {@code arg} and {@code extra} are the operation's parameters.
 */
record FuzzStep(Op op, int target, int arg, int extra) {

    /** In {@code extra} of an interest step: use the bits as they are, even outside validOps(). */
    static final int RAW = 1;
    /** In {@code extra} of {@link Op#INTEREST_AND}: the mask is the complement of the bits. */
    static final int COMPLEMENT = 2;

    enum Op {
        OPEN(false),
        REGISTER(true),
        INTEREST_SET(true),
        INTEREST_OR(true),
        INTEREST_AND(true),
        CANCEL(true),
        CLOSE_LOCAL(false),
        CLOSE_PEER(false),
        PEER_SEND(false),
        DRAIN(false),
        CONFIGURE_BLOCKING(false),
        FINISH_CONNECT(false),
        SELECT_NOW(true),
        SELECT_TIMEOUT(true),
        /** {@code select()} with no timeout: run only when a wakeup or an interrupt is pending. */
        SELECT(true),
        SELECT_NOW_ACTION(true),
        SELECT_TIMEOUT_ACTION(true),
        /** {@code select(action)} with no timeout: run only when a wakeup or an interrupt is pending. */
        SELECT_ACTION(true),
        WAKEUP(true),
        INTERRUPT(false),
        CLEAR_INTERRUPT(false),
        REMOVE_SELECTED(true),
        CLEAR_SELECTED(true),
        CLOSE_SELECTOR(true);

        /**
         * Whether the step calls the selector or a key, and so runs with the program's interrupt
         * status; channel I/O runs without it (an interrupt would close a blocking channel).
         */
        final boolean usesSelector;

        Op(boolean usesSelector) {
            this.usesSelector = usesSelector;
        }

        boolean selects() {
            return switch (this) {
                case SELECT_NOW, SELECT_TIMEOUT, SELECT, SELECT_NOW_ACTION, SELECT_TIMEOUT_ACTION, SELECT_ACTION -> true;
                default -> false;
            };
        }

        boolean hasAction() {
            return this == SELECT_NOW_ACTION || this == SELECT_TIMEOUT_ACTION || this == SELECT_ACTION;
        }
    }

    /** What the action of a {@code select(Consumer)} does with each key it is handed. */
    enum Action {
        /** Nothing: the key and its ready set are recorded. */
        RECORD("k -> record(k)"),
        CANCEL("k -> k.cancel()"),
        /** Drops the interest that is ready, as a server does before it handles an event. */
        QUIET("k -> k.interestOpsAnd(~k.readyOps())"),
        /** A select inside the action must throw IllegalStateException. */
        NESTED_SELECT("k -> selector.selectNow()"),
        CLOSE_SELECTOR("k -> selector.close()");

        final String source;

        Action(String source) {
            this.source = source;
        }
    }

    Action action() {
        return Action.values()[extra];
    }
}
