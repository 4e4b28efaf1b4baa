/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A selector's counters, under the selector's id (unique in the JVM, carried by its MBean and its
 * flight-recorder events). Each is written under one lock only (the change queue's, the
 * selector's, or the wakeup lock), so a plain read-modify-write is exact; writes and the
 * snapshot's reads are opaque, so readers on other threads see whole, recent values.
 */
final class Counters {

    private static final VarHandle BATCHES;
    private static final VarHandle CHANGES;
    private static final VarHandle KERNEL_CALLS;
    private static final VarHandle POLLS;
    private static final VarHandle POLLS_WITHOUT_SYSCALL;
    private static final VarHandle READY_EVENTS;
    private static final VarHandle WAKEUPS;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            BATCHES = lookup.findVarHandle(Counters.class, "batches", long.class);
            CHANGES = lookup.findVarHandle(Counters.class, "changes", long.class);
            KERNEL_CALLS = lookup.findVarHandle(Counters.class, "kernelCalls", long.class);
            POLLS = lookup.findVarHandle(Counters.class, "polls", long.class);
            POLLS_WITHOUT_SYSCALL = lookup.findVarHandle(Counters.class, "pollsWithoutSyscall", long.class);
            READY_EVENTS = lookup.findVarHandle(Counters.class, "readyEvents", long.class);
            WAKEUPS = lookup.findVarHandle(Counters.class, "wakeups", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private static final AtomicLong LAST_ID = new AtomicLong();

    private final long id = LAST_ID.incrementAndGet();
    private long batches;
    private long changes;
    private long kernelCalls;
    private long polls;
    private long pollsWithoutSyscall;
    private long readyEvents;
    private long wakeups;

    long id() {
        return id;
    }

    /** Under the change queue's lock. */
    void batchApplied(int changesInBatch, int calls) {
        BATCHES.setOpaque(this, batches + 1);
        CHANGES.setOpaque(this, changes + changesInBatch);
        KERNEL_CALLS.setOpaque(this, kernelCalls + calls);
        if (FlightRecording.isActive()) {
            FlightRecording.batchApplied(id, changesInBatch, calls);
        }
    }

    /** Under the selector's lock: one poll of the backend. */
    void polled(boolean withoutSyscall) {
        POLLS.setOpaque(this, polls + 1);
        if (withoutSyscall) {
            POLLS_WITHOUT_SYSCALL.setOpaque(this, pollsWithoutSyscall + 1);
        }
    }

    /** Under the selector's lock: channels a wait found ready. */
    void readyEvents(int events) {
        READY_EVENTS.setOpaque(this, readyEvents + events);
    }

    /** Under the wakeup lock. */
    void wokeUp() {
        WAKEUPS.setOpaque(this, wakeups + 1);
    }

    CounterSnapshot snapshot(String backend) {
        return new CounterSnapshot(backend,
                (long) BATCHES.getOpaque(this),
                (long) CHANGES.getOpaque(this),
                (long) KERNEL_CALLS.getOpaque(this),
                (long) POLLS.getOpaque(this),
                (long) POLLS_WITHOUT_SYSCALL.getOpaque(this),
                (long) READY_EVENTS.getOpaque(this),
                (long) WAKEUPS.getOpaque(this));
    }
}
