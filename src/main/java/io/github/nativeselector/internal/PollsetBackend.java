package io.github.nativeselector.internal;

import java.io.IOException;

/**
 * AIX's pollset (on Linux, through {@code aix/pollset-on-linux}, the AIX API over poll(2)); the
 * Java face of {@code aix/pollset_backend.h}. {@code pollset_ctl} waits for a
 * {@code pollset_poll} in progress, so changes are never applied during a poll.
 */
final class PollsetBackend implements Backend {

    private final long handle;

    private PollsetBackend(long handle) {
        this.handle = handle;
    }

    /** Creates a pollset whose waits return up to {@code capacity} events. */
    static PollsetBackend open(int capacity) throws IOException {
        NativeLibrary.ensureLoaded();
        return new PollsetBackend(create(capacity));
    }

    @Override
    public String name() {
        return "pollset";
    }

    @Override
    public boolean appliesDuringPoll() {
        return false;
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
    public void close() {
        close(handle);
    }

    private static native long create(int capacity) throws IOException;

    private static native int apply(long handle, long changes, int count, boolean sync) throws IOException;

    private static native int poll(long handle, long ready, int capacity, int timeoutMillis) throws IOException;

    private static native void wakeup(long handle) throws IOException;

    private static native void close(long handle);
}
