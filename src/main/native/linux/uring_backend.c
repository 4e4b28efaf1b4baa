#include "uring_backend.h"

#include <errno.h>
#include <linux/io_uring.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define SQ_ENTRIES 256
#define CQ_ENTRIES 4096
#define INITIAL_SLOTS 64

/*
 * user_data of a poll removal or update: this bit, which no key's token has (ns_records.h), and
 * the slot of the poll it is about.
 */
#define CONTROL_BIT (UINT64_C(1) << 63)
/* user_data of the no-op that ends a poll's wait when an apply has set completions aside. */
#define DOORBELL_TOKEN (CONTROL_BIT | UINT32_MAX)

#define REPORTED_EVENTS (NS_IN | NS_OUT | NS_ERR | NS_HUP | NS_NVAL)

struct registration {
    uint64_t token;
    uint64_t armed_token; /* the token of the poll in the kernel: this one or, until that poll
                             ends, the slot's previous key's */
    int32_t fd;
    uint32_t events;
    uint8_t active;  /* registered: armed again after each completion */
    uint8_t armed;    /* a poll with armed_token is in the kernel */
    uint8_t removing; /* ... and its removal has been asked for */
    uint8_t queued;   /* in the re-arm list */
    uint8_t refused;  /* its removal or update was refused (EALREADY): to be asked again */
    uint32_t reported; /* the poll call that last reported this fd */
};

struct ns_uring {
    struct ns_backend base;
    int ring_fd;
    int wakefd;
    int wakeup_armed;
    pthread_mutex_t lock;

    unsigned *sq_head, *sq_tail, *sq_mask, *sq_array, *sq_flags;
    unsigned sq_entries;
    unsigned sq_tail_local;
    struct io_uring_sqe *sqes;
    unsigned *cq_head, *cq_tail, *cq_mask;
    struct io_uring_cqe *cqes;
    void *ring_map;
    size_t ring_map_size;
    size_t sqes_size;

    struct registration *regs; /* by slot: the low 32 bits of a token */
    uint32_t *rearm;           /* slots whose poll completed */
    uint32_t slots, rearm_count;
    uint32_t removals_pending; /* removed polls whose completion has not been seen */
    uint32_t refusals;         /* registrations marked refused */
    uint32_t poll_calls;       /* numbers the poll calls, for registration.reported */

    struct ns_ready *aside;    /* completions taken off the ring by apply, for the next poll */
    uint32_t aside_count, aside_capacity;
    int poll_waiting;          /* a poll waits in io_uring_enter, or is about to */
};

static int enter(struct ns_uring *r, unsigned to_submit, unsigned min_complete, unsigned flags,
                 const struct __kernel_timespec *timeout)
{
    struct io_uring_getevents_arg arg = { .ts = (uint64_t)(uintptr_t)timeout };
    if (timeout != NULL)
        flags |= IORING_ENTER_EXT_ARG;
    long n = syscall(__NR_io_uring_enter, r->ring_fd, to_submit, min_complete, flags,
                     timeout != NULL ? (void *)&arg : NULL, timeout != NULL ? sizeof(arg) : 0);
    return n < 0 ? -errno : (int)n;
}

static unsigned unsubmitted(struct ns_uring *r)
{
    return r->sq_tail_local - __atomic_load_n(r->sq_head, __ATOMIC_ACQUIRE);
}

static void publish(struct ns_uring *r)
{
    __atomic_store_n(r->sq_tail, r->sq_tail_local, __ATOMIC_RELEASE);
}

/* Under the lock: a cleared entry, submitting the full ring first if need be. */
static int next_sqe(struct ns_uring *r, int *calls, struct io_uring_sqe **out)
{
    if (unsubmitted(r) == r->sq_entries) {
        publish(r);
        int n = enter(r, r->sq_entries, 0, 0, NULL);
        (*calls)++;
        if (n < 0)
            return n;
        if (unsubmitted(r) == r->sq_entries)
            return -EBUSY;
    }
    unsigned index = r->sq_tail_local & *r->sq_mask;
    struct io_uring_sqe *sqe = &r->sqes[index];
    memset(sqe, 0, sizeof(*sqe));
    r->sq_array[index] = index;
    r->sq_tail_local++;
    *out = sqe;
    return 0;
}

static uint32_t poll_events(uint32_t events)
{
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    events = (events << 16) | (events >> 16);
#endif
    return events;
}

static int arm(struct ns_uring *r, int fd, uint32_t events, uint64_t token, int *calls)
{
    struct io_uring_sqe *sqe;
    int err = next_sqe(r, calls, &sqe);
    if (err < 0)
        return err;
    sqe->opcode = IORING_OP_POLL_ADD;
    sqe->fd = fd;
    sqe->poll32_events = poll_events(events);
    sqe->user_data = token;
    return 0;
}

/* Arms the registration's poll; it is marked armed only once its entry is queued. */
static int arm_registration(struct ns_uring *r, struct registration *g, int *calls)
{
    int err = arm(r, g->fd, g->events, g->token, calls);
    if (err == 0) {
        g->armed = 1;
        g->armed_token = g->token;
    }
    return err;
}

/* Removes the poll with this token, or with IORING_POLL_UPDATE_EVENTS changes its events. */
static int remove_or_update(struct ns_uring *r, uint64_t token, uint32_t update_flags, uint32_t events,
                            int *calls)
{
    struct io_uring_sqe *sqe;
    int err = next_sqe(r, calls, &sqe);
    if (err < 0)
        return err;
    sqe->opcode = IORING_OP_POLL_REMOVE;
    sqe->fd = -1;
    sqe->addr = token;
    sqe->len = update_flags;
    sqe->poll32_events = poll_events(events);
    sqe->user_data = CONTROL_BIT | (uint32_t)token;
    return 0;
}

static void drain_wakeup(struct ns_uring *r)
{
    uint64_t value;
    /* EAGAIN: already empty. Nothing else can fail on this private non-blocking eventfd, and
       the wakeup is reported either way so that the caller's latch is reset. */
    if (read(r->wakefd, &value, sizeof(value)) < 0 && errno != EAGAIN)
        return;
}

/*
 * Under the lock: the answer to a removal or update. EALREADY means the poll was being woken on
 * the thread that armed it; that thread's task work then either completes the poll or, if the
 * fd is no longer ready, arms it again, and the request is lost: it is asked again.
 */
static void control_completed(struct ns_uring *r, uint32_t slot, int res)
{
    if (res != -EALREADY || slot >= r->slots)
        return;
    struct registration *g = &r->regs[slot];
    if (g->armed && !g->refused) {
        g->refused = 1;
        r->refusals++;
    }
}

/*
 * Under the lock: asks again for the removals and updates refused so far, of the poll as it was
 * armed: the slot may have a new key by now, whose poll waits for the old one to end.
 */
static int ask_again(struct ns_uring *r, int *calls)
{
    for (uint32_t slot = 0; slot < r->slots && r->refusals > 0; slot++) {
        struct registration *g = &r->regs[slot];
        if (!g->refused)
            continue;
        if (g->armed) {
            int err = g->removing || !g->active
                          ? remove_or_update(r, g->armed_token, 0, 0, calls)
                          : remove_or_update(r, g->armed_token, IORING_POLL_UPDATE_EVENTS, g->events, calls);
            if (err < 0)
                return err;
        }
        g->refused = 0;
        r->refusals--;
    }
    return 0;
}

/* Under the lock: what one completion means; 1 when it is a record to report. */
static int complete(struct ns_uring *r, const struct io_uring_cqe *cqe, struct ns_ready *record)
{
    uint64_t token = cqe->user_data;
    if (token != NS_WAKEUP_TOKEN && (token & CONTROL_BIT)) {
        control_completed(r, (uint32_t)token, cqe->res);
        return 0;
    }
    if (token == NS_WAKEUP_TOKEN) {
        r->wakeup_armed = 0;
        record->token = NS_WAKEUP_TOKEN;
        record->events = NS_IN;
        record->reserved = 0;
        drain_wakeup(r);
        return 1;
    }
    uint32_t slot = (uint32_t)token;
    if (slot >= r->slots)
        return 0;
    struct registration *g = &r->regs[slot];
    /* A slot has one poll at a time: this is it, armed for this key or for the slot's previous
       key (then its end lets the new key's poll be armed). */
    if (!g->armed)
        return 0;
    int current = g->token == token;
    g->armed = 0;
    if (g->removing) {
        g->removing = 0;
        r->removals_pending--;
    }
    if (!g->active)
        return 0;
    /* An fd the kernel refused (say EBADF) is reported once and not polled again. */
    int rearm = !current || cqe->res >= 0 || cqe->res == -ECANCELED;
    if (rearm && !g->queued) {
        g->queued = 1;
        r->rearm[r->rearm_count++] = slot;
    }
    if (!current || cqe->res == -ECANCELED)
        return 0;
    record->token = token;
    record->events = cqe->res >= 0 ? ((uint32_t)cqe->res & REPORTED_EVENTS)
                                   : (cqe->res == -EBADF ? NS_NVAL : NS_ERR);
    record->reserved = 0;
    return 1;
}

/* Under the lock: notes that this poll call reports the record's fd. */
static struct ns_ready mark_reported(struct ns_uring *r, struct ns_ready record)
{
    uint32_t slot = (uint32_t)record.token;
    if (record.token != NS_WAKEUP_TOKEN && slot < r->slots)
        r->regs[slot].reported = r->poll_calls;
    return record;
}

static int set_aside(struct ns_uring *r, const struct ns_ready *record)
{
    if (r->aside_count == r->aside_capacity) {
        uint32_t capacity = r->aside_capacity ? r->aside_capacity * 2 : 64;
        struct ns_ready *grown = realloc(r->aside, capacity * sizeof(*grown));
        if (grown == NULL)
            return -ENOMEM;
        r->aside = grown;
        r->aside_capacity = capacity;
    }
    r->aside[r->aside_count++] = *record;
    return 0;
}

/*
 * Under the lock: takes completions off the ring into `out` until it holds `capacity` records;
 * with out == NULL, takes them all and sets the records aside. Returns the records written or
 * -errno.
 */
static int take_completions(struct ns_uring *r, struct ns_ready *out, int capacity)
{
    unsigned head = *r->cq_head;
    unsigned tail = __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE);
    int n = 0, err = 0;
    while (head != tail && (out == NULL || n < capacity)) {
        struct ns_ready record;
        if (complete(r, &r->cqes[head & *r->cq_mask], &record)) {
            if (out != NULL)
                out[n++] = mark_reported(r, record);
            else if ((err = set_aside(r, &record)) < 0)
                break;
        }
        head++;
    }
    __atomic_store_n(r->cq_head, head, __ATOMIC_RELEASE);
    return err < 0 ? err : n;
}

static int ensure_slot(struct ns_uring *r, uint32_t slot)
{
    if (slot < r->slots)
        return 0;
    uint32_t slots = r->slots;
    while (slots <= slot)
        slots *= 2;
    struct registration *regs = realloc(r->regs, slots * sizeof(*regs));
    if (regs == NULL)
        return -ENOMEM;
    r->regs = regs;
    memset(regs + r->slots, 0, (slots - r->slots) * sizeof(*regs));
    uint32_t *rearm = realloc(r->rearm, slots * sizeof(*rearm));
    if (rearm == NULL)
        return -ENOMEM;
    r->rearm = rearm;
    r->slots = slots;
    return 0;
}

static int64_t now_ms(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

/*
 * Under the lock: submits what is queued and waits, for at most REMOVAL_WAIT_MS, until every
 * removed poll has completed. A cancelled poll completes in the task that submitted it; when that
 * thread is slow to run its task work the wait gives up: the poll is already disarmed, its
 * completion is recognised whenever it comes, and only the release of the file is later.
 */
#define REMOVAL_WAIT_MS 50

static int await_removals(struct ns_uring *r, int *calls)
{
    publish(r);
    if (unsubmitted(r) > 0) {
        int n = enter(r, unsubmitted(r), 0, 0, NULL);
        (*calls)++;
        if (n < 0)
            return n;
    }
    int64_t deadline = now_ms() + REMOVAL_WAIT_MS;
    for (;;) {
        int n = take_completions(r, NULL, 0);
        if (n < 0)
            return n;
        int64_t left = deadline - now_ms();
        if (r->removals_pending == 0 || left <= 0)
            return 0;
        if (r->refusals > 0) {
            /* Give the thread that armed the refused polls a moment to run its task work. */
            struct __kernel_timespec pause = { .tv_sec = 0, .tv_nsec = 1000000L };
            n = enter(r, 0, 1, IORING_ENTER_GETEVENTS, &pause);
            (*calls)++;
            if (n < 0 && n != -EINTR && n != -ETIME)
                return n;
            if ((n = take_completions(r, NULL, 0)) < 0 || (n = ask_again(r, calls)) < 0)
                return n;
            publish(r);
            continue;
        }
        struct __kernel_timespec ts = { .tv_sec = 0, .tv_nsec = left * 1000000L };
        n = enter(r, unsubmitted(r), 1, IORING_ENTER_GETEVENTS, &ts);
        (*calls)++;
        if (n < 0 && n != -EINTR && n != -ETIME)
            return n;
    }
}

/*
 * Under the lock: a poll waiting in io_uring_enter waits for completions in the ring, and those
 * set aside are no longer there: a no-op request puts one back, which ends the wait. Then the
 * poll takes what was set aside. (It is rung after every apply that finds records set aside while
 * a poll waits: a later apply may have taken the no-op off the ring before the poll saw it.)
 */
static int ring_doorbell(struct ns_uring *r, int *calls)
{
    if (!r->poll_waiting || r->aside_count == 0)
        return 0;
    struct io_uring_sqe *sqe;
    int err = next_sqe(r, calls, &sqe);
    if (err < 0)
        return err;
    sqe->opcode = IORING_OP_NOP;
    sqe->user_data = DOORBELL_TOKEN;
    publish(r);
    int n = enter(r, unsubmitted(r), 0, 0, NULL);
    (*calls)++;
    return n < 0 ? n : 0;
}

static int submit_and_await_removals(struct ns_uring *r, int *calls)
{
    int err = await_removals(r, calls);
    int rung = ring_doorbell(r, calls);
    return err < 0 ? err : rung;
}

static int apply_one(struct ns_uring *r, const struct ns_change *c, int *calls)
{
    uint32_t slot = (uint32_t)c->token;
    int err = ensure_slot(r, slot);
    if (err < 0)
        return err;
    struct registration *g = &r->regs[slot];
    /* A change whose request cannot be queued leaves the registration as it was. */
    struct registration wanted = *g;
    switch (c->op) {
    case NS_OP_ADD:
    case NS_OP_MOD:
        if (c->token & CONTROL_BIT)
            return -EINVAL;
        if (g->active && g->token != c->token)
            return -EEXIST;
        wanted.token = c->token;
        wanted.fd = c->fd;
        wanted.events = c->events;
        wanted.active = 1;
        if (g->armed && !g->removing)
            err = remove_or_update(r, g->armed_token, IORING_POLL_UPDATE_EVENTS, wanted.events, calls);
        else if (!g->armed && !g->queued)
            err = arm_registration(r, &wanted, calls);
        /* else armed with the new events once the old poll's completion is seen */
        break;
    case NS_OP_DEL:
        /* Absent, or already removed, is the goal. */
        if (!g->active || g->token != c->token)
            return 0;
        wanted.active = 0;
        if (g->armed && !g->removing) {
            err = remove_or_update(r, g->armed_token, 0, 0, calls);
            wanted.removing = 1;
            if (err == 0)
                r->removals_pending++;
        }
        break;
    default:
        return -EINVAL;
    }
    if (err == 0)
        *g = wanted;
    return err;
}

static struct ns_uring *ring_of(struct ns_backend *b)
{
    return (struct ns_uring *)b;
}

static int uring_apply(struct ns_backend *b, struct ns_change *changes, int count, int sync)
{
    struct ns_uring *r = ring_of(b);
    int calls = 0, err = 0;
    pthread_mutex_lock(&r->lock);
    for (int i = 0; i < count; i++) {
        int e = apply_one(r, &changes[i], &calls);
        changes[i].error = -e;
        if (e == -EBUSY || e == -ENOMEM) {
            err = e;
            break;
        }
    }
    if (err == 0 && sync)
        err = submit_and_await_removals(r, &calls);
    else
        publish(r);
    pthread_mutex_unlock(&r->lock);
    return err < 0 ? err : calls;
}

/*
 * Under the lock: arms again the polls that completed, and the wakeup poll. A poll reported by
 * this very call waits for the next one: arming it now could report the same fd twice in one
 * select.
 */
static int rearm(struct ns_uring *r, int *calls)
{
    int err = ask_again(r, calls);
    uint32_t kept = 0;
    /* Polls whose completions were dropped unreported go first: with more ready fds than a
       poll takes, the ones left out last time complete (and are reported) first. */
    for (int dropped = 1; dropped >= 0; dropped--) {
        for (uint32_t i = 0; i < r->rearm_count; i++) {
            uint32_t slot = r->rearm[i];
            struct registration *g = &r->regs[slot];
            if (!g->queued || (g->reported == 0) != dropped)
                continue;
            if (err < 0 || g->reported == r->poll_calls)
                continue;
            /* One that cannot be armed stays queued, for the next poll. */
            if (g->active && !g->armed && (err = arm_registration(r, g, calls)) < 0)
                continue;
            g->queued = 0;
        }
    }
    for (uint32_t i = 0; i < r->rearm_count; i++) {
        if (r->regs[r->rearm[i]].queued)
            r->rearm[kept++] = r->rearm[i];
    }
    r->rearm_count = kept;
    if (err == 0 && !r->wakeup_armed && (err = arm(r, r->wakefd, POLLIN, NS_WAKEUP_TOKEN, calls)) == 0)
        r->wakeup_armed = 1;
    publish(r);
    return err;
}

/* Whether a record set aside still says something about its registration as it is now. */
static int still_current(struct ns_uring *r, const struct ns_ready *record)
{
    if (record->token == NS_WAKEUP_TOKEN)
        return 1;
    const struct registration *g = &r->regs[(uint32_t)record->token];
    return g->active && g->token == record->token
           && (record->events & (g->events | NS_ERR | NS_HUP | NS_NVAL)) != 0;
}

/* Under the lock: the records set aside, less those that changes since have made stale. */
static int take_aside(struct ns_uring *r, struct ns_ready *ready, int capacity)
{
    uint32_t used = 0;
    int n = 0;
    for (; used < r->aside_count && n < capacity; used++) {
        if (still_current(r, &r->aside[used]))
            ready[n++] = mark_reported(r, r->aside[used]);
    }
    if (used > 0) {
        memmove(r->aside, r->aside + used, (r->aside_count - used) * sizeof(*ready));
        r->aside_count -= used;
    }
    return n;
}

/*
 * Under the lock: drops the records of fds that will be polled again, keeping wakeups and fds
 * the kernel refused (reported once). The dropped fds are armed again by this call.
 */
static int keep_final(struct ns_uring *r, struct ns_ready *ready, int count)
{
    int kept = 0;
    for (int i = 0; i < count; i++) {
        uint32_t slot = (uint32_t)ready[i].token;
        if (ready[i].token != NS_WAKEUP_TOKEN && slot < r->slots && r->regs[slot].queued) {
            r->regs[slot].reported = 0;
            continue;
        }
        ready[kept++] = ready[i];
    }
    return kept;
}

/*
 * Under the lock: what completed before this call, then arms again what completed before. A
 * completion tells what its fd was ready for when it completed, which may have changed since
 * (the data read, more events, another interest set), while a select reports what is ready
 * when it runs. So the poll of such an fd is armed again now, and what it completes with during
 * this call is reported instead: a poll armed on a ready fd completes at once.
 */
static int collect(struct ns_uring *r, struct ns_ready *ready, int capacity, int *calls)
{
    int n = take_aside(r, ready, capacity);
    int taken = take_completions(r, ready + n, capacity - n);
    if (taken < 0)
        return taken;
    n = keep_final(r, ready, n + taken);
    /* What cannot be armed now stays queued for the next poll; the records taken come first. */
    int err = rearm(r, calls);
    return err < 0 && n == 0 ? err : n;
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
    int n = collect(r, ready, capacity, &calls);
    int overflow = __atomic_load_n(r->sq_flags, __ATOMIC_ACQUIRE) & IORING_SQ_CQ_OVERFLOW;
    if (n < 0 || (unsubmitted(r) == 0 && !overflow && (n > 0 || timeout_ms == 0))) {
        pthread_mutex_unlock(&r->lock);
        return n < 0 ? n : n | (calls == 0 ? NS_POLLED_WITHOUT_SYSCALL : 0);
    }

    for (;;) {
        /* Once the deadline has passed, what is queued is still submitted and what completes at
           once taken: the polls armed again for fds that were ready when this call began,
           however late this call gets here. */
        int left = timeout_ms > 0 ? (int)(deadline - now_ms()) : timeout_ms;
        int wait = n == 0 && (timeout_ms < 0 || left > 0);
        unsigned to_submit = unsubmitted(r);
        r->poll_waiting = wait;
        pthread_mutex_unlock(&r->lock);
        struct __kernel_timespec ts = { .tv_sec = left / 1000, .tv_nsec = (left % 1000) * 1000000L };
        int entered = enter(r, to_submit, wait ? 1 : 0, IORING_ENTER_GETEVENTS,
                            wait && timeout_ms > 0 ? &ts : NULL);
        pthread_mutex_lock(&r->lock);
        r->poll_waiting = 0;
        if (entered < 0 && entered != -ETIME && entered != -EINTR && entered != -EBUSY
            && entered != -EAGAIN) {
            n = entered;
            break;
        }
        /* An apply on another thread may have set aside what woke this wait. */
        int taken = take_aside(r, ready + n, capacity - n);
        int completed = take_completions(r, ready + n + taken, capacity - n - taken);
        if (completed < 0) {
            n = completed;
            break;
        }
        n += taken + completed;
        if (n > 0 || !wait || entered == -ETIME)
            break;
        if (entered == -EINTR) {
            n = -EINTR;
            break;
        }
        /* Woken by completions with nothing to report (removals, cancelled polls): arm again
           what was cancelled, and wait on. */
        int err = rearm(r, &calls);
        if (err < 0) {
            n = err;
            break;
        }
    }
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

static int probe_opcodes(int ring_fd)
{
    size_t size = sizeof(struct io_uring_probe) + 256 * sizeof(struct io_uring_probe_op);
    struct io_uring_probe *probe = calloc(1, size);
    if (probe == NULL)
        return -ENOMEM;
    int err = 0;
    if (syscall(__NR_io_uring_register, ring_fd, IORING_REGISTER_PROBE, probe, 256) < 0) {
        err = -errno;
    } else {
        const int needed[] = { IORING_OP_POLL_ADD, IORING_OP_POLL_REMOVE };
        for (size_t i = 0; i < sizeof(needed) / sizeof(needed[0]); i++) {
            if (needed[i] > probe->last_op || !(probe->ops[needed[i]].flags & IO_URING_OP_SUPPORTED))
                err = -EOPNOTSUPP;
        }
    }
    free(probe);
    return err;
}

static int map_rings(struct ns_uring *r, const struct io_uring_params *p)
{
    size_t sq_size = p->sq_off.array + p->sq_entries * sizeof(unsigned);
    size_t cq_size = p->cq_off.cqes + p->cq_entries * sizeof(struct io_uring_cqe);
    size_t ring_map_size = sq_size > cq_size ? sq_size : cq_size;
    void *ring_map = mmap(NULL, ring_map_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
                          r->ring_fd, IORING_OFF_SQ_RING);
    if (ring_map == MAP_FAILED)
        return -errno;
    /* Only mappings that exist are recorded: release() unmaps what is recorded. */
    r->ring_map = ring_map;
    r->ring_map_size = ring_map_size;
    size_t sqes_size = p->sq_entries * sizeof(struct io_uring_sqe);
    void *sqes = mmap(NULL, sqes_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r->ring_fd,
                      IORING_OFF_SQES);
    if (sqes == MAP_FAILED)
        return -errno;
    r->sqes = sqes;
    r->sqes_size = sqes_size;
    char *base = r->ring_map;
    r->sq_head = (unsigned *)(base + p->sq_off.head);
    r->sq_tail = (unsigned *)(base + p->sq_off.tail);
    r->sq_mask = (unsigned *)(base + p->sq_off.ring_mask);
    r->sq_flags = (unsigned *)(base + p->sq_off.flags);
    r->sq_array = (unsigned *)(base + p->sq_off.array);
    r->sq_entries = p->sq_entries;
    r->sq_tail_local = *r->sq_tail;
    r->cq_head = (unsigned *)(base + p->cq_off.head);
    r->cq_tail = (unsigned *)(base + p->cq_off.tail);
    r->cq_mask = (unsigned *)(base + p->cq_off.ring_mask);
    r->cqes = (struct io_uring_cqe *)(base + p->cq_off.cqes);
    return 0;
}

static void release(struct ns_uring *r)
{
    if (r->sqes != NULL)
        munmap(r->sqes, r->sqes_size);
    if (r->ring_map != NULL)
        munmap(r->ring_map, r->ring_map_size);
    /* close(2) of these private fds leaves nothing to undo: both numbers are released. */
    if (r->wakefd >= 0)
        close(r->wakefd);
    if (r->ring_fd >= 0)
        close(r->ring_fd);
    pthread_mutex_destroy(&r->lock);
    free(r->regs);
    free(r->rearm);
    free(r->aside);
    free(r);
}

static int uring_open(int capacity, struct ns_backend **out)
{
    if (capacity < 1)
        return -EINVAL;
    struct ns_uring *r = calloc(1, sizeof(*r));
    if (r == NULL)
        return -ENOMEM;
    r->base.ops = &ns_uring_ops;
    r->ring_fd = -1;
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
    struct io_uring_params p;
    memset(&p, 0, sizeof(p));
    p.flags = IORING_SETUP_CQSIZE | IORING_SETUP_CLAMP;
    p.cq_entries = CQ_ENTRIES;
    r->ring_fd = (int)syscall(__NR_io_uring_setup, SQ_ENTRIES, &p);
    if (r->ring_fd < 0) {
        err = -errno;
        goto fail;
    }
    const unsigned needed = IORING_FEAT_SINGLE_MMAP | IORING_FEAT_NODROP | IORING_FEAT_EXT_ARG
                            | IORING_FEAT_RSRC_TAGS;
    if ((p.features & needed) != needed) {
        err = -EOPNOTSUPP;
        goto fail;
    }
    if ((err = probe_opcodes(r->ring_fd)) < 0 || (err = map_rings(r, &p)) < 0)
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

static void uring_close(struct ns_backend *b)
{
    struct ns_uring *r = ring_of(b);
    /* Remove every poll while the ring is still ours: a pending poll keeps its file open. */
    int calls = 0;
    pthread_mutex_lock(&r->lock);
    int err = 0;
    for (uint32_t slot = 0; slot < r->slots && err == 0; slot++) {
        struct registration *g = &r->regs[slot];
        if (g->armed && !g->removing) {
            g->removing = 1;
            r->removals_pending++;
            err = remove_or_update(r, g->armed_token, 0, 0, &calls);
        }
        g->active = 0;
    }
    /* On failure the ring's teardown cancels what is left, only later. */
    if (err == 0)
        submit_and_await_removals(r, &calls);
    pthread_mutex_unlock(&r->lock);
    release(r);
}

/* Why io_uring could not start, in words a user can act on. */
static const char *setup_failure(int err)
{
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
        return "io_uring ring could not be allocated: raise the locked-memory limit (ulimit -l, "
               "RLIMIT_MEMLOCK), which rings count against before Linux 5.12";
    default:
        return "io_uring backend: open";
    }
}

static const char *uring_failure(enum ns_backend_call call, int err)
{
    switch (call) {
    case NS_CALL_OPEN:
        return setup_failure(err);
    case NS_CALL_APPLY:
        return "io_uring: submitting registration changes";
    case NS_CALL_POLL:
        return err == EBADR ? "io_uring: the kernel dropped completions" : "io_uring_enter";
    default:
        return "io_uring backend: wakeup";
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
    .failure = uring_failure,
};
