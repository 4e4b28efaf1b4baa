/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

#include "uring_backend.h"
#include "uring_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>

#define SQ_ENTRIES 256
#define CQ_ENTRIES 4096
#define INITIAL_SLOTS 64

/* Linux 5.13 or later (IORING_FEAT_RSRC_TAGS is the mark of that release), timed waits,
   completions never dropped, and the poll opcodes (uring_backend.h). */
static const unsigned needed_opcodes[] = { IORING_OP_POLL_ADD, IORING_OP_POLL_REMOVE };
static const struct ring_needs needs = {
    .features = IORING_FEAT_NODROP | IORING_FEAT_EXT_ARG | IORING_FEAT_RSRC_TAGS,
    .opcodes = needed_opcodes,
    .opcode_count = sizeof(needed_opcodes) / sizeof(needed_opcodes[0]),
};

static struct ns_uring *ring_of(struct ns_backend *b)
{
    return (struct ns_uring *)b;
}

static void release(struct ns_uring *r)
{
    ring_unmap(&r->ring);
    /* close(2) of these private fds (here and in ring_close) leaves nothing to undo. */
    if (r->wakefd >= 0)
        close(r->wakefd);
    ring_close(&r->ring);
    pthread_mutex_destroy(&r->lock);
    free(r->regs);
    free(r->rearm);
    free(r->aside);
    free(r);
}

static int uring_open(int capacity, int options, struct ns_backend **out)
{
    (void)options; /* NS_OPEN_WITHOUT_RING is not for the backend that is a ring */
    if (capacity < 1)
        return -EINVAL;
    struct ns_uring *r = calloc(1, sizeof(*r));
    if (r == NULL)
        return -ENOMEM;
    r->base.ops = &ns_uring_ops;
    r->ring.fd = -1;
    r->wakefd = -1;
    pthread_mutex_init(&r->lock, NULL);
    int err = 0;
    r->slots = INITIAL_SLOTS;
    r->regs = calloc(r->slots, sizeof(*r->regs));
    r->rearm = calloc(r->slots, sizeof(*r->rearm));
    if (r->regs == NULL || r->rearm == NULL) {
        err = -ENOMEM;
        goto fail;
    }
    if ((err = ring_setup(&r->ring, SQ_ENTRIES, CQ_ENTRIES, &needs)) < 0)
        goto fail;
    r->wakefd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (r->wakefd < 0) {
        err = -errno;
        goto fail;
    }
    *out = &r->base;
    return 0;
fail:
    release(r);
    return err;
}

static int uring_apply(struct ns_backend *b, struct ns_change *changes, int count, int sync)
{
    struct ns_uring *r = ring_of(b);
    int calls = 0, err = 0;
    pthread_mutex_lock(&r->lock);
    for (int i = 0; i < count; i++) {
        int e = uring_apply_one(r, &changes[i], &calls);
        changes[i].error = -e;
        if (e == -EBUSY || e == -ENOMEM) {
            err = e;
            break;
        }
    }
    if (err == 0 && sync)
        err = uring_submit_and_await_removals(r, &calls);
    else
        ring_publish(&r->ring);
    pthread_mutex_unlock(&r->lock);
    return err < 0 ? err : calls;
}

static int uring_poll(struct ns_backend *b, struct ns_ready *ready, int capacity, int timeout_ms)
{
    struct ns_uring *r = ring_of(b);
    int calls = 0;
    int64_t deadline = timeout_ms > 0 ? now_ms() + timeout_ms : 0;
    pthread_mutex_lock(&r->lock);
    /* 0 is kept for "never reported" (keep_final). */
    if (++r->poll_calls == 0)
        r->poll_calls = 1;
    int n = uring_collect(r, ready, capacity, &calls);
    int overflow = ring_cq_overflow(&r->ring);
    if (n < 0 || (ring_unsubmitted(&r->ring) == 0 && !overflow && (n > 0 || timeout_ms == 0))) {
        pthread_mutex_unlock(&r->lock);
        return n < 0 ? n : n | (calls == 0 ? NS_POLLED_WITHOUT_SYSCALL : 0);
    }
    n = uring_wait_for_readiness(r, ready, capacity, n, timeout_ms, deadline, &calls);
    pthread_mutex_unlock(&r->lock);
    return n;
}

static int uring_wakeup(struct ns_backend *b)
{
    struct ns_uring *r = ring_of(b);
    uint64_t one = 1;
    if (write(r->wakefd, &one, sizeof(one)) < 0 && errno != EAGAIN)
        return -errno;
    return 0;
}

static void uring_close(struct ns_backend *b)
{
    struct ns_uring *r = ring_of(b);
    pthread_mutex_lock(&r->lock);
    uring_remove_every_poll(r);
    pthread_mutex_unlock(&r->lock);
    release(r);
}

/* Why io_uring could not start, or lost completions, in words a user can act on. */
static const char *uring_explain(enum ns_backend_call call, int err)
{
    if (call == NS_CALL_POLL && err == EBADR)
        return "io_uring: the kernel dropped completions";
    if (call != NS_CALL_OPEN)
        return NULL;
    switch (err) {
    case EPERM:
        return "io_uring is unavailable: io_uring_setup was refused (a seccomp profile, as container "
               "runtimes install by default, or sysctl kernel.io_uring_disabled)";
    case ENOSYS:
        return "io_uring is unavailable: this kernel has no io_uring_setup";
    case EINVAL:
    case EOPNOTSUPP:
        return "io_uring is unavailable: this kernel's io_uring lacks what the backend needs (Linux 5.13 or later)";
    case ENOMEM:
        return "io_uring ring could not be allocated: on Linux 5.13 or later (what this backend "
               "needs) memory, or its cgroup's limit, ran out; an older kernel counts rings against "
               "the locked-memory limit (ulimit -l), but this backend cannot run there";
    default:
        return NULL;
    }
}

const struct ns_backend_ops ns_uring_ops = {
    .name = "io_uring",
    .applies_during_poll = 1,
    .open = uring_open,
    .apply = uring_apply,
    .poll = uring_poll,
    .wakeup = uring_wakeup,
    .close = uring_close,
    .calls = { "io_uring backend: open", "io_uring: submitting registration changes", "io_uring_enter",
               "io_uring backend: wakeup" },
    .explain = uring_explain,
};
