package io.github.nativeselector.internal;

import java.io.IOException;

/** Linux epoll, level-triggered; the Java face of {@code linux/epoll_backend.h}. */
final class EpollBackend implements Backend {

    private final long handle;

    private EpollBackend(long handle) {
        this.handle = handle;
    }

    /** Opens an epoll instance whose waits return up to {@code capacity} events. */
    static EpollBackend open(int capacity) throws IOException {
        NativeLibrary.ensureLoaded();
        return new EpollBackend(create(capacity));
    }

    @Override
    public String name() {
        return "epoll";
    }

    @Override
    public boolean appliesDuringPoll() {
        return true;
    }

    @Override
    public int apply(long changes, int count, boolean sync) {
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

    private static native int apply(long handle, long changes, int count, boolean sync);

    private static native int poll(long handle, long ready, int capacity, int timeoutMillis) throws IOException;

    private static native void wakeup(long handle) throws IOException;

    private static native void close(long handle);
}
