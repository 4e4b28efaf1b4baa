/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.internal;

import io.github.nativeselector.internal.lean.LeanChannel;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.ref.Cleaner;
import java.lang.ref.Reference;
import java.nio.channels.CancelledKeyException;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.IllegalSelectorException;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.spi.AbstractSelectableChannel;
import java.nio.channels.spi.AbstractSelector;
import java.nio.channels.spi.SelectorProvider;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * A {@link Selector} on a native {@link Backend}.
 *
 * <p>Locking, outermost first:
 * <ul>
 * <li>the selector's monitor, then its selected-key set's: held by {@code select} (including
 *     the kernel wait) and {@code close}; {@code inSelect} makes a nested select fail;
 * <li>the cancelled-key set's monitor ({@link AbstractSelector#cancelledKeys()}): held only to
 *     move cancelled keys out;
 * <li>the {@link ChangeQueue}'s monitor: taken by {@code register} and {@code interestOps} on
 *     any thread, never held during a kernel wait; it also guards the {@link KeyTable}'s slots;
 * <li>{@code wakeupLock}: a leaf, held for a few instructions or one system call.
 * </ul>
 * {@code register}, {@code interestOps}, {@code cancel} and {@code wakeup} never take the
 * selector's monitor, so they never wait for a select in progress.
 */
public final class NativeSelector extends AbstractSelector {

    /** Ready records read per kernel wait; channels beyond it are reported by the next wait. */
    static final int READY_CAPACITY = 1024;

    /**
     * Closes the backend of a selector that became unreachable without being closed. Its thread is
     * the JDK's (named Cleaner-N): one this library made would inherit the context class loader
     * and, before JDK 24, the access control context of the code that made it, and keep a web
     * application's class loader, and all it loaded, for the life of the JVM.
     */
    private static final Cleaner CLEANER = Cleaner.create();

    private final Backend backend;
    private final Counters counters = new Counters();
    private final ChangeQueue changes;
    private final KeyTable table = new KeyTable();
    private final ReadyArray ready;
    private final Set<SelectionKey> keys = ConcurrentHashMap.newKeySet();
    private final Set<SelectionKey> publicKeys = Collections.unmodifiableSet(keys);
    private final SelectedKeySet selectedKeys = new SelectedKeySet();
    /** What {@link #touchAhead} read, kept only so that its reads are not compiled away. */
    private int touched;
    /** Cancelled keys on their way out of the kernel, kept across selects while that fails. */
    private final ArrayList<NativeSelectionKey> cancelled = new ArrayList<>();
    private final Object wakeupLock = new Object();
    private boolean wakeupPending;
    private boolean inSelect;

    /**
     * Takes the backend over: a selector that cannot be made (out of direct memory for its buffers,
     * say) closes it, and withdraws what it published, at once rather than when it is collected.
     */
    NativeSelector(SelectorProvider provider, Backend backend, int batchThreshold, boolean jmx) {
        super(provider);
        this.backend = backend;
        Cleaner.Cleanable closeBackend = null;
        try {
            this.ready = new ReadyArray(READY_CAPACITY);
            SelectorMonitoring monitoring = SelectorMonitoring.start(backend.name(), batchThreshold, counters, jmx);
            closeBackend = CLEANER.register(this, release(backend, monitoring));
            this.changes = new ChangeQueue(backend, table, counters, batchThreshold, closeBackend);
        } catch (RuntimeException | Error e) {
            if (closeBackend != null) {
                closeBackend.clean();
            } else {
                backend.close();
            }
            throw e;
        }
    }

    /**
     * Closes the backend, then withdraws the selector's MBean and events. It captures no selector,
     * so the cleaner can run it for a selector that became unreachable unclosed.
     */
    private static Runnable release(Backend backend, SelectorMonitoring monitoring) {
        return () -> {
            try {
                backend.close();
            } finally {
                monitoring.stop();
            }
        };
    }

    /** {@link Backend#ringState}. */
    Optional<String> ringState() {
        return backend.ringState();
    }

    /** A snapshot of this selector's counters. */
    CounterSnapshot counterSnapshot() {
        return counters.snapshot(backend.name());
    }

    @Override
    protected SelectionKey register(AbstractSelectableChannel channel, int ops, Object attachment) {
        int fd = channel instanceof LeanChannel lean ? lean.fdVal() : JdkChannels.fd(channel);
        if (fd < 0) {
            throw new IllegalSelectorException();
        }
        ensureOpen();
        NativeSelectionKey key = new NativeSelectionKey(this, channel, fd);
        if (attachment != null) {
            // attach() is an atomic exchange: a new key's null attachment needs none.
            key.attach(attachment);
        }
        keys.add(key);
        if (!isOpen()) {
            // close() ran concurrently and may not have seen this key: undo it here.
            keys.remove(key);
            key.cancel();
            throw new ClosedSelectorException();
        }
        if (channel instanceof LeanChannel lean) {
            lean.registered(key);
        }
        try {
            key.interestOps(ops);
        } catch (CancelledKeyException cancelledMeanwhile) {
            // Another thread found the key through keys() and cancelled it: as the JDK's selector
            // does, return it cancelled, unless the cancellation came from closing the selector.
            if (!isOpen()) {
                throw new ClosedSelectorException();
            }
        }
        return key;
    }

    void interestChanged(NativeSelectionKey key) {
        changes.interestChanged(key);
    }

    /** {@link NativeSelectionKey#leaveKernelNow}. */
    boolean leaveKernelNow(NativeSelectionKey key) {
        return changes.removeAtClose(key);
    }

    @Override
    public Set<SelectionKey> keys() {
        ensureOpen();
        return publicKeys;
    }

    @Override
    public Set<SelectionKey> selectedKeys() {
        ensureOpen();
        return selectedKeys;
    }

    @Override
    public int selectNow() throws IOException {
        return lockAndSelect(null, 0);
    }

    @Override
    public int select(long timeout) throws IOException {
        return lockAndSelect(null, waitMillis(timeout));
    }

    @Override
    public int select() throws IOException {
        return lockAndSelect(null, -1);
    }

    @Override
    public int select(Consumer<SelectionKey> action, long timeout) throws IOException {
        Objects.requireNonNull(action);
        return lockAndSelect(action, waitMillis(timeout));
    }

    @Override
    public int select(Consumer<SelectionKey> action) throws IOException {
        Objects.requireNonNull(action);
        return lockAndSelect(action, -1);
    }

    @Override
    public int selectNow(Consumer<SelectionKey> action) throws IOException {
        Objects.requireNonNull(action);
        return lockAndSelect(action, 0);
    }

    @Override
    public Selector wakeup() {
        synchronized (wakeupLock) {
            if (!wakeupPending) {
                try {
                    backend.wakeup();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
                // Only a wakeup the kernel object holds may make later calls no-ops.
                wakeupPending = true;
                counters.wokeUp();
            }
        }
        return this;
    }

    /** A {@code select(timeout)} argument as {@link #lockAndSelect} takes it: 0 means forever. */
    private static long waitMillis(long timeout) {
        if (timeout < 0) {
            throw new IllegalArgumentException("negative timeout");
        }
        return timeout == 0 ? -1 : timeout;
    }

    /** @param timeout milliseconds; -1 waits until something is ready, 0 not at all */
    private int lockAndSelect(Consumer<SelectionKey> action, long timeout) throws IOException {
        synchronized (this) {
            ensureOpen();
            if (inSelect) {
                throw new IllegalStateException("select in progress");
            }
            inSelect = true;
            try {
                synchronized (selectedKeys) {
                    return doSelect(action, timeout);
                }
            } finally {
                inSelect = false;
                // The cleaner must not close the backend under a select of a selector that
                // became unreachable while it ran.
                Reference.reachabilityFence(this);
            }
        }
    }

    private int doSelect(Consumer<SelectionKey> action, long timeout) throws IOException {
        processCancelledKeys(true);
        boolean blocking = timeout != 0;
        int count;
        if (blocking) {
            begin();
        }
        try {
            count = poll(timeout);
        } finally {
            if (blocking) {
                end();
            }
        }
        processCancelledKeys(false);
        return processReadyEvents(count, action);
    }

    /**
     * Flushes the queued changes and waits, resuming with the time that is left after a signal
     * and after a wakeup nobody asked for (a flush handed over by {@link ChangeQueue}, made as
     * soon as the wait ends).
     */
    private int poll(long timeout) throws IOException {
        int millis = (int) Math.min(timeout, Integer.MAX_VALUE);
        // A wait longer than a century is a wait forever; capping it keeps the arithmetic exact.
        long deadline = timeout > 0 ? System.nanoTime() + Math.min(timeout, Long.MAX_VALUE >> 22) * 1_000_000L : 0;
        for (;;) {
            changes.flushBeforePoll();
            int result;
            boolean handedOff;
            try {
                result = backend.poll(ready.address(), ready.capacity(), millis);
            } finally {
                handedOff = changes.pollEnded();
            }
            counters.polled(result >= 0 && (result & Backend.POLLED_WITHOUT_SYSCALL) != 0);
            int count = result & ~Backend.POLLED_WITHOUT_SYSCALL;
            boolean requested = result >= 0 && consumeWakeupRecord(count);
            if (handedOff) {
                changes.flush();
            }
            if (result >= 0 && (requested || count != 1 || ready.token(0) != ReadyArray.WAKEUP_TOKEN)) {
                return count;
            }
            if (timeout > 0) {
                long left = (deadline - System.nanoTime()) / 1_000_000L;
                if (left <= 0) {
                    return 0;
                }
                millis = (int) Math.min(left, Integer.MAX_VALUE);
            }
        }
    }

    /**
     * Resets the wakeup latch if the poll drained the wakeup object, at once, before any user
     * action or cancellation can throw: a latch left set over a drained object would make every
     * later {@code wakeup()} a no-op. Returns whether a {@code wakeup()} call was pending, as
     * opposed to a wakeup the change queue made to hand a flush over.
     */
    private boolean consumeWakeupRecord(int count) {
        for (int i = 0; i < count; i++) {
            if (ready.token(i) == ReadyArray.WAKEUP_TOKEN) {
                synchronized (wakeupLock) {
                    boolean requested = wakeupPending;
                    wakeupPending = false;
                    return requested;
                }
            }
        }
        return false;
    }

    private int processReadyEvents(int count, Consumer<SelectionKey> action) {
        int updated = 0;
        int channels = count;
        int touchedEnd = 0;
        for (int i = 0; i < count; i++) {
            if (action != null && i == touchedEnd) {
                touchedEnd = touchAhead(i, count);
            }
            long token = ready.token(i);
            if (token == ReadyArray.WAKEUP_TOKEN) {
                channels--;
                continue;
            }
            NativeSelectionKey key = table.lookup(token);
            if (key != null && key.isValid()) {
                updated += processReadyEvent(ready.events(i), key, action);
            }
        }
        counters.readyEvents(channels);
        return updated;
    }

    /**
     * For {@code select(Consumer)}: touches the keys of the ready records from {@code from} on, up
     * to {@link NativeSelectionKey#TOUCHED_AT_A_TIME} of them and not past {@code count}, as the
     * selected-key set's iterator does for its keys; returns the record after the last. The
     * wakeup record's token names no slot, so the lookup gives no key for it.
     */
    private int touchAhead(int from, int count) {
        int to = Math.min(count, from + NativeSelectionKey.TOUCHED_AT_A_TIME);
        int read = 0;
        for (int i = from; i < to; i++) {
            NativeSelectionKey key = table.lookup(ready.token(i));
            if (key != null) {
                read += key.touchForProgram();
            }
        }
        touched += read;
        return to;
    }

    /**
     * Sets the key's ready set (or, for a key already selected, adds to it), then selects the
     * key or runs the action on it; 1 if the key counts in the select's result.
     */
    private int processReadyEvent(int events, NativeSelectionKey key, Consumer<SelectionKey> action) {
        int interest = key.currentInterestOps();
        if (interest == 0) {
            // A parked fd's error or hang-up (ChangeBatch.PARKED): the JDK's selector, which
            // removes such an fd from the kernel, would see nothing, and leaves the ready set be.
            return 0;
        }
        boolean alreadySelected = action == null && selectedKeys.contains(key);
        int old = key.readyOps;
        int ops = key.kind.translate(events, interest, alreadySelected ? old : 0, key);
        if (ops < 0) {
            return 0;
        }
        key.readyOps = ops;
        if (alreadySelected) {
            return (ops & ~old) != 0 ? 1 : 0;
        }
        if ((ops & interest) == 0) {
            return 0;
        }
        if (action == null) {
            selectedKeys.addSelected(key);
        } else {
            action.accept(key);
            ensureOpen();
        }
        return 1;
    }

    /**
     * Deregisters the keys cancelled since the last call: out of the kernel first, in one
     * batch, then out of the key sets, then the channel's fd is released if the channel was
     * closed and this was its last registration. A key the kernel could not drop stays
     * registered, its channel's fd open, and its removal is tried again by the next select.
     *
     * @param beforePoll whether the select has yet to poll: the queued changes then reach the
     *     kernel in the removals' batch
     */
    private void processCancelledKeys(boolean beforePoll) throws IOException {
        Set<SelectionKey> cancelledKeys = cancelledKeys();
        synchronized (cancelledKeys) {
            if (cancelledKeys.isEmpty() && cancelled.isEmpty()) {
                return;
            }
            for (SelectionKey key : cancelledKeys) {
                cancelled.add((NativeSelectionKey) key);
            }
            cancelledKeys.clear();
        }
        Exception failure = changes.removeFromKernel(cancelled, beforePoll);
        int kept = 0;
        for (int i = 0; i < cancelled.size(); i++) {
            NativeSelectionKey key = cancelled.get(i);
            // The freed slot, not isOutOfKernel(), says what the removal did: a channel's close
            // may take a refused key out of the kernel since, and its slot is freed only by the
            // next removal, so the key must wait for it.
            if (key.slot < 0) {
                failure = deregisterKeeping(key, failure);
            } else {
                cancelled.set(kept++, key);
            }
        }
        for (int i = cancelled.size() - 1; i >= kept; i--) {
            cancelled.remove(i);
        }
        throwIfAny(failure);
    }

    /**
     * Deregisters every key out of the kernel even when some fail, then throws the first
     * failure, {@code failure} (if not null) first of all.
     */
    private void deregisterAll(List<? extends SelectionKey> toDeregister, Exception failure) throws IOException {
        for (int i = 0; i < toDeregister.size(); i++) {
            failure = deregisterKeeping((NativeSelectionKey) toDeregister.get(i), failure);
        }
        throwIfAny(failure);
    }

    /**
     * Deregisters the key; returns {@code failure}, or this failure when there was none before
     * (a later one is suppressed in the first), for the caller to throw once every key is done.
     */
    private Exception deregisterKeeping(NativeSelectionKey key, Exception failure) {
        try {
            deregisterKey(key);
        } catch (IOException | RuntimeException e) {
            // JDK 17's removeKey throws NullPointerException for a channel whose first
            // registration is still under way; the other keys must still be released.
            if (failure == null) {
                return e;
            }
            failure.addSuppressed(e);
        }
        return failure;
    }

    private static void throwIfAny(Exception failure) throws IOException {
        if (failure instanceof IOException e) {
            throw e;
        }
        if (failure != null) {
            throw (RuntimeException) failure;
        }
    }

    /** Once per key: the key set's removal decides which of close and a select deregisters it. */
    private void deregisterKey(NativeSelectionKey key) throws IOException {
        if (!keys.remove(key)) {
            return;
        }
        selectedKeys.remove(key);
        SelectableChannel channel = key.channel();
        try {
            deregister(key);
        } finally {
            if (channel instanceof LeanChannel lean) {
                lean.deregistered(key);
            }
        }
        if (!channel.isOpen() && !channel.isRegistered()) {
            if (channel instanceof LeanChannel lean) {
                lean.kill();
            } else {
                JdkChannels.kill(channel);
            }
        }
    }

    @Override
    protected void implCloseSelector() throws IOException {
        Exception failure = null;
        try {
            wakeup();
        } catch (RuntimeException e) {
            failure = e;
        }
        try {
            closeUnderLock();
        } catch (IOException | RuntimeException e) {
            if (failure != null) {
                e.addSuppressed(failure);
            }
            failure = e;
        }
        throwIfAny(failure);
    }

    /**
     * The close proper, once a select in progress has been woken. A wakeup that failed still lets
     * it run, so that the kernel object and the channels' descriptors are released: after a select
     * in progress has ended by itself, should one be waiting without a timeout.
     */
    private void closeUnderLock() throws IOException {
        synchronized (this) {
            synchronized (wakeupLock) {
                // A wakeup after close must not touch the backend's closed eventfd.
                wakeupPending = true;
            }
            // Closing the kernel object drops every registration before any fd is released.
            changes.close();
            synchronized (selectedKeys) {
                synchronized (cancelledKeys()) {
                    cancelledKeys().clear();
                }
                cancelled.clear();
                deregisterAll(new ArrayList<>(keys), null);
            }
        }
    }

    private void ensureOpen() {
        if (!isOpen()) {
            throw new ClosedSelectorException();
        }
    }
}
