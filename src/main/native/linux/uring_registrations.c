/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

#include "uring_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* user_data of the no-op that ends a poll's wait when an apply has set completions aside. */
#define DOORBELL_TOKEN (CONTROL_BIT | UINT32_MAX)

static uint32_t poll_events(uint32_t events)
{
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    events = (events << 16) | (events >> 16);
#endif
    return events;
}

int uring_arm(struct ns_uring *r, int fd, uint32_t events, uint64_t token, int *calls)
{
    struct io_uring_sqe *sqe;
    int err = ring_next_sqe(&r->ring, calls, &sqe);
    if (err < 0)
        return err;
    sqe->opcode = IORING_OP_POLL_ADD;
    sqe->fd = fd;
    sqe->poll32_events = poll_events(events);
    sqe->user_data = token;
    return 0;
}

/* Arms the registration's poll; it is marked armed only once its entry is queued. */
int uring_arm_registration(struct ns_uring *r, struct registration *g, int *calls)
{
    int err = uring_arm(r, g->fd, g->events, g->token, calls);
    if (err == 0) {
        g->armed = 1;
        g->armed_token = g->token;
    }
    return err;
}

/*
 * Removes the poll with this token. An interest change removes the poll too, and arms a new one
 * when the old one's end is seen, rather than change its events with IORING_POLL_UPDATE_EVENTS:
 * from Linux 6.0 until the fix of December 2025 (84230ad2d2af, and the stable kernels that took
 * it), an update that made the poll ready at once completed it without posting its completion,
 * which left the key unpolled for good.
 */
static int remove_poll(struct ns_uring *r, uint64_t token, int *calls)
{
    struct io_uring_sqe *sqe;
    int err = ring_next_sqe(&r->ring, calls, &sqe);
    if (err < 0)
        return err;
    sqe->opcode = IORING_OP_POLL_REMOVE;
    sqe->fd = -1;
    sqe->addr = token;
    sqe->user_data = CONTROL_BIT | (uint32_t)token;
    return 0;
}

/* Removes the registration's armed poll, unless none is armed or it is being removed; counted
   until its completion is seen. */
static int remove_armed(struct ns_uring *r, struct registration *wanted, int *calls)
{
    if (!wanted->armed || wanted->removing)
        return 0;
    int err = remove_poll(r, wanted->armed_token, calls);
    if (err == 0) {
        wanted->removing = 1;
        r->removals_pending++;
    }
    return err;
}

/*
 * Under the lock: the answer to a removal. EALREADY means the poll was being woken on the thread
 * that armed it; that thread's task work then either completes the poll or, if the fd is no
 * longer ready, arms it again, and the request is lost: it is asked again.
 */
void uring_control_completed(struct ns_uring *r, uint32_t slot, int res)
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
 * Under the lock: asks again for the removals refused so far, of the poll as it was armed: the
 * slot may have a new key by now, whose poll waits for the old one to end.
 */
int uring_ask_again(struct ns_uring *r, int *calls)
{
    for (uint32_t slot = 0; slot < r->slots && r->refusals > 0; slot++) {
        struct registration *g = &r->regs[slot];
        if (!g->refused)
            continue;
        if (g->armed) {
            int err = remove_poll(r, g->armed_token, calls);
            if (err < 0)
                return err;
        }
        g->refused = 0;
        r->refusals--;
    }
    return 0;
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

/*
 * Under the lock: submits what is queued and waits, for at most REMOVAL_WAIT_MS, until every
 * removed poll has completed. A cancelled poll completes in the task that submitted it; when that
 * thread is slow to run its task work the wait gives up: the poll is already disarmed, its
 * completion is recognised whenever it comes, and only the release of the file is later.
 */
#define REMOVAL_WAIT_MS 50

static int await_removals(struct ns_uring *r, int *calls)
{
    ring_publish(&r->ring);
    if (ring_unsubmitted(&r->ring) > 0) {
        int n = ring_enter(&r->ring, ring_unsubmitted(&r->ring), 0, 0, NULL);
        (*calls)++;
        if (n < 0)
            return n;
    }
    int64_t deadline = now_ms() + REMOVAL_WAIT_MS;
    for (;;) {
        int n = uring_take_completions(r, NULL, 0);
        if (n < 0)
            return n;
        int64_t left = deadline - now_ms();
        if (r->removals_pending == 0 || left <= 0)
            return 0;
        if (r->refusals > 0) {
            /* Give the thread that armed the refused polls a moment to run its task work. */
            struct __kernel_timespec pause = { .tv_sec = 0, .tv_nsec = 1000000L };
            n = ring_enter(&r->ring, 0, 1, IORING_ENTER_GETEVENTS, &pause);
            (*calls)++;
            if (n < 0 && n != -EINTR && n != -ETIME)
                return n;
            if ((n = uring_take_completions(r, NULL, 0)) < 0 || (n = uring_ask_again(r, calls)) < 0)
                return n;
            ring_publish(&r->ring);
            continue;
        }
        struct __kernel_timespec ts = { .tv_sec = 0, .tv_nsec = left * 1000000L };
        n = ring_enter(&r->ring, ring_unsubmitted(&r->ring), 1, IORING_ENTER_GETEVENTS, &ts);
        (*calls)++;
        if (n < 0 && n != -EINTR && n != -ETIME)
            return n;
    }
}

/*
 * Under the lock: a poll waiting in io_uring_enter waits for completions in the ring, and those
 * this apply took off it (set aside, or the end of a poll that an interest change removed) are no
 * longer there: a no-op request puts one back, which ends the wait. Then the poll takes what was
 * set aside and arms what waits to be armed. (It is rung after every apply that finds either
 * while a poll waits: a later apply may have taken the no-op off the ring before the poll saw it.)
 */
static int sound_doorbell(struct ns_uring *r, int *calls)
{
    if (!r->poll_waiting || (r->aside_count == 0 && !r->ended_unreported))
        return 0;
    struct io_uring_sqe *sqe;
    int err = ring_next_sqe(&r->ring, calls, &sqe);
    if (err < 0)
        return err;
    sqe->opcode = IORING_OP_NOP;
    sqe->user_data = DOORBELL_TOKEN;
    ring_publish(&r->ring);
    int n = ring_enter(&r->ring, ring_unsubmitted(&r->ring), 0, 0, NULL);
    (*calls)++;
    return n < 0 ? n : 0;
}

int uring_submit_and_await_removals(struct ns_uring *r, int *calls)
{
    int err = await_removals(r, calls);
    int rung = sound_doorbell(r, calls);
    return err < 0 ? err : rung;
}

int uring_apply_one(struct ns_uring *r, const struct ns_change *c, int *calls)
{
    uint32_t slot = (uint32_t)c->token;
    int err = ensure_slot(r, slot);
    if (err < 0)
        return err;
    struct registration *g = &r->regs[slot];
    /* A change whose request cannot be queued leaves the registration as it was. */
    struct registration wanted = *g;
    /* A poll for no events would still complete on an error or hang-up, at every poll: no events
       is a removal here. */
    int op = c->op != NS_OP_DEL && c->events == 0 ? NS_OP_DEL : c->op;
    switch (op) {
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
        if (!g->armed && !g->queued)
            err = uring_arm_registration(r, &wanted, calls);
        else
            err = remove_armed(r, &wanted, calls);
        /* Else armed with the new events once the old poll's completion is seen. */
        break;
    case NS_OP_DEL:
        /* Absent, or already removed, is the goal. */
        if (!g->active || g->token != c->token)
            return 0;
        wanted.active = 0;
        err = remove_armed(r, &wanted, calls);
        break;
    default:
        return -EINVAL;
    }
    if (err == 0)
        *g = wanted;
    return err;
}

/*
 * Under the lock: removes every armed poll while the ring is still the backend's, a pending poll
 * keeping its file open, and awaits the removals. On failure the ring's teardown cancels what is
 * left, only later.
 */
void uring_remove_every_poll(struct ns_uring *r)
{
    int calls = 0;
    int err = 0;
    for (uint32_t slot = 0; slot < r->slots && err == 0; slot++) {
        struct registration *g = &r->regs[slot];
        err = remove_armed(r, g, &calls);
        g->active = 0;
    }
    if (err == 0)
        uring_submit_and_await_removals(r, &calls);
}
