/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

#include "uring_internal.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define REPORTED_EVENTS (NS_IN | NS_OUT | NS_ERR | NS_HUP | NS_NVAL)

static void drain_wakeup(struct ns_uring *r)
{
    uint64_t value;
    /* EAGAIN: already empty. Nothing else can fail on this private non-blocking eventfd, and
       the wakeup is reported either way so that the caller's latch is reset. */
    if (read(r->wakefd, &value, sizeof(value)) < 0 && errno != EAGAIN)
        return;
}

/* Under the lock: what one completion means; 1 when it is a record to report. */
static int complete(struct ns_uring *r, const struct io_uring_cqe *cqe, struct ns_ready *record)
{
    uint64_t token = cqe->user_data;
    if (token != NS_WAKEUP_TOKEN && (token & CONTROL_BIT)) {
        uring_control_completed(r, (uint32_t)token, cqe->res);
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
    /* A removal refused of this poll has nothing left to remove. */
    if (g->refused) {
        g->refused = 0;
        r->refusals--;
    }
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
    if (!current || cqe->res == -ECANCELED) {
        r->ended_unreported = 1;
        return 0;
    }
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
int uring_take_completions(struct ns_uring *r, struct ns_ready *out, int capacity)
{
    unsigned head = ring_cq_head(&r->ring);
    unsigned tail = ring_cq_tail(&r->ring);
    int n = 0, err = 0;
    while (head != tail && (out == NULL || n < capacity)) {
        struct ns_ready record;
        if (complete(r, ring_cqe(&r->ring, head), &record)) {
            if (out != NULL)
                out[n++] = mark_reported(r, record);
            else if ((err = set_aside(r, &record)) < 0)
                break;
        }
        head++;
    }
    ring_cq_advance(&r->ring, head);
    return err < 0 ? err : n;
}

/*
 * Under the lock: arms again the polls that completed, and the wakeup poll. A poll reported by
 * this very call waits for the next one: arming it now could report the same fd twice in one
 * select.
 */
static int rearm(struct ns_uring *r, int *calls)
{
    int err = uring_ask_again(r, calls);
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
            if (g->active && !g->armed && (err = uring_arm_registration(r, g, calls)) < 0)
                continue;
            g->queued = 0;
        }
    }
    for (uint32_t i = 0; i < r->rearm_count; i++) {
        if (r->regs[r->rearm[i]].queued)
            r->rearm[kept++] = r->rearm[i];
    }
    r->rearm_count = kept;
    if (err == 0)
        r->ended_unreported = 0;
    if (err == 0 && !r->wakeup_armed && (err = uring_arm(r, r->wakefd, POLLIN, NS_WAKEUP_TOKEN, calls)) == 0)
        r->wakeup_armed = 1;
    ring_publish(&r->ring);
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
int uring_collect(struct ns_uring *r, struct ns_ready *ready, int capacity, int *calls)
{
    int n = take_aside(r, ready, capacity);
    int taken = uring_take_completions(r, ready + n, capacity - n);
    if (taken < 0)
        return taken;
    n = keep_final(r, ready, n + taken);
    /* What cannot be armed now stays queued for the next poll; the records taken come first. */
    int err = rearm(r, calls);
    return err < 0 && n == 0 ? err : n;
}

/*
 * Under the lock, which it drops for the io_uring_enter that submits what is queued and, while
 * the `n` records already in `ready` are none and the deadline (timeout_ms > 0) has not passed,
 * waits for completions. Returns the records in `ready` then, -EINTR or -errno.
 */
int uring_wait_for_readiness(struct ns_uring *r, struct ns_ready *ready, int capacity, int n,
                             int timeout_ms, int64_t deadline, int *calls)
{
    /* The polls an interest change removed during this call are armed again, once, before it
       returns, and what they complete with at once is taken too: the select reports the new
       interest, whatever else it has to report. */
    int armed_removed = 0;
    for (;;) {
        /* Once the deadline has passed, what is queued is still submitted and what completes at
           once taken: the polls armed again for fds that were ready when this call began,
           however late this call gets here. */
        int left = timeout_ms > 0 ? (int)(deadline - now_ms()) : timeout_ms;
        int wait = n == 0 && (timeout_ms < 0 || left > 0);
        unsigned to_submit = ring_unsubmitted(&r->ring);
        r->poll_waiting = wait;
        pthread_mutex_unlock(&r->lock);
        struct __kernel_timespec ts = { .tv_sec = left / 1000, .tv_nsec = (left % 1000) * 1000000L };
        int entered = ring_enter(&r->ring, to_submit, wait ? 1 : 0, IORING_ENTER_GETEVENTS,
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
        int completed = uring_take_completions(r, ready + n + taken, capacity - n - taken);
        if (completed < 0) {
            n = completed;
            break;
        }
        n += taken + completed;
        int ending = n > 0 || !wait || entered == -ETIME;
        if (ending && (armed_removed || n == capacity || !r->ended_unreported))
            break;
        if (!ending && entered == -EINTR) {
            n = -EINTR;
            break;
        }
        /* Armed now, the removed polls are checked by the next io_uring_enter, which does not
           wait when this one was to end; woken by completions with nothing to report (removals,
           cancelled polls), this one arms again what was cancelled, and waits on. */
        armed_removed = ending;
        int err = rearm(r, calls);
        if (err < 0) {
            /* The records taken are gone from the ring: they are returned, the error left for a
               call with none. */
            if (n == 0)
                n = err;
            break;
        }
    }
    return n;
}
