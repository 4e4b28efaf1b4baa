/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.internal;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.SettingDefinition;
import jdk.jfr.StackTrace;

/**
 * One batch of registration changes applied to the kernel, if it held at least the recording's
 * {@code minimumChanges} ({@link MinimumChangesSetting}).
 */
@Name("io.github.nativeselector.Batch")
@Label("Selector Batch")
@Category({"Java Application", "Native Selector"})
@Description("Registration changes applied to the kernel in one batch")
@StackTrace(false)
final class BatchEvent extends Event {

    @Label("Selector Id")
    long selectorId;

    @Label("Changes")
    int changes;

    @Label("Kernel Calls")
    @Description("System calls the changes took: one each on epoll, one per batch on io_uring and pollset")
    int kernelCalls;

    static void emit(long selectorId, int changes, int kernelCalls) {
        BatchEvent event = new BatchEvent();
        event.selectorId = selectorId;
        event.changes = changes;
        event.kernelCalls = kernelCalls;
        if (event.shouldCommit()) {
            event.commit();
        }
    }

    @Name("minimumChanges")
    @Label("Minimum Changes")
    @Description("Smaller batches are not recorded")
    @SettingDefinition
    protected boolean minimumChanges(MinimumChangesSetting setting) {
        return changes >= setting.minimum();
    }
}
