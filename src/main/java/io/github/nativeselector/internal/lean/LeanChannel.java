/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.internal.lean;

import java.io.IOException;

/**
 * What a selector needs of a lean channel: its descriptor, and the last step of its close, which
 * waits for the selectors because the descriptor must stay open, and its number unused, as long as
 * one of them may still have it in its kernel set.
 */
public interface LeanChannel {

    /** The channel's descriptor; the number stays the channel's until {@link #kill()} has closed it. */
    int fdVal();

    /**
     * Called by a selector once the channel is closed and deregistered from every selector:
     * closes the descriptor, or leaves that to the last thread still in an operation on it.
     */
    void kill() throws IOException;
}
