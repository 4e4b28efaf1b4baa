package io.github.nativeselector.internal;

import java.io.IOException;

/**
 * Linux io_uring with one-shot polls, re-armed while registered (level-triggered); the Java face
 * of {@code linux/uring_backend.h}.
 */
final class UringBackend implements Backend {

    private final long handle;

    private UringBackend(long handle) {
        this.handle = handle;
    }

    /** Sets up a ring; the exception says why io_uring is unavailable or could not start. */
    static UringBackend open(int capacity) throws IOException {
        NativeLibrary.ensureLoaded();
        return new UringBackend(create(capacity));
    }

    @Override
    public String name() {
        return "io_uring";
    }

    @Override
    public boolean appliesDuringPoll() {
        return true;
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
