/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.internal.lean;

import java.util.concurrent.locks.AbstractQueuedSynchronizer;
import java.util.concurrent.locks.Condition;

/**
 * A reentrant, non-fair lock that is its own synchronizer: what a {@code ReentrantLock} does, in
 * one object instead of two, for the locks a lean channel takes once per connection or per
 * accept rather than per request (a socket channel's state lock, a listening channel's locks).
 * Waiting threads park through the synchronizer, so a virtual thread waiting here holds no
 * monitor.
 */
final class ChannelLock extends AbstractQueuedSynchronizer {

    private static final long serialVersionUID = 1L;

    void lock() {
        acquire(1);
    }

    void unlock() {
        release(1);
    }

    /** A condition to wait on while holding this lock, which the wait lets go of. */
    Condition newCondition() {
        return new ConditionObject();
    }

    @Override
    protected boolean tryAcquire(int acquires) {
        Thread current = Thread.currentThread();
        int holds = getState();
        if (holds == 0) {
            if (compareAndSetState(0, acquires)) {
                setExclusiveOwnerThread(current);
                return true;
            }
            return false;
        }
        if (getExclusiveOwnerThread() != current) {
            return false;
        }
        if (holds + acquires < 0) {
            throw new Error("Maximum lock count exceeded");
        }
        setState(holds + acquires);
        return true;
    }

    @Override
    protected boolean tryRelease(int releases) {
        if (getExclusiveOwnerThread() != Thread.currentThread()) {
            throw new IllegalMonitorStateException();
        }
        int holds = getState() - releases;
        if (holds == 0) {
            setExclusiveOwnerThread(null);
        }
        setState(holds);
        return holds == 0;
    }

    @Override
    protected boolean isHeldExclusively() {
        return getExclusiveOwnerThread() == Thread.currentThread();
    }
}
