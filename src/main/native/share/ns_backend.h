/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

/*
 * A backend: one kernel readiness mechanism behind one table of operations, which the JNI face
 * (backend_jni.c) and the C tests call and nothing else does.
 *
 *   open     creates the kernel object, a wakeup the backend can poll, and room for `capacity`
 *            ready records per poll, as `options` ask (NS_OPEN_*; a backend ignores those it
 *            has no use for). On failure nothing is left behind.
 *   apply    applies `count` changes in order (ns_records.h), writing each change's errno into
 *            change->error; a change the kernel refuses leaves its registration as it was.
 *            ADD and MOD both mean "watch these events" and DEL of an absent or closed fd
 *            succeeds: the batch and the kernel may disagree about history, never about intent.
 *            ADD or MOD to no events stops reports: the backend may keep the fd registered
 *            (parked), but reports it at most once (an error or hang-up), not at every poll.
 *            With `sync`, the kernel holds the changes on return; without it, a backend may keep
 *            them for the poll that follows on the same thread. Returns the system calls made,
 *            or -errno when the batch as a whole could not be applied.
 *   poll     waits up to timeout_ms (-1: forever, 0: not at all) and writes up to `capacity`
 *            ready records. A wakeup, when seen, is drained here and reported as a record with
 *            NS_WAKEUP_TOKEN. Returns the records written, with NS_POLLED_WITHOUT_SYSCALL set
 *            when no system call was made, or -EINTR when a signal ended the wait.
 *   wakeup   makes a poll in progress, or the next one, return with the wakeup record.
 *   close    releases the kernel object (every registration goes with it) and the backend.
 *
 * What a backend declares about itself: its name, whether it applies during a poll, what each
 * operation is called in an exception's message (`calls`), where an errno deserves words a user
 * can act on, `explain`, and, for a backend whose apply may go through an io_uring ring of its
 * own (epoll), `ring_status`: whether it does, for diagnostics.
 *
 * Threads: callers serialise apply against close and poll against close; apply may run while
 * another thread polls only if applies_during_poll; wakeup may be called from any thread
 * before close.
 *
 * Every operation returns 0 or a count on success and -errno on failure.
 */
#ifndef NS_BACKEND_H
#define NS_BACKEND_H

#include "ns_records.h"

/* open's options. */
#define NS_OPEN_WITHOUT_RING 1 /* apply without an io_uring ring (epoll: one epoll_ctl per change) */

/* ring_status when open was asked for no ring (NS_OPEN_WITHOUT_RING): not an errno, which is negative. */
#define NS_RING_OFF 1

/* What the JNI face reports for a backend without ring_status (no ring of its own): no errno either. */
#define NS_NO_RING (-0x7fffffff - 1)

/* The operations that can fail, indexing ns_backend_ops.calls. */
enum ns_backend_call { NS_CALL_OPEN, NS_CALL_APPLY, NS_CALL_POLL, NS_CALL_WAKEUP, NS_CALL_COUNT };

struct ns_backend_ops;

/* The first member of every backend's state. */
struct ns_backend {
    const struct ns_backend_ops *ops;
};

struct ns_backend_ops {
    const char *name;        /* as -Dnativeselector.backend names it, e.g. "epoll" */
    int applies_during_poll; /* whether apply may run while another thread is in poll */
    int (*open)(int capacity, int options, struct ns_backend **out);
    int (*apply)(struct ns_backend *b, struct ns_change *changes, int count, int sync);
    int (*poll)(struct ns_backend *b, struct ns_ready *ready, int capacity, int timeout_ms);
    int (*wakeup)(struct ns_backend *b);
    void (*close)(struct ns_backend *b);
    const char *calls[NS_CALL_COUNT]; /* each operation, as a failure's message names it */
    /* Better words for `err` of `call`, or NULL for calls[call]; NULL when a backend has none. */
    const char *(*explain)(enum ns_backend_call call, int err);
    /* 0 when apply goes through a ring, NS_RING_OFF, or the -errno setting one up failed with;
       NULL when the backend's apply has one way only. */
    int (*ring_status)(const struct ns_backend *b);
};

/* The backends this library was built with, NULL-terminated: each platform's backends.c. */
extern const struct ns_backend_ops *const ns_backends[];

/* A backend this build leaves out, and the words a user asking for it gets. */
struct ns_backend_absence {
    const char *name;
    const char *reason;
};

/* The backends this build leaves out, ended by a NULL name: each platform's backends.c. */
extern const struct ns_backend_absence ns_absent_backends[];

#endif
