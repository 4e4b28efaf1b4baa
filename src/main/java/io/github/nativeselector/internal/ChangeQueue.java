/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.internal;

import java.io.IOException;
import java.lang.ref.Cleaner;
import java.util.Arrays;
import java.util.List;

/**
 * Registration changes on their way to the kernel. {@code register()} and {@code interestOps()}
 * queue the key whose interest changed; a key is queued once however often it changes, and
 * what reaches the kernel is its interest at flush time. The queue is flushed, as one batch,
 * when it holds {@code threshold} keys (by the thread that queued the last one, so a selector
 * blocked in {@code select()} sees the change without a wakeup) and at the start of every
 * {@code select()}.
 *
 * <p>A backend that cannot apply changes while a poll is in progress (AIX's {@code pollset_ctl}
 * waits for {@code pollset_poll}) gets them only from the selector thread while it polls: a
 * flush at the threshold is then handed to that thread, which is woken to apply it and poll
 * again, and the queue grows past the threshold until it does.
 *
 * <p>Locking: every method runs under this object's monitor, which also guards each key's
 * {@code queued} and {@code registeredEvents}, the {@link KeyTable}'s slots (given to a key as
 * its first change goes into a batch, freed once its removal leaves it out of the kernel), and
 * serialises every use of the backend's {@link Backend#apply} against its {@link Backend#close};
 * only the selector's own checks, whether a select has anything to flush ({@code work}, volatile)
 * and whether a flush was handed over during a poll (never, for a backend that applies during
 * one), may skip it. It is never
 * held while waiting for the kernel's readiness, so queuing never waits for a {@code select()}.
 */
final class ChangeQueue {

    /**
     * Records a batch holds at least, whatever the threshold: the threshold decides when changes
     * are made, while the removals of the keys cancelled since the last select are made at once
     * and go to the kernel together.
     */
    private static final int MIN_BATCH_CAPACITY = 64;
    /** How many later failures the one kept for the next select carries at most. */
    static final int MAX_DEFERRED_SUPPRESSED = 16;

    private final Backend backend;
    private final KeyTable table;
    private final Cleaner.Cleanable closeBackend;
    private final Counters counters;
    private final int threshold;
    private final boolean handOffDuringPoll;
    private final ChangeBatch batch;
    /** Keys queued since the last flush; a flush swaps it with {@code flushing}. */
    private NativeSelectionKey[] pending;
    /** The keys a flush is sending, so that keys it hands back queue up for the next flush. */
    private NativeSelectionKey[] flushing;
    private int size;
    /**
     * Whether a flush has anything to do: a key queued or a failure kept. Written under the lock,
     * wherever the queue fills or empties; {@link #flushBeforePoll} reads it without the lock, so
     * a select with nothing queued takes no lock; a key queued during that read is a change made
     * during the select, which the next select applies.
     */
    private volatile boolean work;
    private boolean polling;
    private boolean handedOff;
    private boolean closed;
    private IOException deferredFailure;

    /**
     * @param closeBackend closes the backend (and withdraws the selector's MBean and events), once:
     *     on {@link #close}, or when the selector became unreachable without being closed
     */
    ChangeQueue(Backend backend, KeyTable table, Counters counters, int threshold, Cleaner.Cleanable closeBackend) {
        this.backend = backend;
        this.table = table;
        this.closeBackend = closeBackend;
        this.counters = counters;
        this.threshold = threshold;
        this.handOffDuringPoll = !backend.appliesDuringPoll();
        this.pending = new NativeSelectionKey[threshold];
        this.flushing = new NativeSelectionKey[threshold];
        this.batch = new ChangeBatch(Math.max(threshold, MIN_BATCH_CAPACITY));
    }

    /**
     * Queues a key whose interest changed, flushing at the threshold. A failure of that flush
     * is kept for the next {@code select()} to throw: the queuing thread cannot report it.
     */
    synchronized void interestChanged(NativeSelectionKey key) {
        if (closed || key.queued) {
            return;
        }
        enqueue(key);
        if (size >= threshold && !handedOff) {
            if (polling) {
                handedOff = true;
                try {
                    backend.wakeup();
                } catch (IOException e) {
                    // The poll goes on: the next change at the threshold tries to end it again.
                    handedOff = false;
                    deferFailure(e);
                }
            } else {
                deferFailure(flushPending(true));
            }
        }
    }

    /**
     * Queues again, for the next flush, a valid key whose change a batch could not apply
     * ({@link ChangeBatch#apply}); a cancelled key's removal is the selector's to try again.
     */
    void requeue(NativeSelectionKey key) {
        if (!closed && !key.queued && key.isValid()) {
            enqueue(key);
        }
    }

    /**
     * Applies everything queued before the selector thread polls; from then until
     * {@link #pollEnded}, a backend that cannot apply during a poll gets a flush at the threshold
     * handed to the selector thread.
     */
    void flushBeforePoll() throws IOException {
        if (!work && !handOffDuringPoll) {
            return;
        }
        synchronized (this) {
            flush();
            polling = handOffDuringPoll;
        }
    }

    /**
     * After the poll: whether a flush was handed over during it, for the caller to make now.
     * Takes no lock for a backend that applies during a poll: nothing is ever handed over there.
     */
    boolean pollEnded() {
        if (!handOffDuringPoll) {
            return false;
        }
        synchronized (this) {
            polling = false;
            boolean wasHandedOff = handedOff;
            handedOff = false;
            return wasHandedOff;
        }
    }

    /**
     * Applies everything queued; then throws the first failure, of this flush or of one made
     * at the threshold on another thread since the last call.
     */
    synchronized void flush() throws IOException {
        work = false;
        IOException failure = deferredFailure;
        deferredFailure = null;
        if (size > 0) {
            failure = firstOf(failure, flushPending(false));
        }
        if (failure != null) {
            throw failure;
        }
    }

    /**
     * Removes cancelled keys from the kernel, synchronously: their channels' fds may be closed
     * as soon as this returns, for the keys it took out ({@link NativeSelectionKey#isOutOfKernel}),
     * whose slots it frees. Every removal is tried, whatever others do. Their entries in the
     * queue are dropped at the next flush. With {@code withQueued} (the selector before it polls),
     * the queued changes go in the same batch, after the removals, so a select that has both
     * makes one kernel call where the backend batches; a failure of theirs is returned as a
     * flush's would be thrown.
     *
     * @return the first failure, or null when every key is out of the kernel
     */
    synchronized IOException removeFromKernel(List<NativeSelectionKey> cancelled, boolean withQueued) {
        if (closed) {
            return null;
        }
        IOException failure = null;
        for (int i = 0; i < cancelled.size(); i++) {
            NativeSelectionKey key = cancelled.get(i);
            if (!key.isOutOfKernel()) {
                failure = firstOf(failure, addToBatch(key, ChangeBatch.OP_DEL, 0, true));
            }
        }
        if (withQueued) {
            failure = firstOf(failure, addQueued(true));
        }
        failure = firstOf(failure, batch.apply(backend, counters, true, this));
        for (int i = 0; i < cancelled.size(); i++) {
            NativeSelectionKey key = cancelled.get(i);
            if (key.isOutOfKernel()) {
                table.remove(key);
            }
        }
        return failure;
    }

    /**
     * Takes the key of a closing lean channel out of the kernel at once, so that the channel can
     * close its fd now rather than when the selector deregisters the key; from then on the key's
     * changes, queued or to come, are dropped, so that nothing puts the fd, or a new fd of its
     * number, back under its token. Its slot stays until the selector deregisters it. Nothing
     * is sent while a backend that takes no change during a poll polls.
     *
     * @return whether the kernel no longer has the key: true too for a key whose first change
     *     never reached it, or after the selector closed; false while such a poll goes on, or when
     *     the kernel refused (the selector's own removal then tries again, and reports it)
     */
    synchronized boolean removeAtClose(NativeSelectionKey key) {
        key.heldOut = true;
        if (closed || key.isOutOfKernel()) {
            return true;
        }
        if (polling) {
            return false;
        }
        IOException failure = addToBatch(key, ChangeBatch.OP_DEL, 0, true);
        failure = firstOf(failure, batch.apply(backend, counters, true, this));
        return failure == null && key.isOutOfKernel();
    }

    /** Closes the backend; nothing reaches it afterwards. */
    synchronized void close() {
        if (!closed) {
            closed = true;
            Arrays.fill(pending, 0, size, null);
            size = 0;
            closeBackend.clean();
        }
    }

    /** {@code first}, or {@code next} when there is no first; a second failure is suppressed in the first. */
    static IOException firstOf(IOException first, IOException next) {
        if (first == null) {
            return next;
        }
        if (next != null) {
            first.addSuppressed(next);
        }
        return first;
    }

    private void enqueue(NativeSelectionKey key) {
        work = true;
        key.queued = true;
        if (size == pending.length) {
            pending = Arrays.copyOf(pending, size * 2);
        }
        pending[size++] = key;
    }

    /**
     * Keeps a failure for the next select: the first, and later ones until then suppressed in it,
     * since a refused change is reported nowhere else; past {@link #MAX_DEFERRED_SUPPRESSED} a
     * backend that fails at every flush piles up no more.
     */
    private void deferFailure(IOException e) {
        if (e == null) {
            return;
        }
        if (deferredFailure == null) {
            deferredFailure = e;
            work = true;
        } else if (deferredFailure.getSuppressed().length < MAX_DEFERRED_SUPPRESSED) {
            deferredFailure.addSuppressed(e);
        }
    }

    /**
     * Sends every queued key's change; a key whose batch fails as a whole is queued again.
     *
     * @param sync as {@link Backend#apply}: false only for the selector's own flush before it polls
     * @return the first failure, or null
     */
    private IOException flushPending(boolean sync) {
        IOException failure = addQueued(sync);
        return firstOf(failure, batch.apply(backend, counters, sync, this));
    }

    /**
     * Moves every queued key's change into the batch (applying it whenever it fills), leaving
     * the last of them there for the caller to apply; returns the first failure.
     */
    private IOException addQueued(boolean sync) {
        NativeSelectionKey[] keys = pending;
        int count = size;
        pending = flushing;
        flushing = keys;
        size = 0;
        work = deferredFailure != null;
        IOException failure = null;
        for (int i = 0; i < count; i++) {
            NativeSelectionKey key = keys[i];
            keys[i] = null;
            key.queued = false;
            if (!key.isValid() || key.heldOut) {
                continue;
            }
            int events = key.interestEvents();
            int op = ChangeBatch.opFor(events, key.registeredEvents);
            if (op != 0) {
                failure = firstOf(failure, addToBatch(key, op, events, sync));
            }
        }
        return failure;
    }

    /**
     * Adds a change to the batch, applying the batch first when it is full, and gives the key a
     * slot for its token if it has none; returns that failure.
     */
    private IOException addToBatch(NativeSelectionKey key, int op, int events, boolean sync) {
        IOException failure = batch.isFull() ? batch.apply(backend, counters, sync, this) : null;
        table.add(key);
        batch.add(key, op, events);
        return failure;
    }
}
