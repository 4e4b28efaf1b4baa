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
 * {@code queued} and {@code registeredEvents} and serialises every use of the backend's
 * {@link Backend#apply} against its {@link Backend#close}. It is never held while waiting for
 * the kernel's readiness, so queuing never waits for a {@code select()}.
 */
final class ChangeQueue {

    /**
     * Records a batch holds at least, whatever the threshold: the threshold decides when changes
     * are made, while the removals of the keys cancelled since the last select are made at once
     * and go to the kernel together.
     */
    private static final int MIN_BATCH_CAPACITY = 64;

    private final Backend backend;
    private final Cleaner.Cleanable closeBackend;
    private final Counters counters;
    private final int threshold;
    private final boolean handOffDuringPoll;
    private final ChangeBatch batch;
    private NativeSelectionKey[] pending;
    private int size;
    private boolean polling;
    private boolean handedOff;
    private boolean closed;
    private IOException deferredFailure;

    /**
     * @param closeBackend closes the backend (and withdraws the selector's MBean and events), once:
     *     on {@link #close}, or when the selector became unreachable without being closed
     */
    ChangeQueue(Backend backend, Counters counters, int threshold, Cleaner.Cleanable closeBackend) {
        this.backend = backend;
        this.closeBackend = closeBackend;
        this.counters = counters;
        this.threshold = threshold;
        this.handOffDuringPoll = !backend.appliesDuringPoll();
        this.pending = new NativeSelectionKey[threshold];
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
        key.queued = true;
        if (size == pending.length) {
            pending = Arrays.copyOf(pending, size * 2);
        }
        pending[size++] = key;
        if (size >= threshold && !handedOff) {
            try {
                if (polling) {
                    handedOff = true;
                    backend.wakeup();
                } else {
                    flushPending(true);
                }
            } catch (IOException e) {
                if (deferredFailure == null) {
                    deferredFailure = e;
                }
            }
        }
    }

    /**
     * Applies everything queued before the selector thread polls; from then until
     * {@link #pollEnded}, a backend that cannot apply during a poll gets a flush at the threshold
     * handed to the selector thread.
     */
    synchronized void flushBeforePoll() throws IOException {
        flush();
        polling = handOffDuringPoll;
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

    /** Applies everything queued; throws what a flush on another thread could not. */
    synchronized void flush() throws IOException {
        IOException failure = deferredFailure;
        if (failure != null) {
            deferredFailure = null;
            throw failure;
        }
        if (size > 0) {
            flushPending(false);
        }
    }

    /**
     * Removes cancelled keys from the kernel, synchronously: their channels' fds may be closed
     * as soon as this returns. Their entries in the queue are dropped at the next flush.
     */
    synchronized void removeFromKernel(List<NativeSelectionKey> cancelled) throws IOException {
        if (closed) {
            return;
        }
        for (NativeSelectionKey key : cancelled) {
            if (key.registeredEvents != 0) {
                addToBatch(key, ChangeBatch.OP_DEL, 0, true);
            }
        }
        batch.apply(backend, counters, true);
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

    /** @param sync as {@link Backend#apply}: false only for the selector's own flush before it polls */
    private void flushPending(boolean sync) throws IOException {
        for (int i = 0; i < size; i++) {
            NativeSelectionKey key = pending[i];
            pending[i] = null;
            key.queued = false;
            if (!key.isValid()) {
                continue;
            }
            int events = key.interestEvents();
            int registered = key.registeredEvents;
            if (events != registered) {
                int op = events == 0 ? ChangeBatch.OP_DEL
                        : registered == 0 ? ChangeBatch.OP_ADD : ChangeBatch.OP_MOD;
                addToBatch(key, op, events, sync);
            }
        }
        size = 0;
        batch.apply(backend, counters, sync);
    }

    private void addToBatch(NativeSelectionKey key, int op, int events, boolean sync) throws IOException {
        if (batch.isFull()) {
            batch.apply(backend, counters, sync);
        }
        batch.add(key, op, events);
    }
}
