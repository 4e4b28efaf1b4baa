/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

/*
 * mechanisms: which io_uring readiness mechanism should a level-triggered java.nio Selector use?
 *
 * The same tiny "selector" (queue changes, apply them as one batch, wait, report ready
 * registrations) is built four times:
 *
 *   M1 epoll        epoll_ctl per change, level-triggered epoll_wait. The baseline, and what
 *                   linux/epoll_backend.c does today.
 *   M2 POLL_ADD     one one-shot IORING_OP_POLL_ADD per registration. A poll that completed is
 *                   armed again at the next wait if the registration is still there, so a
 *                   socket that stays readable is reported by every wait (level-triggered).
 *                   Changes are POLL_ADD, POLL_REMOVE (interest 0) and POLL_REMOVE with
 *                   IORING_POLL_UPDATE_EVENTS (another non-zero interest). One io_uring_enter
 *                   submits everything pending and waits.
 *   M3 EPOLL_CTL    a batch of changes is one io_uring_enter of IORING_OP_EPOLL_CTL SQEs that
 *                   waits for their completions; readiness is a plain epoll_wait.
 *   M4 EPOLL_WAIT   M3, except that the wait is an IORING_OP_EPOLL_WAIT SQE submitted in the
 *                   same io_uring_enter as the EPOLL_CTL SQEs still pending at select time
 *                   (those carry IOSQE_CQE_SKIP_SUCCESS: only failures complete).
 *
 * A change flushed "at once" (the batch threshold) runs each mechanism's flush; a change left
 * for the next select runs that mechanism's select (rows marked "+ selectNow").
 * Interest 0 means "removed from the kernel", as the Java side's ChangeQueue does (OP_DEL).
 *
 * No liburing: raw io_uring_setup/enter/register and <linux/io_uring.h>. Exit status: 0 done,
 * 1 a mechanism broke the selector contract, 2 a system call failed, 3 the kernel lacks
 * something required.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <linux/io_uring.h>

/*
 * Newer than the Linux 6.1 UAPI header this is built against. In include/uapi/linux/io_uring.h
 * (Linux 6.15 and later) the opcode enum runs ... IORING_OP_LISTEN (57), IORING_OP_RECV_ZC
 * (58), IORING_OP_EPOLL_WAIT (59). Its SQE: fd = the epoll fd, addr = struct epoll_event *,
 * len = maxevents, everything else 0; res = the number of events. It is one-shot and has no
 * timeout of its own: an empty epoll set arms io_uring's internal poll on the epoll file.
 * The run-time probe (IORING_REGISTER_PROBE) decides whether M4 runs at all.
 */
#define OP_EPOLL_WAIT 59

#define MAX_REPS 15
#define BATCH 64            /* nativeselector.batchThreshold's default */
#define SQ_ENTRIES 128
#define CQ_ENTRIES 16384
#define MAX_EVENTS 1024     /* the ready array of one select */

/* user_data tags. A POLL_ADD's user_data is (generation << 32) | slot, generation < 2^29. */
#define UD_REMOVE (1ULL << 63)   /* POLL_REMOVE or POLL_REMOVE + IORING_POLL_UPDATE_EVENTS */
#define UD_CTL (1ULL << 62)      /* EPOLL_CTL */
#define UD_EWAIT (1ULL << 61)    /* EPOLL_WAIT */
#define UD_CANCEL (1ULL << 60)   /* ASYNC_CANCEL at close */
#define UD_SLOT(ud) ((int)((ud) & 0x7fffffffu))

/* ------------------------------------------------------------------------------------------ */
/* errors and time */

static void die(int code, const char *fmt, ...) __attribute__((noreturn, format(printf, 2, 3)));
static void die(int code, const char *fmt, ...)
{
    va_list ap;
    fflush(stdout);
    fputs("mechanisms: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(code);
}

#define die_sys(what, ...) die(2, what ": %s", ##__VA_ARGS__, strerror(errno))

static uint64_t now_ns(void)
{
    struct timespec t;
    if (clock_gettime(CLOCK_MONOTONIC, &t) < 0)
        die_sys("clock_gettime");
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (p == NULL)
        die(2, "out of memory (%zu x %zu bytes)", n, size);
    return p;
}

/* ------------------------------------------------------------------------------------------ */
/* a raw io_uring */

struct ring {
    int fd;
    unsigned sq_entries, sq_mask, cq_mask;
    unsigned *sq_head, *sq_tail, *sq_flags;
    unsigned *cq_head, *cq_tail;
    struct io_uring_sqe *sqes;
    struct io_uring_cqe *cqes;
    void *map;
    size_t map_len, sqes_len;
    unsigned tail;          /* SQEs written; published to *sq_tail by ring_enter */
};

static unsigned ring_setup_flags;   /* -D adds SINGLE_ISSUER | DEFER_TASKRUN */

static void ring_open(struct ring *r)
{
    struct io_uring_params p;
    memset(&p, 0, sizeof(p));
    p.flags = IORING_SETUP_CQSIZE | IORING_SETUP_SUBMIT_ALL | ring_setup_flags;
    p.cq_entries = CQ_ENTRIES;
    long fd = syscall(__NR_io_uring_setup, SQ_ENTRIES, &p);
    if (fd < 0) {
        if (errno == ENOSYS || errno == EPERM)
            die(3, "io_uring_setup: %s (io_uring disabled? see /proc/sys/kernel/io_uring_disabled)",
                strerror(errno));
        die_sys("io_uring_setup(%d entries, flags %#x)", SQ_ENTRIES, p.flags);
    }
    const unsigned need = IORING_FEAT_SINGLE_MMAP | IORING_FEAT_NODROP | IORING_FEAT_EXT_ARG |
                          IORING_FEAT_CQE_SKIP | IORING_FEAT_POLL_32BITS;
    if ((p.features & need) != need)
        die(3, "io_uring features %#x lack some of %#x", p.features, need);
    memset(r, 0, sizeof(*r));
    r->fd = (int)fd;
    size_t sq_len = p.sq_off.array + p.sq_entries * sizeof(unsigned);
    size_t cq_len = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
    r->map_len = sq_len > cq_len ? sq_len : cq_len;
    r->map = mmap(NULL, r->map_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r->fd,
                  IORING_OFF_SQ_RING);
    if (r->map == MAP_FAILED)
        die_sys("mmap(io_uring rings, %zu bytes)", r->map_len);
    r->sqes_len = p.sq_entries * sizeof(struct io_uring_sqe);
    r->sqes = mmap(NULL, r->sqes_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r->fd,
                   IORING_OFF_SQES);
    if (r->sqes == MAP_FAILED)
        die_sys("mmap(io_uring SQEs, %zu bytes)", r->sqes_len);
    char *m = r->map;
    r->sq_head = (unsigned *)(m + p.sq_off.head);
    r->sq_tail = (unsigned *)(m + p.sq_off.tail);
    r->sq_flags = (unsigned *)(m + p.sq_off.flags);
    r->sq_mask = *(unsigned *)(m + p.sq_off.ring_mask);
    r->sq_entries = p.sq_entries;
    unsigned *array = (unsigned *)(m + p.sq_off.array);
    for (unsigned i = 0; i < p.sq_entries; i++)
        array[i] = i;   /* SQ slot i holds SQE i, for good */
    r->cq_head = (unsigned *)(m + p.cq_off.head);
    r->cq_tail = (unsigned *)(m + p.cq_off.tail);
    r->cq_mask = *(unsigned *)(m + p.cq_off.ring_mask);
    r->cqes = (struct io_uring_cqe *)(m + p.cq_off.cqes);
    r->tail = *r->sq_tail;
}

static void ring_close(struct ring *r)
{
    if (munmap(r->sqes, r->sqes_len) < 0 || munmap(r->map, r->map_len) < 0)
        die_sys("munmap(io_uring)");
    if (close(r->fd) < 0)
        die_sys("close(io_uring fd)");
}

static unsigned ring_unsubmitted(const struct ring *r)
{
    return r->tail - __atomic_load_n(r->sq_head, __ATOMIC_ACQUIRE);
}

/*
 * Submits every SQE written so far and, with IORING_ENTER_GETEVENTS, waits for min_complete
 * CQEs; ts_ns >= 0 bounds the wait (IORING_ENTER_EXT_ARG). Returns 0, -ETIME or -EINTR.
 */
static int ring_enter(struct ring *r, unsigned min_complete, unsigned flags, long long ts_ns)
{
    __atomic_store_n(r->sq_tail, r->tail, __ATOMIC_RELEASE);
    unsigned n = ring_unsubmitted(r);
    struct __kernel_timespec ts;
    struct io_uring_getevents_arg arg;
    const void *argp = NULL;
    size_t argsz = 0;
    if (ts_ns >= 0) {
        ts.tv_sec = ts_ns / 1000000000;
        ts.tv_nsec = ts_ns % 1000000000;
        memset(&arg, 0, sizeof(arg));
        arg.sigmask_sz = _NSIG / 8;
        arg.ts = (uint64_t)(uintptr_t)&ts;
        argp = &arg;
        argsz = sizeof(arg);
        flags |= IORING_ENTER_EXT_ARG;
    }
    long ret = syscall(__NR_io_uring_enter, r->fd, n, min_complete, flags, argp, argsz);
    int rc = 0;
    if (ret < 0) {
        rc = -errno;
        if (rc != -ETIME && rc != -EINTR)
            die(2, "io_uring_enter(to_submit %u, min_complete %u, flags %#x): %s", n, min_complete,
                flags, strerror(-rc));
    } else if ((unsigned long)ret != n) {
        die(2, "io_uring_enter submitted %ld of %u SQEs", ret, n);
    }
    if (ring_unsubmitted(r) != 0)
        die(2, "io_uring_enter left %u SQEs unconsumed", ring_unsubmitted(r));
    return rc;
}

static struct io_uring_sqe *ring_sqe(struct ring *r)
{
    if (r->tail - __atomic_load_n(r->sq_head, __ATOMIC_ACQUIRE) >= r->sq_entries)
        ring_enter(r, 0, 0, -1);    /* SQ full: submit what is there, wait for nothing */
    struct io_uring_sqe *sqe = &r->sqes[r->tail & r->sq_mask];
    memset(sqe, 0, sizeof(*sqe));
    r->tail++;
    return sqe;
}

static int probe_supports(const struct io_uring_probe *p, int op)
{
    return op <= p->last_op && op < p->ops_len && (p->ops[op].flags & IO_URING_OP_SUPPORTED);
}

/* ------------------------------------------------------------------------------------------ */
/* the selector, four ways */

enum mech { M_EPOLL, M_POLL, M_CTL, M_EWAIT, NMECH };
static const char *const mech_label[NMECH] = {"M1 epoll", "M2 POLL_ADD", "M3 EPOLL_CTL",
                                              "M4 EPOLL_WAIT"};
static int mech_ok[NMECH] = {1, 1, 1, 1};

struct sel {
    enum mech m;
    int nslots;
    const int *fds;
    uint32_t *reg;          /* interest the kernel has been asked for; 0 = not registered */
    int epfd;
    struct ring ring;
    int closing;
    /* queued changes */
    int *pend_slot;
    uint32_t *pend_ev;
    int npend, pend_cap;
    struct epoll_event *ctl_ev; /* M3/M4: read by the kernel when the SQE is submitted */
    long ctl_done;
    /* M2 */
    uint64_t *armed;        /* user_data of the poll in flight for this slot, 0 = none */
    uint32_t gen;
    int *rearm;             /* slots whose poll completed: armed again at the next select */
    uint8_t *on_rearm;
    int nrearm;
    long polls_inflight;    /* POLL_ADDs whose CQE has not been seen */
    long polls_armed;       /* of which still wanted */
    /* M4 */
    int ewait_armed;
    /* readiness reaped outside a select, reported by the next one */
    int *stash_slot;
    uint32_t *stash_ev;
    int nstash;
    /* results */
    struct epoll_event *evbuf;
    int *out_slot;
    uint32_t *out_ev;
    unsigned *out_mark;
    unsigned seq;
    int nout;
    /* what was seen */
    long late_cancels;      /* M2: flushes whose cancelled polls had not completed on return */
    long dropped_dereg;     /* readiness reaped for a slot deregistered since */
    long dropped_stale;     /* M2: readiness of a poll that had already been removed */
};

static struct sel *sel_open(enum mech m, int nslots, const int *fds, int pend_cap)
{
    struct sel *s = xcalloc(1, sizeof(*s));
    s->m = m;
    s->nslots = nslots;
    s->fds = fds;
    s->reg = xcalloc(nslots, sizeof(*s->reg));
    s->epfd = -1;
    if (m != M_POLL) {
        s->epfd = epoll_create1(EPOLL_CLOEXEC);
        if (s->epfd < 0)
            die_sys("epoll_create1");
    }
    if (m != M_EPOLL)
        ring_open(&s->ring);
    s->pend_cap = pend_cap;
    s->pend_slot = xcalloc(pend_cap, sizeof(int));
    s->pend_ev = xcalloc(pend_cap, sizeof(uint32_t));
    s->ctl_ev = xcalloc(pend_cap, sizeof(struct epoll_event));
    s->armed = xcalloc(nslots, sizeof(uint64_t));
    s->rearm = xcalloc(nslots, sizeof(int));
    s->on_rearm = xcalloc(nslots, 1);
    s->stash_slot = xcalloc(nslots + MAX_EVENTS, sizeof(int));
    s->stash_ev = xcalloc(nslots + MAX_EVENTS, sizeof(uint32_t));
    s->evbuf = xcalloc(MAX_EVENTS, sizeof(struct epoll_event));
    s->out_slot = xcalloc(nslots + MAX_EVENTS, sizeof(int));
    s->out_ev = xcalloc(nslots + MAX_EVENTS, sizeof(uint32_t));
    s->out_mark = xcalloc(nslots, sizeof(unsigned));
    return s;
}

static void sel_queue(struct sel *s, int slot, uint32_t events)
{
    if (s->npend == s->pend_cap)
        die(2, "change queue full (%d)", s->pend_cap);
    s->pend_slot[s->npend] = slot;
    s->pend_ev[s->npend] = events;
    s->npend++;
}

static long m2_zombies(const struct sel *s)
{
    return s->polls_inflight - s->polls_armed;
}

/* A ready registration found by a reap: to this select's results, or kept for the next. */
static void emit(struct sel *s, int slot, uint32_t ev, int to_out)
{
    if (slot < 0 || slot >= s->nslots)
        die(1, "%s reported an unknown token %d", mech_label[s->m], slot);
    if (s->reg[slot] == 0) {
        s->dropped_dereg++;     /* computed before a deregistration that has been applied since */
        return;
    }
    if (!to_out) {
        s->stash_slot[s->nstash] = slot;
        s->stash_ev[s->nstash] = ev;
        s->nstash++;
        return;
    }
    if (s->out_mark[slot] == s->seq)
        return;
    s->out_mark[slot] = s->seq;
    s->out_slot[s->nout] = slot;
    s->out_ev[s->nout] = ev;
    s->nout++;
}

static void ring_reap(struct sel *s, int to_out)
{
    struct ring *r = &s->ring;
    unsigned head = *r->cq_head;
    unsigned tail = __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE);
    for (; head != tail; head++) {
        const struct io_uring_cqe *c = &r->cqes[head & r->cq_mask];
        uint64_t ud = c->user_data;
        int res = c->res;
        if (ud & UD_REMOVE) {
            /* success is skipped; ENOENT/EALREADY: the poll completed first, its CQE decides */
            if (res < 0 && res != -ENOENT && res != -EALREADY)
                die(2, "POLL_REMOVE for fd %d: %s", s->fds[UD_SLOT(ud)], strerror(-res));
        } else if (ud & UD_CTL) {
            if (res < 0)
                die(2, "EPOLL_CTL for fd %d: %s", s->fds[UD_SLOT(ud)], strerror(-res));
            s->ctl_done++;
        } else if (ud == UD_CANCEL) {
            /* 0, -ENOENT or -EALREADY: the EPOLL_WAIT's own CQE says when it is gone */
        } else if (ud == UD_EWAIT) {
            s->ewait_armed = 0;
            if (res == -ECANCELED && s->closing)
                continue;
            if (res < 0)
                die(2, "EPOLL_WAIT: %s", strerror(-res));
            if (res > MAX_EVENTS)
                die(1, "EPOLL_WAIT returned %d events for %d slots", res, MAX_EVENTS);
            for (int i = 0; i < res; i++)
                emit(s, (int)s->evbuf[i].data.u64, s->evbuf[i].events, to_out);
        } else {
            int slot = UD_SLOT(ud);
            if (c->flags & IORING_CQE_F_MORE)
                die(1, "a one-shot POLL_ADD completed with IORING_CQE_F_MORE");
            s->polls_inflight--;
            if (slot < s->nslots && s->armed[slot] == ud) {
                s->armed[slot] = 0;
                s->polls_armed--;
                if (res < 0)
                    die(2, "POLL_ADD for fd %d: %s", s->fds[slot], strerror(-res));
                if (!s->on_rearm[slot]) {
                    s->on_rearm[slot] = 1;
                    s->rearm[s->nrearm++] = slot;
                }
                emit(s, slot, (uint32_t)res, to_out);
            } else if (res < 0 && res != -ECANCELED) {
                die(2, "removed POLL_ADD for fd %d: %s", s->fds[slot], strerror(-res));
            } else if (res > 0) {
                s->dropped_stale++;
            }
        }
    }
    __atomic_store_n(r->cq_head, head, __ATOMIC_RELEASE);
    if (__atomic_load_n(r->sq_flags, __ATOMIC_ACQUIRE) & IORING_SQ_CQ_OVERFLOW)
        die(2, "completion queue overflowed");
}

static uint32_t next_gen(struct sel *s)
{
    s->gen = (s->gen + 1) & 0x1fffffff;
    if (s->gen == 0)
        s->gen = 1;
    return s->gen;
}

static void m2_arm(struct sel *s, int slot)
{
    uint64_t ud = ((uint64_t)next_gen(s) << 32) | (uint32_t)slot;
    struct io_uring_sqe *sqe = ring_sqe(&s->ring);
    sqe->opcode = IORING_OP_POLL_ADD;
    sqe->fd = s->fds[slot];
    sqe->poll32_events = s->reg[slot];
    sqe->len = 0;   /* one-shot */
    sqe->user_data = ud;
    s->armed[slot] = ud;
    s->polls_armed++;
    s->polls_inflight++;
}

/* Returns 1 if it queued a POLL_REMOVE (a cancelled poll will complete). */
static int m2_change(struct sel *s, int slot, uint32_t ev)
{
    uint32_t old = s->reg[slot];
    if (ev == old)
        return 0;
    s->reg[slot] = ev;
    if (s->armed[slot] && ev != 0) {
        struct io_uring_sqe *sqe = ring_sqe(&s->ring);
        sqe->opcode = IORING_OP_POLL_REMOVE;
        sqe->flags = IOSQE_CQE_SKIP_SUCCESS;
        sqe->fd = -1;
        sqe->addr = s->armed[slot];
        sqe->len = IORING_POLL_UPDATE_EVENTS;
        sqe->poll32_events = ev;
        sqe->user_data = UD_REMOVE | (uint32_t)slot;
        return 0;
    }
    if (s->armed[slot]) {
        struct io_uring_sqe *sqe = ring_sqe(&s->ring);
        sqe->opcode = IORING_OP_POLL_REMOVE;
        sqe->flags = IOSQE_CQE_SKIP_SUCCESS;
        sqe->fd = -1;
        sqe->addr = s->armed[slot];
        sqe->user_data = UD_REMOVE | (uint32_t)slot;
        s->armed[slot] = 0;
        s->polls_armed--;
        return 1;
    }
    if (ev != 0 && old == 0)
        m2_arm(s, slot);
    /* ev != 0, old != 0, not armed: it completed; the next select arms it with ev */
    return 0;
}

static int epoll_op(uint32_t old, uint32_t ev)
{
    return ev == 0 ? EPOLL_CTL_DEL : old == 0 ? EPOLL_CTL_ADD : EPOLL_CTL_MOD;
}

/* Queues pending change i as an EPOLL_CTL SQE; returns it, or NULL when there is nothing to do. */
static struct io_uring_sqe *ctl_sqe(struct sel *s, int i, int skip_success)
{
    int slot = s->pend_slot[i];
    uint32_t ev = s->pend_ev[i], old = s->reg[slot];
    if (ev == old)
        return NULL;
    s->ctl_ev[i].events = ev;
    s->ctl_ev[i].data.u64 = (uint64_t)slot;
    struct io_uring_sqe *sqe = ring_sqe(&s->ring);
    sqe->opcode = IORING_OP_EPOLL_CTL;
    sqe->flags = skip_success ? IOSQE_CQE_SKIP_SUCCESS : 0;
    sqe->fd = s->epfd;
    sqe->addr = (uint64_t)(uintptr_t)&s->ctl_ev[i];
    sqe->len = (uint32_t)epoll_op(old, ev);
    sqe->off = (uint64_t)s->fds[slot];
    sqe->user_data = UD_CTL | (uint32_t)slot;
    s->reg[slot] = ev;
    return sqe;
}

/* -k: M3's SQEs of one flush chained with IOSQE_IO_HARDLINK, as linux/epoll_backend.c does. */
static int ctl_hardlink;

/* The batch threshold: apply every queued change now. */
static void sel_flush(struct sel *s)
{
    switch (s->m) {
    case M_EPOLL:
        for (int i = 0; i < s->npend; i++) {
            int slot = s->pend_slot[i];
            uint32_t ev = s->pend_ev[i], old = s->reg[slot];
            if (ev == old)
                continue;
            struct epoll_event e = {.events = ev, .data.u64 = (uint64_t)slot};
            if (epoll_ctl(s->epfd, epoll_op(old, ev), s->fds[slot], &e) < 0)
                die_sys("epoll_ctl(op %d, fd %d)", epoll_op(old, ev), s->fds[slot]);
            s->reg[slot] = ev;
        }
        break;
    case M_POLL:
        for (int i = 0; i < s->npend; i++)
            m2_change(s, s->pend_slot[i], s->pend_ev[i]);
        ring_enter(&s->ring, 0, 0, -1);
        ring_reap(s, 0);
        /* deregistered means the kernel holds no poll (and no file reference) any more */
        if (m2_zombies(s) > 0)
            s->late_cancels++;
        while (m2_zombies(s) > 0) {
            ring_enter(&s->ring, 1, IORING_ENTER_GETEVENTS, -1);
            ring_reap(s, 0);
        }
        break;
    case M_CTL:
    case M_EWAIT: {
        s->ctl_done = 0;
        long n = 0;
        struct io_uring_sqe *last = NULL;
        for (int i = 0; i < s->npend; i++) {
            struct io_uring_sqe *sqe = ctl_sqe(s, i, 0);
            if (sqe == NULL)
                continue;
            if (last != NULL && ctl_hardlink)
                last->flags |= IOSQE_IO_HARDLINK;
            last = sqe;
            n++;
        }
        if (n == 0)
            break;
        ring_enter(&s->ring, (unsigned)(n < (long)SQ_ENTRIES ? n : SQ_ENTRIES),
                   IORING_ENTER_GETEVENTS, -1);
        ring_reap(s, 0);
        while (s->ctl_done < n) {
            ring_enter(&s->ring, 1, IORING_ENTER_GETEVENTS, -1);
            ring_reap(s, 0);
        }
        break;
    }
    case NMECH:
        break;
    }
    s->npend = 0;
}

/*
 * select(timeout_ms): applies what is queued, waits (timeout_ms < 0: no limit, 0: selectNow)
 * and leaves the ready registrations in out_slot/out_ev. Returns their number.
 */
static int sel_select(struct sel *s, int timeout_ms)
{
    s->seq++;
    s->nout = 0;
    int removals = 0;
    switch (s->m) {
    case M_EPOLL:
    case M_CTL:
        if (s->npend)
            sel_flush(s);
        for (;;) {
            int n = epoll_wait(s->epfd, s->evbuf, MAX_EVENTS, timeout_ms);
            if (n < 0) {
                if (errno == EINTR)
                    continue;
                die_sys("epoll_wait");
            }
            for (int i = 0; i < n; i++)
                emit(s, (int)s->evbuf[i].data.u64, s->evbuf[i].events, 1);
            return s->nout;
        }
    case M_POLL:
        for (int i = 0; i < s->npend; i++)
            removals |= m2_change(s, s->pend_slot[i], s->pend_ev[i]);
        s->npend = 0;
        for (int i = 0; i < s->nrearm; i++) {
            int slot = s->rearm[i];
            s->on_rearm[slot] = 0;
            if (s->reg[slot] != 0 && s->armed[slot] == 0)
                m2_arm(s, slot);
        }
        s->nrearm = 0;
        break;
    case M_EWAIT:
        for (int i = 0; i < s->npend; i++)
            ctl_sqe(s, i, 1);
        s->npend = 0;
        if (!s->ewait_armed) {
            struct io_uring_sqe *sqe = ring_sqe(&s->ring);
            sqe->opcode = OP_EPOLL_WAIT;
            sqe->fd = s->epfd;
            sqe->addr = (uint64_t)(uintptr_t)s->evbuf;
            sqe->len = MAX_EVENTS;
            sqe->user_data = UD_EWAIT;
            s->ewait_armed = 1;
        }
        break;
    case NMECH:
        break;
    }
    int nstash = s->nstash;
    s->nstash = 0;
    for (int i = 0; i < nstash; i++)
        emit(s, s->stash_slot[i], s->stash_ev[i], 1);
    /*
     * A cancelled poll's CQE wakes a wait without being readiness, so a select that removes
     * something may have to wait again for the rest of its timeout. The clock is read only
     * then (lazily otherwise: an unexpected early wake is rare and only lengthens the wait).
     */
    uint64_t start = (timeout_ms > 0 && removals) ? now_ns() : 0;
    for (;;) {
        unsigned pending = ring_unsubmitted(&s->ring);
        if (s->nout > 0 && pending == 0)
            break;
        unsigned min = (s->nout > 0 || timeout_ms == 0) ? 0 : 1;
        long long ts = -1;
        if (min && timeout_ms > 0) {
            ts = (long long)timeout_ms * 1000000;
            if (start) {
                long long left = ts - (long long)(now_ns() - start);
                if (left <= 0) {
                    if (pending == 0)
                        break;
                    min = 0;
                    ts = -1;
                } else {
                    ts = left;
                }
            }
        }
        int rc = ring_enter(&s->ring, min, IORING_ENTER_GETEVENTS, ts);
        ring_reap(s, 1);
        if (s->nout > 0 || min == 0 || rc == -ETIME)
            break;
        if (timeout_ms > 0 && start == 0)
            start = now_ns();
    }
    return s->nout;
}

static void sel_close(struct sel *s)
{
    if (s->m == M_POLL) {
        /* take every poll back first: an armed poll pins its file until it completes */
        for (int slot = 0; slot < s->nslots; slot++) {
            if (s->reg[slot] == 0)
                continue;
            sel_queue(s, slot, 0);
            if (s->npend == s->pend_cap)
                sel_flush(s);
        }
        sel_flush(s);
        ring_reap(s, 0);
        if (s->polls_inflight != 0)
            die(2, "%ld polls still in flight at close", s->polls_inflight);
    }
    if (s->m == M_EWAIT && s->ewait_armed) {
        s->closing = 1;
        struct io_uring_sqe *sqe = ring_sqe(&s->ring);
        sqe->opcode = IORING_OP_ASYNC_CANCEL;
        sqe->fd = -1;
        sqe->addr = UD_EWAIT;
        sqe->user_data = UD_CANCEL;
        while (s->ewait_armed) {
            ring_enter(&s->ring, 1, IORING_ENTER_GETEVENTS, -1);
            ring_reap(s, 0);
        }
    }
    if (s->m != M_EPOLL)
        ring_close(&s->ring);
    if (s->epfd >= 0 && close(s->epfd) < 0)
        die_sys("close(epoll fd)");
    free(s->reg);
    free(s->pend_slot);
    free(s->pend_ev);
    free(s->ctl_ev);
    free(s->armed);
    free(s->rearm);
    free(s->on_rearm);
    free(s->stash_slot);
    free(s->stash_ev);
    free(s->evbuf);
    free(s->out_slot);
    free(s->out_ev);
    free(s->out_mark);
    free(s);
}

/* Registers slots [0, n) with `events` in batches of BATCH, each flushed. */
static void sel_register_all(struct sel *s, int n, uint32_t events)
{
    for (int i = 0; i < n; i++) {
        sel_queue(s, i, events);
        if (s->npend == BATCH)
            sel_flush(s);
    }
    sel_flush(s);
}

/* ------------------------------------------------------------------------------------------ */
/* sockets */

static void make_pair(int sv[2])
{
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv) < 0)
        die_sys("socketpair");
}

static void put_byte(int fd)
{
    if (write(fd, "x", 1) != 1)
        die_sys("write(fd %d)", fd);
}

static void drain(int fd)
{
    char buf[256];
    for (;;) {
        ssize_t n = read(fd, buf, sizeof(buf));
        if (n > 0)
            continue;
        if (n < 0 && errno == EAGAIN)
            return;
        if (n == 0)
            die(2, "drain(fd %d): unexpected end of stream", fd);
        die_sys("read(fd %d)", fd);
    }
}

/* Does fd see its peer gone (POLLHUP/POLLRDHUP and read() == 0)? */
static int peer_gone(int fd)
{
    struct pollfd p = {.fd = fd, .events = POLLIN | POLLRDHUP};
    if (poll(&p, 1, 0) < 0)
        die_sys("poll(fd %d)", fd);
    if (!(p.revents & (POLLHUP | POLLRDHUP)))
        return 0;
    char c;
    ssize_t n = recv(fd, &c, 1, MSG_DONTWAIT | MSG_PEEK);
    if (n < 0 && errno != EAGAIN)
        die_sys("recv(fd %d)", fd);
    return n == 0;
}

static void close_fd(int fd)
{
    if (close(fd) < 0)
        die_sys("close(fd %d)", fd);
}

static void raise_nofile(rlim_t need)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
        die_sys("getrlimit(RLIMIT_NOFILE)");
    if (rl.rlim_cur >= need)
        return;
    if (rl.rlim_max < need) {
        rl.rlim_max = need;   /* needs CAP_SYS_RESOURCE */
    }
    rl.rlim_cur = need;
    if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
        die(2, "setrlimit(RLIMIT_NOFILE, %lu): %s (run as root or raise ulimit -n)",
            (unsigned long)need, strerror(errno));
}

/* ------------------------------------------------------------------------------------------ */
/* behaviour checks */

#define expect(cond, ...)                                                                        \
    do {                                                                                         \
        if (!(cond)) {                                                                           \
            fflush(stdout);                                                                      \
            fprintf(stderr, "mechanisms: %s: ", mech_label[m]);                                  \
            fprintf(stderr, __VA_ARGS__);                                                        \
            fputc('\n', stderr);                                                                 \
            exit(1);                                                                             \
        }                                                                                        \
    } while (0)

static void expect_only(struct sel *s, int slot, const char *when)
{
    enum mech m = s->m;
    expect(s->nout == 1 && s->out_slot[0] == slot && (s->out_ev[0] & EPOLLIN),
           "%s: expected exactly the readable socket, got %d events", when, s->nout);
}

static void check_mechanism(enum mech m)
{
    int sv[2];
    make_pair(sv);
    int a = sv[0], b = sv[1];
    struct sel *s = sel_open(m, 1, &sv[0], BATCH);
    sel_queue(s, 0, EPOLLIN);
    sel_flush(s);

    expect(sel_select(s, 0) == 0, "selectNow on an idle socket reported %d", s->nout);
    uint64_t t0 = now_ns();
    int n = sel_select(s, 20);
    double waited = (double)(now_ns() - t0) / 1e6;
    expect(n == 0, "select(20) on an idle socket reported %d", n);
    expect(waited >= 19.0 && waited < 1000.0, "select(20) returned after %.1f ms", waited);

    put_byte(b);
    sel_select(s, 1000);
    expect_only(s, 0, "select(1000) after data arrived");
    sel_select(s, 0);
    expect_only(s, 0, "level-triggered: a 2nd select (selectNow) with the data unread");
    sel_select(s, 1000);
    expect_only(s, 0, "level-triggered: a 3rd select with the data unread");
    drain(a);
    expect(sel_select(s, 0) == 0, "selectNow after the data was read reported %d", s->nout);

    /* data arrives and is consumed between two selects: is it reported anyway? */
    put_byte(b);
    drain(a);
    int stale = sel_select(s, 0);

    /* readiness completed in the kernel, then the registration is removed: must not show */
    expect(sel_select(s, 0) == 0, "idle selectNow reported %d", s->nout);
    long dropped = s->dropped_dereg + s->dropped_stale;
    put_byte(b);
    sel_queue(s, 0, 0);
    sel_flush(s);
    expect(sel_select(s, 0) == 0, "reported a socket deregistered before the select");
    dropped = s->dropped_dereg + s->dropped_stale - dropped;
    drain(a);
    sel_close(s);
    close_fd(a);
    close_fd(b);

    /* close(2) of a registered socket: does the peer see end-of-stream? */
    make_pair(sv);
    int c = sv[0], d = sv[1];
    s = sel_open(m, 1, &sv[0], BATCH);
    sel_queue(s, 0, EPOLLIN);
    sel_flush(s);
    sel_select(s, 0);   /* M2: poll armed; M4: EPOLL_WAIT armed */
    close_fd(c);
    int eof_now = peer_gone(d);
    usleep(20000);
    int eof_later = peer_gone(d);
    int after_close = sel_select(s, 0);
    int eof_removed = -1;
    if (m == M_POLL) {
        sel_queue(s, 0, 0);   /* POLL_REMOVE by user_data: the fd number no longer matters */
        sel_flush(s);
        eof_removed = peer_gone(d);
    } else {
        s->reg[0] = 0;        /* the closed file already left the epoll set */
    }
    sel_close(s);
    close_fd(d);

    printf("  %-14s level-triggered OK, timeout OK; data read between selects reported anyway: "
           "%s;\n  %-14s readiness dropped after deregistration: %ld; close() while registered: "
           "peer EOF at once %s, after 20 ms %s, select after close reported %d",
           mech_label[m], stale ? "yes (spurious)" : "no", "", dropped, eof_now ? "yes" : "NO",
           eof_later ? "yes" : "NO", after_close);
    if (eof_removed >= 0)
        printf(", after POLL_REMOVE %s", eof_removed ? "yes" : "NO");
    printf("\n");
}

/* M2's alternatives: are multishot polls level-triggered? */
static void check_multishot(void)
{
    static const struct {
        const char *name;
        unsigned flags;
    } variants[] = {
        {"one-shot", 0},
        {"multishot", IORING_POLL_ADD_MULTI},
        {"multishot|LEVEL", IORING_POLL_ADD_MULTI | IORING_POLL_ADD_LEVEL},
        {"one-shot|LEVEL", IORING_POLL_ADD_LEVEL},
    };
    struct ring r;
    ring_open(&r);
    for (size_t v = 0; v < sizeof(variants) / sizeof(variants[0]); v++) {
        int sv[2];
        make_pair(sv);
        put_byte(sv[1]);
        struct io_uring_sqe *sqe = ring_sqe(&r);
        sqe->opcode = IORING_OP_POLL_ADD;
        sqe->fd = sv[0];
        sqe->poll32_events = EPOLLIN;
        sqe->len = variants[v].flags;
        sqe->user_data = 1;
        ring_enter(&r, 0, 0, -1);
        int counts[2] = {0, 0}, alive = 1, rejected = 0;
        for (int phase = 0; phase < 2; phase++) {
            if (phase == 1)
                put_byte(sv[1]);   /* new data: a fresh wakeup */
            for (int w = 0; w < 3; w++) {
                ring_enter(&r, 1, IORING_ENTER_GETEVENTS, 10 * 1000000LL);
                unsigned head = *r.cq_head, tail = __atomic_load_n(r.cq_tail, __ATOMIC_ACQUIRE);
                for (; head != tail; head++) {
                    const struct io_uring_cqe *c = &r.cqes[head & r.cq_mask];
                    if (c->user_data != 1)
                        continue;
                    if (c->res == -EINVAL && !(c->flags & IORING_CQE_F_MORE)) {
                        rejected = 1;
                        alive = 0;
                        continue;
                    }
                    if (c->res < 0)
                        die(2, "%s POLL_ADD: %s", variants[v].name, strerror(-c->res));
                    counts[phase]++;
                    if (!(c->flags & IORING_CQE_F_MORE))
                        alive = 0;
                }
                __atomic_store_n(r.cq_head, head, __ATOMIC_RELEASE);
            }
        }
        if (alive) {
            sqe = ring_sqe(&r);
            sqe->opcode = IORING_OP_POLL_REMOVE;
            sqe->fd = -1;
            sqe->addr = 1;
            sqe->user_data = 2;
            while (alive) {
                ring_enter(&r, 1, IORING_ENTER_GETEVENTS, -1);
                unsigned head = *r.cq_head, tail = __atomic_load_n(r.cq_tail, __ATOMIC_ACQUIRE);
                for (; head != tail; head++) {
                    const struct io_uring_cqe *c = &r.cqes[head & r.cq_mask];
                    if (c->user_data == 1 && !(c->flags & IORING_CQE_F_MORE))
                        alive = 0;
                }
                __atomic_store_n(r.cq_head, head, __ATOMIC_RELEASE);
            }
        }
        if (rejected)
            printf("  %-16s rejected with EINVAL (this kernel accepts only IORING_POLL_ADD_MULTI "
                   "in sqe->len)\n", variants[v].name);
        else
            printf("  %-16s never re-armed: %d CQE(s) in 3 waits of 10 ms with 1 byte left "
                   "unread, %d more after another byte arrived\n",
                   variants[v].name, counts[0], counts[1]);
        close_fd(sv[0]);
        close_fd(sv[1]);
    }
    ring_close(&r);
}

/* ------------------------------------------------------------------------------------------ */
/* measurement */

static int reps = 5;
static long min_rep_ms = 200;

struct work {
    struct sel *s;
    int n;              /* registrations the scenario uses */
    int ready;          /* slot that stays readable, or -1 */
    int at_select;      /* apply batches by selectNow instead of a flush */
};

static void verify_idle(struct sel *s, int n)
{
    if (n != 0)
        die(1, "%s: a select with nothing ready reported %d (slot %d)", mech_label[s->m], n,
            s->out_slot[0]);
}

static void apply_batch(struct work *w)
{
    if (w->at_select)
        verify_idle(w->s, sel_select(w->s, 0));
    else
        sel_flush(w->s);
}

/* S1: select(1000) with one socket readable; each must report exactly that socket. */
static long chunk_select_one(struct work *w)
{
    for (int i = 0; i < 256; i++) {
        int n = sel_select(w->s, 1000);
        if (n != 1 || w->s->out_slot[0] != w->ready || !(w->s->out_ev[0] & EPOLLIN))
            die(1, "%s failed to report the readable socket (level-triggered) with %d registered: "
                "%d events, first slot %d", mech_label[w->s->m], w->n, n,
                n > 0 ? w->s->out_slot[0] : -1);
    }
    return 256;
}

/* S6: select(1000) with NREADY sockets readable (even slots below 2 * NREADY). */
#define NREADY 64
static long chunk_select_many(struct work *w)
{
    for (int i = 0; i < 64; i++) {
        int n = sel_select(w->s, 1000);
        int ok = n == NREADY;
        for (int k = 0; ok && k < n; k++)
            ok = w->s->out_slot[k] % 2 == 0 && w->s->out_slot[k] < 2 * NREADY &&
                 (w->s->out_ev[k] & EPOLLIN);
        if (!ok)
            die(1, "%s failed to report the %d readable sockets (level-triggered): %d events",
                mech_label[w->s->m], NREADY, n);
    }
    return 64;
}

/* S4: selectNow with nothing to submit and nothing ready. */
static long chunk_select_now(struct work *w)
{
    for (int i = 0; i < 1024; i++)
        verify_idle(w->s, sel_select(w->s, 0));
    return 1024;
}

/* The changes per apply in S2, S3 and S5: BATCH, or each size of the -k sweep in turn. */
static int window = BATCH;

/* S2: register all n, then deregister all n, `window` changes per apply. */
static long chunk_churn(struct work *w)
{
    for (uint32_t ev = EPOLLIN;; ev = 0) {
        for (int i = 0; i < w->n; i++) {
            sel_queue(w->s, i, ev);
            if (w->s->npend == window || i == w->n - 1)
                apply_batch(w);
        }
        if (ev == 0)
            break;
    }
    return 2L * w->n;
}

/* S3/S5: per `window` registrations, apply `to` to all of them, then `back`. */
static uint32_t toggle_to, toggle_back;
static long chunk_toggle(struct work *w)
{
    for (int base = 0; base < w->n; base += window) {
        int end = base + window < w->n ? base + window : w->n;
        for (int i = base; i < end; i++)
            sel_queue(w->s, i, toggle_to);
        apply_batch(w);
        for (int i = base; i < end; i++)
            sel_queue(w->s, i, toggle_back);
        apply_batch(w);
    }
    return 2L * w->n;
}

typedef long (*chunk_fn)(struct work *);

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

struct result {
    double median, spread;
    int valid;
};

static void warm_up(chunk_fn fn, struct work *w)
{
    uint64_t t0 = now_ns();
    do
        fn(w);
    while (now_ns() - t0 < 20 * 1000000ull);
}

/* One repetition: ns per operation over at least min_rep_ms. */
static double one_rep(chunk_fn fn, struct work *w)
{
    long ops = 0;
    uint64_t start = now_ns(), t;
    do {
        ops += fn(w);
        t = now_ns();
    } while (t - start < (uint64_t)min_rep_ms * 1000000ull);
    return (double)(t - start) / (double)ops;
}

/* The median and spread of `reps` repetitions (sorted in place). */
static struct result summarise(double *r)
{
    qsort(r, (size_t)reps, sizeof(double), cmp_double);
    struct result res;
    res.median = reps % 2 ? r[reps / 2] : (r[reps / 2 - 1] + r[reps / 2]) / 2;
    res.spread = (r[reps - 1] - r[0]) / res.median;
    res.valid = 1;
    return res;
}

static struct result measure(chunk_fn fn, struct work *w)
{
    warm_up(fn, w);
    double r[MAX_REPS];
    for (int rep = 0; rep < reps; rep++)
        r[rep] = one_rep(fn, w);
    return summarise(r);
}

enum { R_S1_10, R_S1_1000, R_S1_10000, R_S6, R_S2, R_S2_SEL, R_S3, R_S3_SEL, R_S5, R_S4, NROWS };
static const char *const row_label[NROWS] = {
    "S1 select(1000), 1 ready of 10",
    "S1 select(1000), 1 ready of 1000",
    "S1 select(1000), 1 ready of 10000",
    "S6 select(1000), 64 ready of 1000",
    "S2 churn: register+deregister",
    "S2 churn, batch + selectNow",
    "S3 toggle IN -> 0 -> IN",
    "S3 toggle, batch + selectNow",
    "S5 toggle IN <-> IN|OUT (MOD)",
    "S4 selectNow, nothing ready",
};
static const char *const row_unit[NROWS] = {"ns/select", "ns/select", "ns/select", "ns/select",
                                            "ns/change",
                                            "ns/change", "ns/change", "ns/change", "ns/change",
                                            "ns/select"};
static struct result results[NROWS][NMECH];
static long late_cancels_total, dropped_stale_total;

static void account(struct sel *s)
{
    late_cancels_total += s->late_cancels;
    dropped_stale_total += s->dropped_stale;
}

static void print_table(void)
{
    printf("\n%-36s %-10s", "scenario (median of reps)", "unit");
    for (int m = 0; m < NMECH; m++)
        printf(" %18s", mech_label[m]);
    printf("\n");
    for (int row = 0; row < NROWS; row++) {
        printf("%-36s %-10s", row_label[row], row_unit[row]);
        for (int m = 0; m < NMECH; m++) {
            struct result *r = &results[row][m];
            char cell[64];
            if (!r->valid)
                snprintf(cell, sizeof(cell), "n/a");
            else if (m == M_EPOLL)
                snprintf(cell, sizeof(cell), "%.0f", r->median);
            else
                snprintf(cell, sizeof(cell), "%.0f (%.2fx)", r->median,
                         r->median / results[row][M_EPOLL].median);
            printf(" %18s", cell);
        }
        printf("\n");
    }
    printf("\nspread of the reps, (max - min) / median:\n");
    for (int row = 0; row < NROWS; row++) {
        printf("%-36s %-10s", row_label[row], "");
        for (int m = 0; m < NMECH; m++) {
            char cell[32];
            if (results[row][m].valid)
                snprintf(cell, sizeof(cell), "%.1f%%", 100 * results[row][m].spread);
            else
                snprintf(cell, sizeof(cell), "n/a");
            printf(" %18s", cell);
        }
        printf("\n");
    }
}

/* Sockets whose send buffer is full: IN|OUT interest on them is still idle. */
static int *make_unwritable(int n, int *peers)
{
    int *fds = xcalloc(n, sizeof(int));
    static char buf[65536];
    for (int i = 0; i < n; i++) {
        int sv[2];
        make_pair(sv);
        int one = 1;
        if (setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &one, sizeof(one)) < 0)
            die_sys("setsockopt(SO_SNDBUF)");
        for (;;) {
            ssize_t k = write(sv[0], buf, sizeof(buf));
            if (k > 0)
                continue;
            if (k < 0 && errno == EAGAIN)
                break;
            die_sys("write(fill fd %d)", sv[0]);
        }
        struct pollfd p = {.fd = sv[0], .events = POLLIN | POLLOUT};
        if (poll(&p, 1, 0) < 0)
            die_sys("poll");
        if (p.revents)
            die(2, "fd %d with a full send buffer still polls %#x", sv[0], p.revents);
        fds[i] = sv[0];
        peers[i] = sv[1];
    }
    return fds;
}

/*
 * -k: from which batch size one io_uring_enter of EPOLL_CTL SQEs beats one epoll_ctl per change.
 * S5 (MOD) and S2 (ADD, then DEL) on `n` sockets in applies of 1 to 64 changes, by M1, M3 and M3
 * with the SQEs of each apply hard-linked. The three run side by side, one repetition of each in
 * turn, so that a machine whose speed drifts (shared cores) slows all three alike.
 */
enum { NVARIANTS = 3 };
static const char *const variant_label[NVARIANTS] = {"M1 epoll_ctl", "M3 EPOLL_CTL", "M3 hard-linked"};

static void sweep_cells(chunk_fn fn, const int *fds, int n, int registered, struct result *out)
{
    struct sel *s[NVARIANTS];
    struct work w[NVARIANTS];
    double r[NVARIANTS][MAX_REPS];
    for (int v = 0; v < NVARIANTS; v++) {
        s[v] = sel_open(v == 0 ? M_EPOLL : M_CTL, n, fds, BATCH);
        if (registered)
            sel_register_all(s[v], n, EPOLLIN);
        w[v] = (struct work){.s = s[v], .n = n, .ready = -1};
        ctl_hardlink = v == 2;
        warm_up(fn, &w[v]);
    }
    for (int rep = 0; rep < reps; rep++) {
        for (int v = 0; v < NVARIANTS; v++) {
            ctl_hardlink = v == 2;
            r[v][rep] = one_rep(fn, &w[v]);
        }
    }
    ctl_hardlink = 0;
    for (int v = 0; v < NVARIANTS; v++) {
        out[v] = summarise(r[v]);
        verify_idle(s[v], sel_select(s[v], 0));
        sel_close(s[v]);
    }
}

static void batch_sweep(int n)
{
    static const int sizes[] = {1, 2, 4, 8, 16, 64};
    enum { NSIZES = sizeof(sizes) / sizeof(sizes[0]) };
    int *idle = xcalloc(n, sizeof(int));
    for (int i = 0; i < n; i += 2)
        make_pair(&idle[i]);
    int *peers = xcalloc(n, sizeof(int));
    int *full = make_unwritable(n, peers);
    struct result r[2][NSIZES][NVARIANTS];
    printf("\nmeasuring");
    for (int k = 0; k < NSIZES; k++) {
        window = sizes[k];
        toggle_to = EPOLLIN | EPOLLOUT;
        toggle_back = EPOLLIN;
        sweep_cells(chunk_toggle, full, n, 1, r[0][k]);
        sweep_cells(chunk_churn, idle, n, 0, r[1][k]);
        printf(".");
    }
    window = BATCH;
    printf("\n\n%-32s %-10s", "changes per apply (median)", "unit");
    for (int v = 0; v < NVARIANTS; v++)
        printf(" %18s", variant_label[v]);
    printf("  spread (max - min) / median\n");
    for (int row = 0; row < 2; row++) {
        for (int k = 0; k < NSIZES; k++) {
            char label[64];
            snprintf(label, sizeof(label), "%s, %d per apply", row ? "S2 ADD then DEL" : "S5 MOD", sizes[k]);
            printf("%-32s %-10s %18.0f", label, "ns/change", r[row][k][0].median);
            for (int v = 1; v < NVARIANTS; v++) {
                char cell[64];
                snprintf(cell, sizeof(cell), "%.0f (%.2fx)", r[row][k][v].median,
                         r[row][k][v].median / r[row][k][0].median);
                printf(" %18s", cell);
            }
            printf(" ");
            for (int v = 0; v < NVARIANTS; v++)
                printf(" %5.1f%%", 100 * r[row][k][v].spread);
            printf("\n");
        }
    }
    for (int i = 0; i < n; i++) {
        close_fd(idle[i]);
        close_fd(full[i]);
        close_fd(peers[i]);
    }
    free(idle);
    free(full);
    free(peers);
}

static void usage(void)
{
    fprintf(stderr,
            "usage: mechanisms [-r reps] [-t min_rep_ms] [-D] [-c | -k]\n"
            "  -r  repetitions per cell, median reported (default 5, at most %d)\n"
            "  -t  minimum length of one repetition in ms (default 200)\n"
            "  -D  rings with IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN\n"
            "  -c  behaviour checks only\n"
            "  -k  checks, then M1 against M3 in applies of 1 to 64 changes instead of the table\n",
            MAX_REPS);
    exit(2);
}

int main(int argc, char **argv)
{
    int checks_only = 0, sweep = 0, opt;
    while ((opt = getopt(argc, argv, "r:t:Dck")) != -1) {
        switch (opt) {
        case 'r':
            reps = atoi(optarg);
            if (reps < 1 || reps > MAX_REPS)
                usage();
            break;
        case 't':
            min_rep_ms = atol(optarg);
            if (min_rep_ms < 1)
                usage();
            break;
        case 'D':
            ring_setup_flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN;
            break;
        case 'c':
            checks_only = 1;
            break;
        case 'k':
            sweep = 1;
            break;
        default:
            usage();
        }
    }
    setvbuf(stdout, NULL, _IOLBF, 0);

    enum { NMAX = 10000, NIDLE = 1000 };
    raise_nofile(NMAX + NIDLE * 2 + 64);

    struct utsname u;
    if (uname(&u) < 0)
        die_sys("uname");
    cpu_set_t cpus;
    if (sched_getaffinity(0, sizeof(cpus), &cpus) < 0)
        die_sys("sched_getaffinity");
    printf("kernel %s, %d CPU(s) allowed, ring flags %s, %d reps of >= %ld ms per cell\n",
           u.release, CPU_COUNT(&cpus),
           ring_setup_flags ? "SINGLE_ISSUER|DEFER_TASKRUN" : "default", reps, min_rep_ms);

    /* which opcodes does this kernel have? */
    struct ring pr;
    ring_open(&pr);
    size_t psz = sizeof(struct io_uring_probe) + 256 * sizeof(struct io_uring_probe_op);
    struct io_uring_probe *probe = xcalloc(1, psz);
    if (syscall(__NR_io_uring_register, pr.fd, IORING_REGISTER_PROBE, probe, 256) < 0)
        die_sys("io_uring_register(IORING_REGISTER_PROBE)");
    ring_close(&pr);
    int has_poll = probe_supports(probe, IORING_OP_POLL_ADD) &&
                   probe_supports(probe, IORING_OP_POLL_REMOVE);
    int has_ctl = probe_supports(probe, IORING_OP_EPOLL_CTL);
    int has_wait = probe_supports(probe, OP_EPOLL_WAIT);
    printf("probe: last opcode %u; POLL_ADD/REMOVE %s, EPOLL_CTL (%d) %s, EPOLL_WAIT (assumed %d) "
           "%s\n", probe->last_op, has_poll ? "yes" : "no", IORING_OP_EPOLL_CTL,
           has_ctl ? "yes" : "no", OP_EPOLL_WAIT, has_wait ? "yes" : "no");
    free(probe);
    mech_ok[M_POLL] = has_poll;
    mech_ok[M_CTL] = has_ctl;
    mech_ok[M_EWAIT] = has_ctl && has_wait;
    if (!has_poll && !has_ctl)
        die(3, "this kernel's io_uring has neither POLL_ADD nor EPOLL_CTL");

    printf("\nbehaviour checks (one socket, then a socket closed while registered):\n");
    for (int m = 0; m < NMECH; m++)
        if (mech_ok[m])
            check_mechanism((enum mech)m);
    if (has_poll) {
        printf("one POLL_ADD on a socket that stays readable:\n");
        check_multishot();
    }
    if (checks_only)
        return 0;
    if (sweep) {
        if (!has_ctl)
            die(3, "this kernel's io_uring has no EPOLL_CTL");
        batch_sweep(NIDLE);
        return 0;
    }

    /* NMAX registrations: both ends of NMAX/2 socketpairs; slot 0 gets one unread byte */
    int *fds = xcalloc(NMAX, sizeof(int));
    for (int i = 0; i < NMAX; i += 2)
        make_pair(&fds[i]);

    printf("\nmeasuring");
    put_byte(fds[1]);
    static const int sizes[3] = {10, 1000, NMAX};
    for (int k = 0; k < 3; k++) {
        for (int m = 0; m < NMECH; m++) {
            if (!mech_ok[m])
                continue;
            struct sel *s = sel_open((enum mech)m, sizes[k], fds, BATCH);
            sel_register_all(s, sizes[k], EPOLLIN);
            struct work w = {.s = s, .n = sizes[k], .ready = 0};
            results[R_S1_10 + k][m] = measure(chunk_select_one, &w);
            account(s);
            sel_close(s);
            printf(".");
        }
    }
    for (int k = 1; k < NREADY; k++)
        put_byte(fds[2 * k + 1]);
    for (int m = 0; m < NMECH; m++) {
        if (!mech_ok[m])
            continue;
        struct sel *s = sel_open((enum mech)m, NIDLE, fds, BATCH);
        sel_register_all(s, NIDLE, EPOLLIN);
        struct work w = {.s = s, .n = NIDLE, .ready = -1};
        results[R_S6][m] = measure(chunk_select_many, &w);
        account(s);
        sel_close(s);
        printf(".");
    }
    for (int k = 0; k < NREADY; k++)
        drain(fds[2 * k]);

    for (int m = 0; m < NMECH; m++) {
        if (!mech_ok[m])
            continue;
        for (int at_select = 0; at_select < 2; at_select++) {
            struct sel *s = sel_open((enum mech)m, NIDLE, fds, BATCH);
            struct work w = {.s = s, .n = NIDLE, .ready = -1, .at_select = at_select};
            results[at_select ? R_S2_SEL : R_S2][m] = measure(chunk_churn, &w);
            account(s);
            sel_close(s);

            s = sel_open((enum mech)m, NIDLE, fds, BATCH);
            sel_register_all(s, NIDLE, EPOLLIN);
            w.s = s;
            toggle_to = 0;
            toggle_back = EPOLLIN;
            results[at_select ? R_S3_SEL : R_S3][m] = measure(chunk_toggle, &w);
            account(s);
            sel_close(s);
            printf(".");
        }
        struct sel *s = sel_open((enum mech)m, NIDLE, fds, BATCH);
        sel_register_all(s, NIDLE, EPOLLIN);
        struct work w = {.s = s, .n = NIDLE, .ready = -1};
        results[R_S4][m] = measure(chunk_select_now, &w);
        account(s);
        sel_close(s);
        printf(".");
    }

    int *peers = xcalloc(NIDLE, sizeof(int));
    int *full = make_unwritable(NIDLE, peers);
    for (int m = 0; m < NMECH; m++) {
        if (!mech_ok[m])
            continue;
        struct sel *s = sel_open((enum mech)m, NIDLE, full, BATCH);
        sel_register_all(s, NIDLE, EPOLLIN);
        struct work w = {.s = s, .n = NIDLE, .ready = -1};
        toggle_to = EPOLLIN | EPOLLOUT;
        toggle_back = EPOLLIN;
        results[R_S5][m] = measure(chunk_toggle, &w);
        verify_idle(s, sel_select(s, 0));
        account(s);
        sel_close(s);
        printf(".");
    }
    printf("\n");
    for (int i = 0; i < NIDLE; i++) {
        close_fd(full[i]);
        close_fd(peers[i]);
    }
    for (int i = 0; i < NMAX; i++)
        close_fd(fds[i]);

    print_table();
    printf("\nM2: flushes that had to wait for a cancelled poll: %ld; readiness of removed polls "
           "dropped: %ld\n", late_cancels_total, dropped_stale_total);
    free(full);
    free(peers);
    free(fds);
    return 0;
}
