/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.internal.lean;

import io.github.nativeselector.internal.OffHeap;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.Reference;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.SocketOption;
import java.nio.ByteBuffer;
import java.nio.channels.AlreadyBoundException;
import java.nio.channels.AlreadyConnectedException;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ConnectionPendingException;
import java.nio.channels.IllegalBlockingModeException;
import java.nio.channels.NoConnectionPendingException;
import java.nio.channels.NotYetConnectedException;
import java.nio.channels.SocketChannel;
import java.nio.channels.spi.SelectorProvider;
import java.util.Arrays;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.locks.Condition;

/**
 * A TCP {@link SocketChannel} on a descriptor of its own, with the contract of the JDK's
 * {@code sun.nio.ch.SocketChannelImpl} on Linux: the same states, exceptions and close protocol.
 *
 * <p>The descriptor is non-blocking in the kernel for its whole life. Blocking mode is a Java
 * flag: an operation that cannot proceed waits for readiness ({@link ReadinessWait}) and tries
 * again, so configureBlocking costs no system call and a virtual thread never blocks its carrier.
 * Heap buffers are read and written in place, direct ones in their own memory, several at once
 * with readv/writev through an off-heap iovec array per direction. Each direction keeps the last
 * direct buffer it used and that buffer's address, so a program that reads into (or writes from)
 * the same buffer each time asks the library where its memory is once; a closed channel lets them
 * go when it closes the descriptor. A view of a memory segment has no address ({@link
 * OffHeap#address}) and goes through a copy instead, so that a closed arena fails the call with the
 * JDK's IllegalStateException rather than have the kernel use freed memory. The socket's own
 * address is asked of the kernel when first wanted and then kept; an accepted channel has its
 * peer's from accept4, and costs no system call of its own.
 *
 * <p>Closing follows the JDK: a thread blocked in an operation is woken by shutting the socket down
 * (poll(2) returns) or through the poller (a parked virtual thread), and the descriptor is closed
 * by the last such thread to leave. In blocking mode the close waits for no I/O lock, as the JDK's
 * does not: an interrupt closes the channel on the interrupting thread, holding the channel's close
 * lock (and, on JDK 17 and 21, the interrupted thread's interrupt lock), which the interrupted
 * thread, holding an I/O lock, may be about to take as it begins or ends an operation. Where the
 * JDK keeps a registered channel's descriptor open until every selector has deregistered it, a
 * close with no thread in an operation takes it out of the selectors' kernel sets itself ({@link
 * SocketDescriptor#leaveKernelsNow}) and closes it at once, when that ends the connection as the
 * JDK's would (its input read to the end, no SO_LINGER): one system call for the removal and one
 * for the close, where the JDK makes a shutdown, the removal, and the close. Otherwise it does as
 * the JDK, and the descriptor waits for {@link #kill()}, once every selector has let it go.
 *
 * <p>Locking: the read lock is held by a reading thread, the write lock by a writing one, both
 * (read first) by connect, finishConnect, bind and configureBlocking; {@code stateLock} is taken
 * after them when needed, guards the fields so marked and every change of {@code state}, and is
 * never held while waiting. {@code state} is volatile so that a read or write on a connected
 * channel checks it without locking; its BLOCKING flag changes holding both I/O locks too, so that
 * it holds still for the holder of either, and its RESET and READ_FAILED flags holding the read
 * lock. The I/O locks are reentrant and uninterruptible, as the JDK's channel's are, and are fields
 * of the channel rather than objects of their own ({@link #lockIo}): a server takes both once per
 * request, and with them in the channel a request touches no memory beyond the channel's for them,
 * and a connection holds two objects fewer. Threads wait for them, and for {@code stateLock}, a
 * {@link ChannelLock}, by parking, so that a virtual thread waiting holds no monitor.
 */
final class LeanSocketChannel extends SocketChannel implements LeanChannel {

    /** Phases of {@code state}, in the order they come. */
    private static final int UNCONNECTED = 0;
    private static final int PENDING = 1;
    private static final int CONNECTED = 2;
    private static final int CLOSING = 3;
    private static final int CLOSED = 4;
    private static final int PHASE = 0x7;
    /** Flags of {@code state}. */
    private static final int BOUND = 0x8;
    private static final int INPUT_SHUT = 0x10;
    private static final int OUTPUT_SHUT = 0x20;
    /** The channel is in blocking mode. */
    private static final int BLOCKING = 0x40;
    /**
     * A read saw ECONNRESET: Linux reports it once and then end of stream, while the JDK's
     * channels fail every later read.
     */
    private static final int RESET = 0x80;
    /**
     * A read failed after a scattering read had moved bytes, which it returned; the failure, in
     * {@code deferredReadFailure}, is the next read's, as a single readv would have left it.
     */
    private static final int READ_FAILED = 0x100;
    /** A read goes straight to the kernel when these bits of {@code state} say CONNECTED and no more. */
    private static final int READ_CHECKS = PHASE | INPUT_SHUT | BLOCKING | RESET | READ_FAILED;
    /** A write goes straight to the kernel when these bits of {@code state} say CONNECTED and no more. */
    private static final int WRITE_CHECKS = PHASE | OUTPUT_SHUT | BLOCKING;

    /**
     * A heap buffer without an array, or a memory segment's view, goes through a copy of at most
     * this many bytes.
     */
    private static final int COPY_CHUNK = 64 * 1024;
    private static final int FIRST_IOVECS = 8;

    private static final VarHandle READER;
    private static final VarHandle WRITER;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            READER = lookup.findVarHandle(LeanSocketChannel.class, "reader", Thread.class);
            WRITER = lookup.findVarHandle(LeanSocketChannel.class, "writer", Thread.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    // The fields a non-blocking read or write on a connected channel touches come first: HotSpot
    // lays out the fields of one size in the order they are declared, so these share one or two
    // cache lines, all that a request pays for on a channel that has left the CPU's caches.

    private final int fd;
    /** A phase and flags; changed under stateLock, BLOCKING holding both I/O locks too. */
    private volatile int state;
    /** How many times the holder holds the lock, 0 while it is free; touched by the holder alone. */
    private int readHolds;
    private int writeHolds;
    /** How many threads wait for either I/O lock; changed under stateLock, read by every release. */
    private volatile int ioLockWaiters;
    /** The threads holding the read and the write lock, null while free; see {@link #lockIo}. */
    private volatile Thread reader;
    private volatile Thread writer;
    /** Guarded by the direction's lock; let go by the close of the descriptor (tryClose), when no thread transfers. */
    private ByteBuffer lastReadBuffer;
    private long lastReadAddress;
    private ByteBuffer lastWrittenBuffer;
    private long lastWrittenAddress;

    private final boolean inet6;
    private final SocketDescriptor descriptor;

    private final ChannelLock stateLock = new ChannelLock();

    /**
     * Guarded by the read lock: a read saw the end of the stream, so nothing is left unread, nor can
     * arrive, and closing the socket sends a FIN rather than a reset.
     */
    private boolean inputEnded;
    private IoVectors readVectors;
    /** Guarded by the read lock: the failure READ_FAILED says the next read throws. */
    private IOException deferredReadFailure;

    /** Guarded by the write lock. */
    private IoVectors writeVectors;

    // -- Guarded by stateLock

    /** Signalled when an I/O lock is let go while threads wait for one; made by the first of them. */
    private Condition ioLockFreed;
    /** The threads in a blocking operation, which a close must wake and which then close the descriptor. */
    private Thread readerThread;
    private Thread writerThread;
    /** The peer accept4 gave, or the address given to connect; null before a connect. */
    private InetSocketAddress remoteAddress;
    private Socket socket;

    /** A new, unconnected socket. */
    LeanSocketChannel(SelectorProvider provider, boolean inet6) throws IOException {
        super(provider);
        this.inet6 = inet6;
        this.fd = Sockets.socket(inet6);
        this.descriptor = new SocketDescriptor(this, fd, inet6, SocketOptionTable.SOCKET, stateLock);
        this.state = BLOCKING;
    }

    /** An accepted connection on {@code fd}, non-blocking in the kernel as accept4 made it, from {@code remote}. */
    LeanSocketChannel(SelectorProvider provider, boolean inet6, int fd, InetSocketAddress remote) {
        super(provider);
        this.inet6 = inet6;
        this.fd = fd;
        this.remoteAddress = remote;
        this.descriptor = new SocketDescriptor(this, fd, inet6, SocketOptionTable.SOCKET, stateLock);
        this.state = CONNECTED | BLOCKING;
    }

    /** Sets ({@code on}) or clears {@code flag} in {@code state}, under stateLock as every change of it. */
    private void setFlag(int flag, boolean on) {
        stateLock.lock();
        try {
            state = on ? state | flag : state & ~flag;
        } finally {
            stateLock.unlock();
        }
    }

    /** Whether the channel is in blocking mode; steady while the caller holds either I/O lock. */
    private boolean blocking() {
        return (state & BLOCKING) != 0;
    }

    @Override
    public int fdVal() {
        return fd;
    }

    // -- The I/O locks

    /**
     * Takes the read ({@code reading}) or the write lock, waiting while another thread holds it.
     * A free lock costs one compare-and-set on the channel. A thread that finds it held counts
     * itself in {@code ioLockWaiters} and waits on {@code ioLockFreed}, a condition of
     * {@code stateLock}, trying again at each signal; a release that finds the count above 0
     * signals every waiter (of either lock). The count is written before the try and read after
     * the release (both volatile), so either the waiter's try sees the lock free or the release
     * sees the waiter, and its signal, under stateLock, cannot come before the wait. The wait is
     * uninterruptible and keeps the thread's interrupt for the operation that follows, as the
     * JDK's lock does.
     */
    private void lockIo(boolean reading) {
        Thread me = Thread.currentThread();
        if (!tryLockIo(reading, me) && (reading ? reader : writer) != me) {
            awaitIoLock(reading, me);
        }
        addHolds(reading, 1);
    }

    /**
     * One try at the read ({@code reading}) or the write lock. Each compare-and-set names its
     * VarHandle as a constant: one chosen at run time compiles, wherever this is not inlined into a
     * caller that fixes {@code reading}, to a call through the handle's method rather than to one
     * instruction.
     */
    private boolean tryLockIo(boolean reading, Thread me) {
        return reading
                ? READER.compareAndSet(this, (Thread) null, me)
                : WRITER.compareAndSet(this, (Thread) null, me);
    }

    /** Lets go of the read ({@code reading}) or the write lock, which the current thread holds. */
    private void unlockIo(boolean reading) {
        if (addHolds(reading, -1) == 0) {
            if (reading) {
                reader = null;
            } else {
                writer = null;
            }
            if (ioLockWaiters != 0) {
                stateLock.lock();
                try {
                    ioLockFreed.signalAll();
                } finally {
                    stateLock.unlock();
                }
            }
        }
    }

    private int addHolds(boolean reading, int change) {
        return reading ? (readHolds += change) : (writeHolds += change);
    }

    private void awaitIoLock(boolean reading, Thread me) {
        stateLock.lock();
        try {
            if (ioLockFreed == null) {
                ioLockFreed = stateLock.newCondition();
            }
            ioLockWaiters++;
            try {
                while (!tryLockIo(reading, me)) {
                    ioLockFreed.awaitUninterruptibly();
                }
            } finally {
                ioLockWaiters--;
            }
        } finally {
            stateLock.unlock();
        }
    }

    // -- Reading

    @Override
    public int read(ByteBuffer dst) throws IOException {
        Objects.requireNonNull(dst);
        lockIo(true);
        try {
            int s = state;
            if ((s & READ_CHECKS) == CONNECTED) {
                int n = transferOnce(dst, true);
                return n > 0 || n == Sockets.EOF ? n : nothingRead();
            }
            return (int) readOtherwise(s, () -> transferOnce(dst, true));
        } finally {
            unlockIo(true);
        }
    }

    @Override
    public long read(ByteBuffer[] dsts, int offset, int length) throws IOException {
        Objects.checkFromIndexSize(offset, length, dsts.length);
        lockIo(true);
        try {
            int s = state;
            if ((s & READ_CHECKS) == CONNECTED) {
                long n = transferOnce(dsts, offset, length, true);
                return n > 0 || n == Sockets.EOF ? n : nothingRead();
            }
            return readOtherwise(s, () -> transferOnce(dsts, offset, length, true));
        } finally {
            unlockIo(true);
        }
    }

    /** A non-blocking read that moved nothing: 0, or EOF if the input was shut down meanwhile. */
    private int nothingRead() {
        return (state & INPUT_SHUT) != 0 ? Sockets.EOF : 0;
    }

    /** A read off the fast path: the channel is not open and connected, or blocking, or its input is over. */
    private long readOtherwise(int s, Transfer read) throws IOException {
        checkOpenAndConnected(s);
        if ((s & BLOCKING) != 0) {
            return blockingRead(read, 0);
        }
        // As the JDK: once the input is shut down, a read gives end of stream, reset or not.
        if ((s & INPUT_SHUT) == 0) {
            throwReadFailure(s);
        }
        return Sockets.EOF;
    }

    /**
     * Reads in blocking mode, for at most {@code nanos} when more than 0. The caller holds
     * the read lock and found the channel open and connected.
     */
    private long blockingRead(Transfer read, long nanos) throws IOException {
        long n = 0;
        try {
            beginRead();
            throwReadFailure(state);
            if ((state & INPUT_SHUT) != 0) {
                return Sockets.EOF;
            }
            long start = nanos > 0 ? System.nanoTime() : 0;
            n = read.attempt();
            while (n == Sockets.UNAVAILABLE && isOpen()) {
                ReadinessWait.await(fd, Sockets.POLLIN, nanos, start, "Read timed out");
                n = read.attempt();
            }
        } finally {
            endBlocking(true, n > 0);
            // As the JDK: a read that the input's shutdown ended gives end of stream.
            if (n <= 0 && (state & INPUT_SHUT) != 0) {
                return Sockets.EOF;
            }
        }
        return n;
    }

    /**
     * One read into ({@code reading}) or write from {@code buffer}: bytes moved, EOF or
     * UNAVAILABLE; 0 when the buffer has no room or nothing left. The caller holds the direction's
     * lock.
     */
    private int transferOnce(ByteBuffer buffer, boolean reading) throws IOException {
        if (reading && buffer.isReadOnly()) {
            throw new IllegalArgumentException("Read-only buffer");
        }
        int position = buffer.position();
        int remaining = buffer.limit() - position;
        if (remaining <= 0) {
            return 0;
        }
        long address = buffer.isDirect() ? directAddress(buffer, reading) : 0;
        int n;
        if (address != 0) {
            n = transferDirect(buffer, address + position, remaining, reading);
        } else {
            n = buffer.hasArray() ? transferArray(buffer.array(), buffer.arrayOffset() + position, remaining, reading)
                    : transferThroughCopy(buffer, position, remaining, reading);
        }
        if (n > 0) {
            buffer.position(position + n);
        }
        return n;
    }

    /**
     * A direct buffer's address, 0 for a view of a memory segment; asked of the library only for a
     * buffer other than the direction's last. Called holding the direction's lock.
     */
    private long directAddress(ByteBuffer buffer, boolean reading) {
        if (reading) {
            if (buffer != lastReadBuffer) {
                lastReadAddress = OffHeap.address(buffer);
                lastReadBuffer = buffer;
            }
            return lastReadAddress;
        }
        if (buffer != lastWrittenBuffer) {
            lastWrittenAddress = OffHeap.address(buffer);
            lastWrittenBuffer = buffer;
        }
        return lastWrittenAddress;
    }

    /** Moves bytes at {@code address} in {@code buffer}'s memory, which stays reachable until the kernel is done. */
    private int transferDirect(ByteBuffer buffer, long address, int length, boolean reading) throws IOException {
        try {
            return reading ? (int) noteEnd(Sockets.readAt(fd, address, length)) : Sockets.writeAt(fd, address, length);
        } catch (SocketException e) {
            throw reading ? reset(e) : e;
        } finally {
            Reference.reachabilityFence(buffer);
        }
    }

    private int transferArray(byte[] array, int offset, int length, boolean reading) throws IOException {
        try {
            return reading ? (int) noteEnd(Sockets.readArray(fd, array, offset, length))
                    : Sockets.writeArray(fd, array, offset, length);
        } catch (SocketException e) {
            throw reading ? reset(e) : e;
        }
    }

    private long transferVectors(long iovecs, int count, boolean reading) throws IOException {
        try {
            return reading ? noteEnd(Sockets.readv(fd, iovecs, count)) : Sockets.writev(fd, iovecs, count);
        } catch (SocketException e) {
            throw reading ? reset(e) : e;
        }
    }

    /** A read's result, as it is; the end of the stream is noted ({@code inputEnded}). */
    private long noteEnd(long n) {
        if (n == Sockets.EOF) {
            inputEnded = true;
        }
        return n;
    }

    /** For a heap buffer whose array is out of reach (a view of other memory), or a segment's view. */
    private int transferThroughCopy(ByteBuffer buffer, int position, int remaining, boolean reading)
            throws IOException {
        byte[] copy = new byte[Math.min(remaining, COPY_CHUNK)];
        if (!reading) {
            buffer.get(position, copy);
            return transferArray(copy, 0, copy.length, false);
        }
        // A view of a closed arena's segment throws IllegalStateException here, before a byte is
        // taken from the socket, as the JDK's channels throw it.
        buffer.get(position);
        int n = transferArray(copy, 0, copy.length, true);
        if (n > 0) {
            buffer.put(position, copy, 0, n);
        }
        return n;
    }

    /**
     * Remembers a reset: Linux reports ECONNRESET once and then end of stream, while the JDK's
     * channels fail every later read. Sockets' reads throw SocketException for that alone.
     */
    private SocketException reset(SocketException e) {
        setFlag(RESET, true);
        return e;
    }

    /**
     * Throws what an earlier read left for this one, if {@code s} says it left something. The
     * caller holds the read lock.
     */
    private void throwReadFailure(int s) throws IOException {
        if ((s & READ_FAILED) != 0) {
            IOException failure = deferredReadFailure;
            deferredReadFailure = null;
            setFlag(READ_FAILED, false);
            throw failure;
        }
        if ((s & RESET) != 0) {
            throw connectionReset();
        }
    }

    private static SocketException connectionReset() {
        return new SocketException("Connection reset");
    }

    // -- Writing

    @Override
    public int write(ByteBuffer src) throws IOException {
        Objects.requireNonNull(src);
        lockIo(false);
        try {
            int s = state;
            if ((s & WRITE_CHECKS) == CONNECTED) {
                int n;
                try {
                    n = transferOnce(src, false);
                } catch (IOException e) {
                    throw overtakenByShutdown(e);
                }
                return n > 0 ? n : nothingWritten();
            }
            return (int) writeOtherwise(s, () -> transferOnce(src, false));
        } finally {
            unlockIo(false);
        }
    }

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
        Objects.checkFromIndexSize(offset, length, srcs.length);
        lockIo(false);
        try {
            int s = state;
            if ((s & WRITE_CHECKS) == CONNECTED) {
                long n;
                try {
                    n = transferOnce(srcs, offset, length, false);
                } catch (IOException e) {
                    throw overtakenByShutdown(e);
                }
                return n > 0 ? n : nothingWritten();
            }
            return writeOtherwise(s, () -> transferOnce(srcs, offset, length, false));
        } finally {
            unlockIo(false);
        }
    }

    /** A non-blocking write that moved nothing: 0, unless the output was shut down meanwhile. */
    private int nothingWritten() throws AsynchronousCloseException {
        if ((state & OUTPUT_SHUT) != 0) {
            throw new AsynchronousCloseException();
        }
        return 0;
    }

    /**
     * What a non-blocking write whose send failed with {@code e} throws: if shutdownOutput on
     * another thread overtook the send (EPIPE), AsynchronousCloseException, as a write after it.
     */
    private IOException overtakenByShutdown(IOException e) {
        return outputShutUnderway() ? new AsynchronousCloseException() : e;
    }

    /** A write off the fast path: the channel is not open and connected, or blocking, or its output is shut. */
    private long writeOtherwise(int s, Transfer write) throws IOException {
        checkOpenAndConnected(s);
        if ((s & BLOCKING) == 0) {
            // What the JDK's channel throws once the send it tries has failed with EPIPE.
            throw new AsynchronousCloseException();
        }
        return blockingWrite(write);
    }

    /**
     * Writes in blocking mode until nothing is left to write (an attempt gives 0), as a blocking
     * send does; on a virtual thread only until an attempt has taken something, as the JDK's
     * channel does there, whose descriptor is then non-blocking in the kernel. The caller holds
     * the write lock and found the channel open and connected.
     */
    private long blockingWrite(Transfer write) throws IOException {
        boolean once = ReadinessWait.onVirtualThread();
        long written = 0;
        try {
            beginWrite();
            while (isOpen() && (state & OUTPUT_SHUT) == 0) {
                long n;
                try {
                    n = write.attempt();
                } catch (IOException e) {
                    // A close or shutdownOutput on another thread ends the write: a send it
                    // overtook fails with EPIPE, which is no failure of this write. Nor is a
                    // failure after bytes were sent, as for one blocking send: their count is
                    // returned, and the next write meets the failure.
                    if (isOpen() && !outputShutUnderway() && written == 0) {
                        throw e;
                    }
                    break;
                }
                if (n > 0) {
                    written += n;
                    if (once) {
                        break;
                    }
                } else if (n == Sockets.UNAVAILABLE) {
                    ReadinessWait.await(fd, Sockets.POLLOUT);
                } else {
                    break;
                }
            }
        } finally {
            endBlocking(false, written > 0);
            if (written <= 0 && (state & OUTPUT_SHUT) != 0) {
                throw new AsynchronousCloseException();
            }
        }
        return written;
    }

    /**
     * One scattering read ({@code reading}) or gathering write: with readv or writev when every
     * buffer with bytes to move is direct; otherwise buffer by buffer, stopping at the first not
     * moved whole. The caller holds the direction's lock, which guards its IoVectors.
     */
    private long transferOnce(ByteBuffer[] buffers, int offset, int length, boolean reading) throws IOException {
        int withBytes = 0;
        boolean allDirect = true;
        for (int i = offset; i < offset + length; i++) {
            ByteBuffer buffer = buffers[i];
            if (reading && buffer.isReadOnly()) {
                throw new IllegalArgumentException("Read-only buffer");
            }
            if (buffer.hasRemaining()) {
                withBytes++;
                allDirect &= buffer.isDirect();
            }
        }
        if (withBytes == 0) {
            return 0;
        }
        if (withBytes == 1 || !allDirect) {
            return transferEach(buffers, offset, length, reading);
        }
        IoVectors vectors = reading ? (readVectors = IoVectors.atLeast(readVectors, withBytes))
                : (writeVectors = IoVectors.atLeast(writeVectors, withBytes));
        try {
            int count = vectors.fill(buffers, offset, length, reading);
            if (count < 0) {
                return transferEach(buffers, offset, length, reading);
            }
            long n = transferVectors(vectors.address(), count, reading);
            if (n > 0) {
                vectors.advance(n);
            }
            return n;
        } finally {
            vectors.release();
        }
    }

    /**
     * As one readv or writev would, a failure after bytes have moved gives their count, and the
     * next call meets it: a write's from the kernel again (a connection that failed a send fails
     * the next), a read's reset from RESET, any other read failure from READ_FAILED (the kernel
     * reports it once, and a later read would take the connection for ended).
     */
    private long transferEach(ByteBuffer[] buffers, int offset, int length, boolean reading) throws IOException {
        // A view of a closed arena's segment fails the call before any buffer moves a byte, as on
        // the JDK's channels, which take every buffer's arena before the system call.
        for (int i = offset; i < offset + length; i++) {
            if (!buffers[i].hasArray() && buffers[i].hasRemaining()) {
                buffers[i].get(buffers[i].position());
            }
        }
        long total = 0;
        for (int i = offset; i < offset + length; i++) {
            int remaining = buffers[i].remaining();
            if (remaining == 0) {
                continue;
            }
            int n;
            try {
                n = transferOnce(buffers[i], reading);
            } catch (IOException e) {
                if (total == 0) {
                    throw e;
                }
                // A read's reset is RESET's already (transferDirect, transferArray).
                if (reading && !(e instanceof SocketException)) {
                    deferredReadFailure = e;
                    setFlag(READ_FAILED, true);
                }
                return total;
            }
            if (n <= 0) {
                return total > 0 ? total : n;
            }
            total += n;
            if (n < remaining) {
                break;
            }
        }
        return total;
    }

    // -- Marking blocking operations, for interrupts and asynchronous close

    private void beginRead() throws ClosedChannelException {
        begin();
        stateLock.lock();
        try {
            descriptor.ensureOpen();
            readerThread = Thread.currentThread();
        } finally {
            stateLock.unlock();
        }
    }

    /**
     * Ends what beginRead ({@code reader}) or beginWrite began; the thread, the last to leave a
     * closing channel, may close the descriptor.
     */
    private void endBlocking(boolean reader, boolean completed) throws AsynchronousCloseException {
        stateLock.lock();
        try {
            if (reader) {
                readerThread = null;
            } else {
                writerThread = null;
            }
            if ((state & PHASE) == CLOSING) {
                tryFinishClose();
            }
        } finally {
            stateLock.unlock();
        }
        end(completed);
    }

    private void beginWrite() throws ClosedChannelException {
        begin();
        stateLock.lock();
        try {
            descriptor.ensureOpen();
            if ((state & OUTPUT_SHUT) != 0) {
                throw new ClosedChannelException();
            }
            writerThread = Thread.currentThread();
        } finally {
            stateLock.unlock();
        }
    }


    // -- Connecting and binding

    @Override
    public boolean connect(SocketAddress remote) throws IOException {
        InetSocketAddress address = SocketAddresses.checkRemote(remote, inet6);
        return connecting(() -> {
            descriptor.ensureOpen();
            return connect(address, blocking(), 0);
        });
    }

    @Override
    public boolean finishConnect() throws IOException {
        return connecting(() -> {
            if (isConnected()) {
                return true;
            }
            descriptor.ensureOpen();
            boolean blocking = blocking();
            boolean connected = false;
            try {
                beginFinishConnect(blocking);
                connected = Sockets.finishConnect(fd) > 0 || (blocking && awaitConnected(0));
                connected = connected && isOpen();
            } finally {
                endConnect(blocking, connected);
            }
            return connected;
        });
    }

    /**
     * Connects in blocking mode, for at most {@code nanos} when more than 0; on a timeout the
     * channel is closed and SocketTimeoutException thrown. For {@link LeanSocket}.
     */
    void blockingConnect(SocketAddress remote, long nanos) throws IOException {
        InetSocketAddress address = SocketAddresses.checkRemote(remote, inet6);
        connecting(() -> {
            if (!blocking()) {
                throw new IllegalBlockingModeException();
            }
            return connect(address, true, nanos);
        });
    }

    /**
     * Runs a step of connecting holding both I/O locks, read first; a step that fails closes the
     * channel, as a failed connect leaves the JDK's closed.
     */
    private boolean connecting(ConnectStep step) throws IOException {
        try {
            lockIo(true);
            try {
                lockIo(false);
                try {
                    return step.run();
                } finally {
                    unlockIo(false);
                }
            } finally {
                unlockIo(true);
            }
        } catch (IOException e) {
            close();
            throw e;
        }
    }

    /** Holding both I/O locks: connects, waiting in blocking mode for at most {@code nanos} when more than 0. */
    private boolean connect(InetSocketAddress address, boolean blocking, long nanos) throws IOException {
        boolean connected = false;
        try {
            beginConnect(blocking, address);
            connected = SocketAddresses.connect(fd, inet6, address) > 0 || (blocking && awaitConnected(nanos));
        } finally {
            endConnect(blocking, connected);
        }
        return connected;
    }

    /** Waits for a pending connect to finish, for at most {@code nanos} when more than 0: whether it did. */
    private boolean awaitConnected(long nanos) throws IOException {
        long start = System.nanoTime();
        boolean connected = false;
        while (!connected && isOpen()) {
            ReadinessWait.await(fd, Sockets.POLLOUT, nanos, start, "Connect timed out");
            connected = Sockets.finishConnect(fd) > 0;
        }
        return connected && isOpen();
    }

    private void beginConnect(boolean blocking, InetSocketAddress address) throws ClosedChannelException {
        if (blocking) {
            begin();
        }
        stateLock.lock();
        try {
            descriptor.ensureOpen();
            int s = state;
            if ((s & PHASE) == CONNECTED) {
                throw new AlreadyConnectedException();
            }
            if ((s & PHASE) == PENDING) {
                throw new ConnectionPendingException();
            }
            if ((s & BOUND) != 0) {
                // The address bound, read before the connect gives the socket its source: the
                // JDK's channel reports that one until the connection is made.
                descriptor.keepLocalAddress(true);
            }
            state = (s & ~PHASE) | PENDING;
            remoteAddress = address;
            if (blocking) {
                readerThread = Thread.currentThread();
            }
        } finally {
            stateLock.unlock();
        }
    }

    private void beginFinishConnect(boolean blocking) throws ClosedChannelException {
        if (blocking) {
            begin();
        }
        stateLock.lock();
        try {
            descriptor.ensureOpen();
            if ((state & PHASE) != PENDING) {
                throw new NoConnectionPendingException();
            }
            if (blocking) {
                readerThread = Thread.currentThread();
            }
        } finally {
            stateLock.unlock();
        }
    }

    private void endConnect(boolean blocking, boolean completed) throws AsynchronousCloseException {
        if (blocking) {
            endBlocking(true, completed);
        }
        if (completed) {
            stateLock.lock();
            try {
                int s = state;
                if ((s & PHASE) == PENDING) {
                    state = (s & ~PHASE) | CONNECTED;
                    descriptor.forgetLocalAddress();
                }
            } finally {
                stateLock.unlock();
            }
        }
    }

    @Override
    public SocketChannel bind(SocketAddress local) throws IOException {
        lockIo(true);
        try {
            lockIo(false);
            try {
                stateLock.lock();
                try {
                    descriptor.ensureOpen();
                    int s = state;
                    if ((s & PHASE) == PENDING) {
                        throw new ConnectionPendingException();
                    }
                    if ((s & BOUND) != 0 || (s & PHASE) == CONNECTED) {
                        throw new AlreadyBoundException();
                    }
                    descriptor.bind(local);
                    state = s | BOUND;
                } finally {
                    stateLock.unlock();
                }
            } finally {
                unlockIo(false);
            }
        } finally {
            unlockIo(true);
        }
        return this;
    }

    @Override
    public boolean isConnected() {
        return (state & PHASE) == CONNECTED;
    }

    @Override
    public boolean isConnectionPending() {
        return (state & PHASE) == PENDING;
    }

    // -- Addresses

    @Override
    public SocketAddress getLocalAddress() throws IOException {
        stateLock.lock();
        try {
            descriptor.ensureOpen();
            return knownLocalAddress();
        } finally {
            stateLock.unlock();
        }
    }

    @Override
    public SocketAddress getRemoteAddress() throws IOException {
        stateLock.lock();
        try {
            descriptor.ensureOpen();
            return remoteAddress;
        } finally {
            stateLock.unlock();
        }
    }

    /**
     * The local address, or null when unbound, closed before it was known, or no longer known.
     * For the adaptor.
     */
    InetSocketAddress localAddress() {
        stateLock.lock();
        try {
            int s = state;
            return descriptor.localAddressOrNull((s & PHASE) == CLOSED, bound(s));
        } finally {
            stateLock.unlock();
        }
    }

    /** The remote address, or null when the socket never connected, open or closed. For the adaptor. */
    InetSocketAddress remoteAddress() {
        stateLock.lock();
        try {
            return remoteAddress;
        } finally {
            stateLock.unlock();
        }
    }

    /** Holding stateLock, with the descriptor open: the local address, asked of the kernel once. */
    private InetSocketAddress knownLocalAddress() throws IOException {
        return descriptor.localAddress(bound(state));
    }

    /** Whether the socket has a local address: bound, or given one by connecting. */
    private static boolean bound(int s) {
        return (s & BOUND) != 0 || (s & PHASE) == CONNECTED;
    }

    // -- Shutdown, and what the adaptor asks

    @Override
    public SocketChannel shutdownInput() throws IOException {
        shutdown(INPUT_SHUT, Sockets.SHUT_RD);
        return this;
    }

    @Override
    public SocketChannel shutdownOutput() throws IOException {
        shutdown(OUTPUT_SHUT, Sockets.SHUT_WR);
        return this;
    }

    /** Shuts one direction down once; a virtual thread waiting in it is woken to see that. */
    private void shutdown(int flag, int how) throws IOException {
        stateLock.lock();
        try {
            descriptor.ensureOpen();
            int s = state;
            if ((s & PHASE) != CONNECTED) {
                throw new NotYetConnectedException();
            }
            if ((s & flag) == 0) {
                // Wakes a thread waiting in this direction: the shutdown makes the socket ready
                // for it, which ends a platform thread's poll(2) and fires a virtual thread's
                // registration with the poller.
                Sockets.shutdown(fd, how);
                state = s | flag;
            }
        } finally {
            stateLock.unlock();
        }
    }

    boolean isInputClosed() {
        return (state & INPUT_SHUT) != 0;
    }

    boolean isOutputClosed() {
        return (state & OUTPUT_SHUT) != 0;
    }

    /**
     * Whether the output is shut down, or being shut down right now: stateLock is held from the
     * shutdown call until the flag is set, so taking it waits out a shutdown whose EPIPE a
     * writer saw before the flag.
     */
    private boolean outputShutUnderway() {
        stateLock.lock();
        try {
            return (state & OUTPUT_SHUT) != 0;
        } finally {
            stateLock.unlock();
        }
    }

    /** The bytes that can be read without waiting; 0 once the input is shut down. For the adaptor. */
    int available() throws IOException {
        stateLock.lock();
        try {
            int s = state;
            checkOpenAndConnected(s);
            return (s & INPUT_SHUT) != 0 ? 0 : Sockets.available(fd);
        } finally {
            stateLock.unlock();
        }
    }

    /**
     * Sends one byte of urgent data: 1, or 0 when a non-blocking channel's send buffer is full.
     * In blocking mode a platform thread waits for room, as the JDK's blocking descriptor makes
     * it wait in the kernel; a virtual thread fails with the JDK's SocketException instead, as
     * the JDK's channel, non-blocking in the kernel under a virtual thread, fails there. For the
     * adaptor.
     */
    int sendUrgentData(int data) throws IOException {
        lockIo(false);
        try {
            checkOpenAndConnected(state);
            boolean blocking = blocking();
            int n = 0;
            try {
                if (blocking) {
                    beginWrite();
                }
                n = Sockets.sendUrgentData(fd, data);
                while (blocking && n == Sockets.UNAVAILABLE && isOpen() && (state & OUTPUT_SHUT) == 0) {
                    if (ReadinessWait.onVirtualThread()) {
                        throw new SocketException("No buffer space available");
                    }
                    ReadinessWait.await(fd, Sockets.POLLOUT);
                    n = Sockets.sendUrgentData(fd, data);
                }
            } finally {
                if (blocking) {
                    endBlocking(false, n > 0);
                }
                if (n <= 0 && (state & OUTPUT_SHUT) != 0) {
                    throw new AsynchronousCloseException();
                }
            }
            return Math.max(n, 0);
        } finally {
            unlockIo(false);
        }
    }

    /**
     * Reads into {@code b} in blocking mode, waiting at most {@code nanos} when more than 0
     * (SocketTimeoutException, the channel left open): bytes read, or -1. For the adaptor.
     */
    int blockingRead(byte[] b, int off, int len, long nanos) throws IOException {
        Objects.checkFromIndexSize(off, len, b.length);
        if (len == 0) {
            return 0;
        }
        lockIo(true);
        try {
            checkOpenAndConnected(state);
            if (!blocking()) {
                throw new IllegalBlockingModeException();
            }
            return (int) blockingRead(() -> transferArray(b, off, len, true), nanos);
        } finally {
            unlockIo(true);
        }
    }

    /** Writes all of {@code b[off, off + len)} in blocking mode. For the adaptor. */
    void blockingWriteFully(byte[] b, int off, int len) throws IOException {
        Objects.checkFromIndexSize(off, len, b.length);
        if (len == 0) {
            return;
        }
        lockIo(false);
        try {
            checkOpenAndConnected(state);
            if (!blocking()) {
                throw new IllegalBlockingModeException();
            }
            int position = off;
            int end = off + len;
            try {
                beginWrite();
                while (position < end && isOpen()) {
                    int n = transferArray(b, position, end - position, false);
                    if (n > 0) {
                        position += n;
                    } else {
                        ReadinessWait.await(fd, Sockets.POLLOUT);
                    }
                }
            } finally {
                endBlocking(false, position >= end);
            }
        } finally {
            unlockIo(false);
        }
    }

    // -- Options

    @Override
    public <T> SocketChannel setOption(SocketOption<T> name, T value) throws IOException {
        descriptor.setOption(name, value);
        return this;
    }

    @Override
    public <T> T getOption(SocketOption<T> name) throws IOException {
        return descriptor.getOption(name);
    }

    @Override
    public Set<SocketOption<?>> supportedOptions() {
        return descriptor.supportedOptions();
    }

    // -- Blocking mode, adaptor, close

    @Override
    protected void implConfigureBlocking(boolean block) throws IOException {
        lockIo(true);
        try {
            lockIo(false);
            try {
                descriptor.ensureOpen();
                setFlag(BLOCKING, block);
            } finally {
                unlockIo(false);
            }
        } finally {
            unlockIo(true);
        }
    }

    @Override
    public Socket socket() {
        stateLock.lock();
        try {
            if (socket == null) {
                socket = newSocket();
            }
            return socket;
        } finally {
            stateLock.unlock();
        }
    }

    private Socket newSocket() {
        try {
            return new LeanSocket(this);
        } catch (SocketException e) {
            // Socket's constructor for an implementation of its own never fails.
            throw new InternalError(e);
        }
    }

    @Override
    protected void implCloseSelectableChannel() throws IOException {
        boolean connected;
        boolean blocking;
        boolean threadsWaiting;
        int linger;
        stateLock.lock();
        try {
            int s = state;
            connected = (s & PHASE) == CONNECTED;
            blocking = (s & BLOCKING) != 0;
            linger = descriptor.linger();
            if (socket != null) {
                // The adaptor reports the local address of a socket bound or connected before the close.
                descriptor.keepLocalAddress(bound(s));
            }
            state = (s & ~PHASE) | CLOSING;
            threadsWaiting = readerThread != null || writerThread != null;
            if (threadsWaiting) {
                // The shutdown makes the socket ready for every waiter: it ends a platform
                // thread's poll(2) and fires a virtual thread's registration with the poller,
                // whose thread unparks it holding no lock (see VirtualThreadPoller).
                Sockets.shutdown(fd, Sockets.SHUT_RDWR);
            }
        } finally {
            stateLock.unlock();
        }
        // In blocking mode a thread uses the descriptor only while it is the reader or writer
        // thread, as in the JDK's channel, so the close waits for no I/O lock there: an interrupt
        // runs it holding locks (see the class comment) that a thread holding an I/O lock may be
        // about to take. The last such thread left under stateLock, so its fields are seen.
        if (!threadsWaiting && !blocking) {
            // A thread in a non-blocking operation, or about to find the channel closed, leaves soon.
            lockIo(true);
            unlockIo(true);
            lockIo(false);
            unlockIo(false);
        }
        boolean outOfKernels = !threadsWaiting && closesCleanlyAtOnce(connected, linger)
                && descriptor.leaveKernelsNow();
        stateLock.lock();
        try {
            if ((state & PHASE) == CLOSING && !tryClose(outOfKernels) && connected && isRegistered()) {
                shutdownOutputUntilKilled();
            }
        } finally {
            stateLock.unlock();
        }
    }

    /**
     * Whether closing the descriptor now ends the connection as the JDK's deferred close does:
     * nothing unread (else the close would reset the connection, where the JDK's peer reads the
     * end of the stream first, and may lose the last bytes written), and no SO_LINGER to wait
     * for. After the I/O locks were taken, or in blocking mode with no thread in an operation,
     * so that their fields are seen.
     */
    private boolean closesCleanlyAtOnce(boolean connected, int linger) {
        return (!connected || inputEnded || (state & RESET) != 0) && linger <= 0;
    }

    /**
     * Holding stateLock, closed but still in a selector's kernel set: as the JDK does, the peer
     * reads end of stream now rather than when the selectors let the descriptor go; and SO_LINGER is turned off
     * so that the deferred close does not wait. With SO_LINGER at 0 the close is meant to reset
     * the connection, so the output is left alone.
     */
    private void shutdownOutputUntilKilled() {
        int linger = descriptor.linger();
        try {
            if (linger > 0) {
                Sockets.setLinger(fd, -1);
            }
            if (linger != 0 && (state & OUTPUT_SHUT) == 0) {
                Sockets.shutdown(fd, Sockets.SHUT_WR);
            }
        } catch (IOException e) {
            // The channel is closed for its users already; the close itself is still to come.
        }
    }

    @Override
    public void registered(Registration registration) {
        descriptor.registered(registration);
    }

    @Override
    public void deregistered(Registration registration) {
        descriptor.deregistered(registration);
    }

    @Override
    public void kill() {
        if ((state & PHASE) != CLOSING) {
            // The close has not begun, or has ended: the closing thread closes the descriptor.
            return;
        }
        // A thread that takes an I/O lock from now on finds the channel closing and leaves the
        // descriptor alone; threads still in an operation hold them, and the last of those may
        // close the descriptor itself. Waited for before CLOSING, a read could start after the
        // wait, see the channel connected, and meet the descriptor closed under it.
        lockIo(true);
        unlockIo(true);
        lockIo(false);
        unlockIo(false);
        stateLock.lock();
        try {
            if ((state & PHASE) == CLOSING) {
                tryFinishClose();
            }
        } finally {
            stateLock.unlock();
        }
    }

    /**
     * Holding stateLock, closing: closes the descriptor unless a thread or a selector still has
     * it; with {@code outOfKernels}, the selectors that still have the channel registered no longer
     * have the descriptor.
     */
    private boolean tryClose(boolean outOfKernels) throws IOException {
        if (readerThread == null && writerThread == null && (outOfKernels || !isRegistered())) {
            state = (state & ~PHASE) | CLOSED;
            // No thread transfers any more: the buffers it last used are let go.
            lastReadBuffer = null;
            lastWrittenBuffer = null;
            Sockets.close(fd);
            return true;
        }
        return false;
    }

    /** tryClose for a deferred close, which has nobody to report a failure to, as in the JDK. */
    private void tryFinishClose() {
        try {
            tryClose(false);
        } catch (IOException e) {
            // The descriptor is released all the same: close(2) on Linux frees it whatever it returns.
        }
    }

    // -- State checks

    /** NotYetConnectedException before the connection, ClosedChannelException once closing. */
    private static void checkOpenAndConnected(int s) throws ClosedChannelException {
        int phase = s & PHASE;
        if (phase < CONNECTED) {
            throw new NotYetConnectedException();
        }
        if (phase > CONNECTED) {
            throw new ClosedChannelException();
        }
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder(SocketChannel.class.getName()).append('[');
        // Open under stateLock, the descriptor stays open until the lock is let go.
        stateLock.lock();
        try {
            if (!isOpen()) {
                sb.append("closed");
            } else {
                int s = state;
                switch (s & PHASE) {
                    case UNCONNECTED:
                        sb.append("unconnected");
                        break;
                    case PENDING:
                        sb.append("connection-pending");
                        break;
                    case CONNECTED:
                        sb.append("connected");
                        if ((s & INPUT_SHUT) != 0) {
                            sb.append(" ishut");
                        }
                        if ((s & OUTPUT_SHUT) != 0) {
                            sb.append(" oshut");
                        }
                        break;
                    default:
                        break;
                }
                appendAddresses(sb);
            }
        } finally {
            stateLock.unlock();
        }
        return sb.append(']').toString();
    }

    /** Holding stateLock, open; an address the kernel cannot give is left out. */
    private void appendAddresses(StringBuilder sb) {
        try {
            InetSocketAddress local = knownLocalAddress();
            if (local != null) {
                sb.append(" local=").append(local);
            }
        } catch (IOException e) {
            // Left out, as the comment says: toString reports, it does not fail.
        }
        if (remoteAddress != null) {
            sb.append(" remote=").append(remoteAddress);
        }
    }

    /**
     * One attempt of a read or a write: bytes moved, 0 when there is no room or nothing left, or
     * Sockets.EOF / UNAVAILABLE.
     */
    @FunctionalInterface
    private interface Transfer {
        long attempt() throws IOException;
    }

    /** A step of connecting, run by {@link #connecting}: whether the channel is connected. */
    @FunctionalInterface
    private interface ConnectStep {
        boolean run() throws IOException;
    }

    /**
     * An off-heap array of {@code struct iovec} (base, then length, 8 bytes each) for readv and
     * writev, kept by a channel per direction and used under that direction's lock. It holds the
     * buffers its entries point into from {@link #fill} to {@link #release}: the caller's array
     * may meanwhile be given other buffers, and a buffer no longer reachable may have its memory
     * freed under the kernel.
     */
    private static final class IoVectors {

        private final ByteBuffer array;
        private final long address;
        private final int capacity;
        private final ByteBuffer[] held;
        /** Each held buffer's position when its entry was made, which the transfer moves on from. */
        private final int[] positions;
        private int count;

        private IoVectors(int capacity) {
            this.capacity = capacity;
            this.array = OffHeap.allocate(capacity * Sockets.IOVEC_SIZE);
            this.address = OffHeap.address(array);
            this.held = new ByteBuffer[capacity];
            this.positions = new int[capacity];
        }

        /** {@code current} if it has room for {@code count} entries (or IOV_MAX), else a larger one. */
        static IoVectors atLeast(IoVectors current, int count) {
            int wanted = Math.min(count, Sockets.IOV_MAX);
            if (current != null && current.capacity >= wanted) {
                return current;
            }
            int grown = current == null ? FIRST_IOVECS : current.capacity * 2;
            return new IoVectors(Math.min(Math.max(wanted, grown), Sockets.IOV_MAX));
        }

        long address() {
            return address;
        }

        /**
         * One entry per buffer with bytes remaining, up to the capacity: how many; or -1 when one
         * of them cannot be an entry: a memory segment's view (no address), or, when the caller's
         * array changed since its checks, a heap or read-only one. The caller releases what it
         * holds, whatever the outcome.
         */
        int fill(ByteBuffer[] buffers, int offset, int length, boolean reading) {
            for (int i = offset; i < offset + length && count < capacity; i++) {
                ByteBuffer buffer = buffers[i];
                int position = buffer.position();
                int remaining = buffer.limit() - position;
                if (remaining > 0) {
                    long address = buffer.isDirect() && !(reading && buffer.isReadOnly())
                            ? OffHeap.address(buffer) : 0;
                    if (address == 0) {
                        return -1;
                    }
                    int entry = count * Sockets.IOVEC_SIZE;
                    array.putLong(entry, address + position);
                    array.putLong(entry + Long.BYTES, remaining);
                    positions[count] = position;
                    held[count++] = buffer;
                }
            }
            return count;
        }

        /**
         * Moves the held buffers' positions past the {@code n} bytes a readv or writev moved, each
         * from where its entry began, as the JDK's channels do: a buffer given twice ends where
         * one of its entries ended.
         */
        void advance(long n) {
            long left = n;
            for (int i = 0; i < count && left > 0; i++) {
                int step = (int) Math.min(array.getLong(i * Sockets.IOVEC_SIZE + Long.BYTES), left);
                held[i].position(positions[i] + step);
                left -= step;
            }
        }

        /** Lets the buffers go once the kernel is done with their memory. */
        void release() {
            Arrays.fill(held, 0, count, null);
            count = 0;
        }
    }
}
