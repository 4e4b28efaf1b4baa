/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.internal.lean;

import java.io.IOException;

/**
 * What a selector needs of a lean channel, and what the channel needs of a selector. The
 * descriptor must stay open, and its number unused, as long as a selector may still have it in
 * its kernel set. So a close takes it out of every selector's kernel set at once
 * ({@link Registration#leaveKernelNow}) and closes it then; where that cannot be done at once,
 * the close waits for the selectors, the last of which finishes it ({@link #kill()}).
 */
public interface LeanChannel {

    /** The channel's descriptor; the number stays the channel's until the channel has closed it. */
    int fdVal();

    /** Called by a selector that registered the channel, before the registration can reach the kernel. */
    void registered(Registration registration);

    /** Called by a selector that deregistered the channel, before {@link #kill()}. */
    void deregistered(Registration registration);

    /**
     * Called by a selector once the channel is closed and deregistered from every selector:
     * closes the descriptor unless that is done, or leaves that to the last thread still in an
     * operation on it.
     */
    void kill() throws IOException;

    /** A selector's registration of the channel: a selection key, from registration to deregistration. */
    interface Registration {

        /**
         * For a closing channel: takes the descriptor out of the selector's kernel set now, and
         * keeps it out whatever changes the key still has queued. Never waits for a select.
         *
         * @return whether the kernel set no longer has the descriptor; false when that cannot be
         *     done at once (a backend that takes no change while it polls is polling) or the
         *     kernel refused, and the selector's deregistration must take it out
         */
        boolean leaveKernelNow();
    }
}
