/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

/*
 * What the io_uring backend's files share; uring_backend.h tells what the backend does. The files:
 *
 *   uring_ring.c            the ring: setup, mapping, entries, io_uring_enter (uring_ring.h).
 *   uring_registrations.c   the registration table and the requests that keep the kernel's polls
 *                           in step with it: arm, remove (an interest change too), refused ones asked again,
 *                           removals awaited (sync apply, close), the doorbell no-op.
 *   uring_readiness.c       what completions mean: records reported or set aside, polls armed
 *                           again, stale records dropped, the poll's wait.
 *   uring_backend.c         the ops table: open, apply, poll, wakeup, close.
 *
 * Locking: `lock` guards every field of struct ns_uring but base, wakefd and ring.fd, which open
 * sets and nothing changes before close. Every uring_ function declared here runs under the lock;
 * uring_wait_for_readiness drops it around its io_uring_enter, the wait for readiness, and takes
 * it again before it returns; the removal wait of a sync apply or close keeps it (50 ms at most).
 * wakeup writes wakefd without the lock.
 *
 * Who writes what (under the lock):
 *   ring                    uring_ring.c, through its calls.
 *   regs, slots             uring_registrations.c: a registration's token, armed_token, fd, events,
 *                           active, removing and refused, and armed when a poll is armed; it grows
 *                           the table (and rearm with it). uring_readiness.c clears armed and
 *                           removing when it sees a poll end, and owns queued and reported.
 *   removals_pending        counted up by uring_registrations.c, down by uring_readiness.c.
 *   refusals                uring_registrations.c.
 *   rearm, rearm_count, ended_unreported, aside*, wakeup_armed, poll_waiting
 *                           uring_readiness.c (the doorbell reads aside_count, ended_unreported
 *                           and poll_waiting).
 *   poll_calls              uring_backend.c, once per poll.
 */
#ifndef NS_URING_INTERNAL_H
#define NS_URING_INTERNAL_H

#include "ns_backend.h"
#include "uring_ring.h"

#include <pthread.h>
#include <stdint.h>
#include <time.h>

/*
 * user_data of a poll removal: the bit no key's token has (NS_BACKEND_TOKEN_BIT), and
 * the slot of the poll it is about.
 */
#define CONTROL_BIT NS_BACKEND_TOKEN_BIT

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
    uint8_t refused;  /* its removal was refused (EALREADY): to be asked again */
    uint32_t reported; /* the poll call that last reported this fd */
};

struct ns_uring {
    struct ns_backend base;
    struct uring_ring ring;
    int wakefd;
    int wakeup_armed;
    pthread_mutex_t lock;

    struct registration *regs; /* by slot: the low 32 bits of a token */
    uint32_t *rearm;           /* slots whose poll completed */
    uint32_t slots, rearm_count;
    int ended_unreported;      /* a poll of an active registration ended without a record (removed
                                  by an interest change, cancelled) and waits in rearm to be armed */
    uint32_t removals_pending; /* removed polls whose completion has not been seen */
    uint32_t refusals;         /* registrations marked refused */
    uint32_t poll_calls;       /* numbers the poll calls, for registration.reported */

    struct ns_ready *aside;    /* completions taken off the ring by apply, for the next poll */
    uint32_t aside_count, aside_capacity;
    int poll_waiting;          /* a poll waits in io_uring_enter, or is about to */
};

/* uring_registrations.c */
int uring_apply_one(struct ns_uring *r, const struct ns_change *c, int *calls);
int uring_submit_and_await_removals(struct ns_uring *r, int *calls);
void uring_remove_every_poll(struct ns_uring *r);
int uring_arm(struct ns_uring *r, int fd, uint32_t events, uint64_t token, int *calls);
int uring_arm_registration(struct ns_uring *r, struct registration *g, int *calls);
int uring_ask_again(struct ns_uring *r, int *calls);
void uring_control_completed(struct ns_uring *r, uint32_t slot, int res);

/* uring_readiness.c */
int uring_take_completions(struct ns_uring *r, struct ns_ready *out, int capacity);
int uring_collect(struct ns_uring *r, struct ns_ready *ready, int capacity, int *calls);
int uring_wait_for_readiness(struct ns_uring *r, struct ns_ready *ready, int capacity, int n,
                             int timeout_ms, int64_t deadline, int *calls);

static inline int64_t now_ms(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

#endif
