/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

#include "epoll_backend.h"
#include "uring_ring.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

/* The set of a chunk's fds, open addressing: a power of two, never more than half full. */
#define SEEN_SLOTS (2 * NS_EPOLL_RING_ENTRIES)

struct ns_epoll {
    struct ns_backend base;
    int epfd;
    int wakefd;
    int capacity;
    int ring_status;  /* 0: apply submits through `ring`; otherwise why there is none (ns_backend.h) */
    struct uring_ring ring;
    unsigned chunk;   /* stamps the `seen` slots of the chunk being built; the others are free */
    struct {
        int fd;
        unsigned chunk;
    } seen[SEEN_SLOTS];
    /* Entry i's event: the kernel reads it in the io_uring_enter that submits the entry. */
    struct epoll_event ctl_events[NS_EPOLL_RING_ENTRIES];
    struct epoll_event events[];
};

static struct ns_epoll *epoll_of(struct ns_backend *b)
{
    return (struct ns_epoll *)b;
}

/* IORING_REGISTER_PROBE came with IORING_OP_EPOLL_CTL (Linux 5.6): older kernels have no ring. */
static const unsigned ring_opcodes[] = { IORING_OP_EPOLL_CTL };
static const struct ring_needs ring_needs = {
    .opcodes = ring_opcodes,
    .opcode_count = sizeof(ring_opcodes) / sizeof(ring_opcodes[0]),
};

static void release_ring(struct ns_epoll *ep)
{
    ring_unmap(&ep->ring);
    ring_close(&ep->ring);
}

/* Whatever stands in the way (seccomp, the sysctl, an old kernel, RLIMIT_MEMLOCK), the backend
   works without a ring, as it did before it had one. */
static void open_ring(struct ns_epoll *ep)
{
    ep->ring_status = ring_setup(&ep->ring, NS_EPOLL_RING_ENTRIES, 2 * NS_EPOLL_RING_ENTRIES, &ring_needs);
    if (ep->ring_status < 0)
        release_ring(ep);
}

static int epoll_open(int capacity, int options, struct ns_backend **out)
{
    if (capacity < 1)
        return -EINVAL;
    /* Zeroed: ring_setup records only what it sets up, and `seen` is free at chunk 0. */
    struct ns_epoll *ep = calloc(1, sizeof(*ep) + (size_t)capacity * sizeof(struct epoll_event));
    if (ep == NULL)
        return -ENOMEM;
    ep->base.ops = &ns_epoll_ops;
    ep->capacity = capacity;
    ep->epfd = epoll_create1(EPOLL_CLOEXEC);
    if (ep->epfd < 0) {
        int err = errno;
        free(ep);
        return -err;
    }
    ep->wakefd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (ep->wakefd < 0) {
        int err = errno;
        close(ep->epfd);
        free(ep);
        return -err;
    }
    struct epoll_event ev = { .events = EPOLLIN, .data.u64 = NS_WAKEUP_TOKEN };
    if (epoll_ctl(ep->epfd, EPOLL_CTL_ADD, ep->wakefd, &ev) < 0) {
        int err = errno;
        close(ep->wakefd);
        close(ep->epfd);
        free(ep);
        return -err;
    }
    if (options & NS_OPEN_WITHOUT_RING)
        ep->ring_status = NS_RING_OFF;
    else
        open_ring(ep);
    *out = &ep->base;
    return 0;
}

static int epoll_ring_status(const struct ns_backend *b)
{
    return ((const struct ns_epoll *)b)->ring_status;
}

/* The epoll_ctl op of a change, or -1 for an op no call can carry out. */
static int epoll_op(int32_t op)
{
    switch (op) {
    case NS_OP_ADD:
        return EPOLL_CTL_ADD;
    case NS_OP_MOD:
        return EPOLL_CTL_MOD;
    case NS_OP_DEL:
        return EPOLL_CTL_DEL;
    default:
        return -1;
    }
}

/*
 * What the kernel is asked to watch for a change. No events parks the fd: it stays in the set,
 * edge-triggered, so the error or hang-up that epoll reports whatever the mask wakes one wait,
 * not every wait; a later MOD (half the cost of the ADD after a DEL) watches it again, and the
 * readiness it finds then is reported at once.
 */
static struct epoll_event event_of(const struct ns_change *c)
{
    return (struct epoll_event){ .events = c->events != 0 ? c->events : EPOLLET, .data.u64 = c->token };
}

static int ctl(struct ns_epoll *ep, int op, const struct ns_change *c)
{
    struct epoll_event ev = event_of(c);
    return epoll_ctl(ep->epfd, op, c->fd, &ev) < 0 ? errno : 0;
}

/*
 * What follows a change's first call, epoll_ctl or its ring entry, whose errno is in c->error:
 * ADD of an fd already present is redone as MOD and MOD of an absent fd as ADD (the kernel and
 * the batch disagree about history, never about intent); DEL of an absent or closed fd succeeds.
 * Returns the epoll_ctl calls it made.
 */
static int settle(struct ns_epoll *ep, struct ns_change *c)
{
    switch (c->op) {
    case NS_OP_ADD:
        if (c->error != EEXIST)
            return 0;
        c->error = ctl(ep, EPOLL_CTL_MOD, c);
        return 1;
    case NS_OP_MOD:
        if (c->error != ENOENT)
            return 0;
        c->error = ctl(ep, EPOLL_CTL_ADD, c);
        return 1;
    default:
        /* Absent (never added, or the file was closed and left the set) is the goal. */
        if (c->error == ENOENT || c->error == EBADF)
            c->error = 0;
        return 0;
    }
}

/* Applies one change with epoll_ctl; returns the calls it took. */
static int apply_one(struct ns_epoll *ep, struct ns_change *c)
{
    int op = epoll_op(c->op);
    if (op < 0) {
        c->error = EINVAL;
        return 0;
    }
    c->error = ctl(ep, op, c);
    return 1 + settle(ep, c);
}

static int apply_each(struct ns_epoll *ep, struct ns_change *changes, int count)
{
    int calls = 0;
    for (int i = 0; i < count; i++)
        calls += apply_one(ep, &changes[i]);
    return calls;
}

/* Empties the set of the chunk's fds: slots stamped with another chunk are free. */
static void seen_clear(struct ns_epoll *ep)
{
    if (++ep->chunk == 0) { /* wrapped: slots stamped 2^32 chunks ago would look current */
        memset(ep->seen, 0, sizeof(ep->seen));
        ep->chunk = 1;
    }
}

/* Adds fd to the chunk's set; returns 0 when it is there already. */
static int seen_add(struct ns_epoll *ep, int fd)
{
    unsigned i = ((unsigned)fd * 2654435761u) & (SEEN_SLOTS - 1); /* Knuth's multiplicative hash */
    while (ep->seen[i].chunk == ep->chunk) {
        if (ep->seen[i].fd == fd)
            return 0;
        i = (i + 1) & (SEEN_SLOTS - 1);
    }
    ep->seen[i].fd = fd;
    ep->seen[i].chunk = ep->chunk;
    return 1;
}

/*
 * Where the chunk that starts at changes[start] ends: before the change that would be its entry
 * number NS_EPOLL_RING_ENTRIES + 1, or its second change of one fd, else at count. The kernel may
 * hand an entry to a worker thread (when the epoll's mutex is busy, say) and run the next ones
 * first; with every fd once in a chunk, and a chunk's completions all in before the next chunk
 * goes, no two changes of one fd are reordered. *entries: the changes that take an entry.
 */
static int chunk_end(struct ns_epoll *ep, const struct ns_change *changes, int start, int count,
                     int *entries)
{
    int n = 0, i;
    seen_clear(ep);
    for (i = start; i < count; i++) {
        if (epoll_op(changes[i].op) < 0)
            continue;
        if (n == NS_EPOLL_RING_ENTRIES || !seen_add(ep, changes[i].fd))
            break;
        n++;
    }
    *entries = n;
    return i;
}

/* One EPOLL_CTL entry per change with a known op, user_data its index; the others get EINVAL. */
static void fill(struct ns_epoll *ep, struct ns_change *changes, int n)
{
    for (int i = 0, k = 0; i < n; i++) {
        struct ns_change *c = &changes[i];
        int op = epoll_op(c->op);
        if (op < 0) {
            c->error = EINVAL;
            continue;
        }
        struct epoll_event *ev = &ep->ctl_events[k++];
        *ev = event_of(c);
        /* Never NULL: the ring is empty between chunks, and a chunk fits it (chunk_end). */
        struct io_uring_sqe *sqe = ring_get_sqe(&ep->ring);
        sqe->opcode = IORING_OP_EPOLL_CTL;
        sqe->fd = ep->epfd;
        sqe->off = (uint32_t)c->fd;
        sqe->len = (uint32_t)op;
        sqe->addr = (uint64_t)(uintptr_t)ev;
        sqe->user_data = (uint64_t)i;
    }
}

/* Reads the completions in the ring into their changes' errors; returns how many. */
static unsigned reap(struct ns_epoll *ep, struct ns_change *changes)
{
    struct uring_ring *ring = &ep->ring;
    unsigned head = ring_cq_head(ring), tail = ring_cq_tail(ring);
    for (unsigned i = head; i != tail; i++) {
        const struct io_uring_cqe *cqe = ring_cqe(ring, i);
        changes[cqe->user_data].error = -cqe->res;
    }
    ring_cq_advance(ring, tail);
    return tail - head;
}

/*
 * Submits the `entries` entries filled in and waits for the completion of each one the kernel
 * takes, reading it into its change; *taken is how many it took, in fill order. EINTR enters
 * again. A refusal (EBUSY, EAGAIN, ENOMEM: nothing taken) or a submission cut short ends the
 * submitting: what was not taken is taken back for epoll_ctl. An entry the kernel took always
 * completes, so the waiting goes on until it has. Returns the io_uring_enter calls made.
 */
static int submit_and_reap(struct ns_epoll *ep, struct ns_change *changes, int entries, int *taken)
{
    struct uring_ring *ring = &ep->ring;
    unsigned reaped = 0;
    int calls = 0, submitting = 1;
    ring_publish(ring);
    for (;;) {
        unsigned untaken = ring_unsubmitted(ring);
        unsigned to_submit = submitting ? untaken : 0;
        /* The completion ring is empty here: every completion so far has been reaped. */
        unsigned awaited = (unsigned)entries - untaken - reaped + to_submit;
        if (awaited == 0)
            break;
        int rc = ring_enter(ring, to_submit, awaited, IORING_ENTER_GETEVENTS, NULL);
        calls++;
        reaped += reap(ep, changes);
        if (to_submit > 0 && rc != -EINTR && (rc < 0 || (unsigned)rc < to_submit))
            submitting = 0;
    }
    *taken = entries - (int)ring_take_back(ring);
    return calls;
}

/*
 * Whether a ring entry's errno is epoll's answer. ECANCELED (io-wq could not start a worker to
 * run the entry: a pids limit reached), EINTR and EAGAIN are io_uring's, and say nothing of the
 * change, which epoll_ctl then makes.
 */
static int answered_by_epoll(int error)
{
    return error != ECANCELED && error != EINTR && error != EAGAIN;
}

/*
 * Applies changes[0..n), a chunk of `entries` changes with a known op, by one io_uring_enter (more
 * when it is interrupted or cut short), then settles each change as epoll_ctl would have: its
 * chunk holds no other change of its fd, so that cannot reorder anything. Changes the kernel did
 * not take, or did not give to epoll, go by epoll_ctl. Returns the system calls made.
 */
static int apply_chunk(struct ns_epoll *ep, struct ns_change *changes, int n, int entries)
{
    int taken;
    fill(ep, changes, n);
    int calls = submit_and_reap(ep, changes, entries, &taken);
    for (int i = 0, k = 0; i < n; i++) {
        if (epoll_op(changes[i].op) < 0)
            continue;
        int answered = k++ < taken && answered_by_epoll(changes[i].error);
        calls += answered ? settle(ep, &changes[i]) : apply_one(ep, &changes[i]);
    }
    return calls;
}

/* Every apply is synchronous: epoll_ctl takes effect at once, and a chunk's completions are all
   in before apply returns. */
static int epoll_apply(struct ns_backend *b, struct ns_change *changes, int count, int sync)
{
    (void)sync;
    struct ns_epoll *ep = epoll_of(b);
    if (ep->ring_status != 0 || count < NS_EPOLL_RING_MIN_CHANGES)
        return apply_each(ep, changes, count);
    int calls = 0;
    for (int start = 0; start < count;) {
        int entries;
        int end = chunk_end(ep, changes, start, count, &entries);
        if (entries < NS_EPOLL_RING_MIN_CHANGES)
            calls += apply_each(ep, changes + start, end - start);
        else
            calls += apply_chunk(ep, changes + start, end - start, entries);
        start = end;
    }
    return calls;
}

static int drain_wakeup(struct ns_epoll *ep)
{
    uint64_t value;
    /* EAGAIN: already empty; the caller resets its latch either way. */
    if (read(ep->wakefd, &value, sizeof(value)) < 0 && errno != EAGAIN)
        return -errno;
    return 0;
}

static int epoll_poll(struct ns_backend *b, struct ns_ready *ready, int capacity, int timeout_ms)
{
    struct ns_epoll *ep = epoll_of(b);
    int max = capacity < ep->capacity ? capacity : ep->capacity;
    int n = epoll_wait(ep->epfd, ep->events, max, timeout_ms);
    if (n < 0)
        return -errno;
    for (int i = 0; i < n; i++) {
        ready[i].token = ep->events[i].data.u64;
        ready[i].events = ep->events[i].events & (NS_IN | NS_OUT | NS_ERR | NS_HUP);
        ready[i].reserved = 0;
        if (ready[i].token == NS_WAKEUP_TOKEN) {
            int err = drain_wakeup(ep);
            if (err < 0)
                return err;
        }
    }
    return n;
}

static int epoll_wakeup(struct ns_backend *b)
{
    struct ns_epoll *ep = epoll_of(b);
    uint64_t one = 1;
    if (write(ep->wakefd, &one, sizeof(one)) < 0 && errno != EAGAIN)
        return -errno;
    return 0;
}

static void epoll_close(struct ns_backend *b)
{
    struct ns_epoll *ep = epoll_of(b);
    if (ep->ring_status == 0)
        release_ring(ep);
    /* close(2) errors on these private fds leave nothing to undo: both numbers are released. */
    close(ep->wakefd);
    close(ep->epfd);
    free(ep);
}

const struct ns_backend_ops ns_epoll_ops = {
    .name = "epoll",
    .applies_during_poll = 1,
    .open = epoll_open,
    .apply = epoll_apply,
    .poll = epoll_poll,
    .wakeup = epoll_wakeup,
    .close = epoll_close,
    .calls = { "epoll backend: open", "epoll_ctl", "epoll_wait", "epoll backend: wakeup" },
    .ring_status = epoll_ring_status,
};
