/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.internal;

import java.io.IOException;
import java.util.Optional;

/**
 * Every native backend's Java face: a handle to one backend of the library, opened by name and
 * driven through the operations every backend implements ({@code src/main/native/share/ns_backend.h}).
 */
final class NativeBackend implements Backend {

    /** {@code open}'s option for no io_uring ring ({@code NS_OPEN_WITHOUT_RING}). */
    static final int OPEN_WITHOUT_RING = 1;
    /** {@code ringStatus} when open was asked for no ring ({@code NS_RING_OFF}). */
    static final int RING_OFF = 1;
    /** {@code ringStatus} of a backend with no ring of its own to apply changes through ({@code NS_NO_RING}). */
    static final int NO_RING = Integer.MIN_VALUE;

    private final String name;
    private final long handle;
    private final boolean appliesDuringPoll;
    /** Read at open, where it is settled, so that no call reads it from a closed backend's memory. */
    private final int ringStatus;

    private NativeBackend(String name, long handle) {
        this.name = name;
        this.handle = handle;
        this.appliesDuringPoll = appliesDuringPoll(handle);
        this.ringStatus = ringStatus(handle);
    }

    /**
     * Opens the backend {@code choice} names, whose polls return up to {@code capacity} records;
     * the exception says why it is unavailable or could not start.
     */
    static NativeBackend open(BackendChoice choice, int capacity, boolean ring) throws IOException {
        NativeLibrary.ensureLoaded();
        String name = choice.propertyValue();
        long handle = open(name, capacity, ring ? 0 : OPEN_WITHOUT_RING);
        try {
            return new NativeBackend(name, handle);
        } catch (RuntimeException | Error e) {
            close(handle);
            throw e;
        }
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public boolean appliesDuringPoll() {
        return appliesDuringPoll;
    }

    @Override
    public int apply(long changes, int count, boolean sync) throws IOException {
        return apply(handle, changes, count, sync);
    }

    @Override
    public int poll(long ready, int capacity, int timeoutMillis) throws IOException {
        return poll(handle, ready, capacity, timeoutMillis);
    }

    @Override
    public void wakeup() throws IOException {
        wakeup(handle);
    }

    @Override
    public Optional<String> ringState() {
        int status = ringStatus;
        if (status == NO_RING) {
            return Optional.empty();
        }
        if (status == 0) {
            return Optional.of("on: a batch of changes is one io_uring_enter of IORING_OP_EPOLL_CTL entries"
                    + " (a small one, one epoll_ctl each)");
        }
        return Optional.of("off, one epoll_ctl per change: " + (status == RING_OFF
                ? Config.EPOLL_RING_PROPERTY + "=false"
                : "io_uring refused the ring: " + Errno.describe(-status) + " (errno " + -status + ")"));
    }

    @Override
    public void close() {
        close(handle);
    }

    private static native long open(String name, int capacity, int options) throws IOException;

    private static native int ringStatus(long handle);

    private static native boolean appliesDuringPoll(long handle);

    private static native int apply(long handle, long changes, int count, boolean sync) throws IOException;

    private static native int poll(long handle, long ready, int capacity, int timeoutMillis) throws IOException;

    private static native void wakeup(long handle) throws IOException;

    private static native void close(long handle);

    /**
     * The library's value of a constant {@link SharedConstants} checks (of {@code ns_records.h}, or on Linux of
     * the system headers the lean socket channels use), named by the C expression that gives it.
     *
     * @throws java.util.NoSuchElementException when the library has no constant of that name
     */
    static native long sharedConstant(String name);
}
