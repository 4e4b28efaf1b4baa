/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

/*
 * What only the io_uring backend does (linux/uring_backend.h), one static function per documented
 * behaviour: changes left for the poll to submit, completions that waited in the ring or were set
 * aside, polls armed again, what a refused submission leaves, slots and generations, polls owned
 * by threads. What every backend does is tested by backend_contract_test.c. Prints "N passed,
 * M failed" (tests, not checks) and exits non-zero on failure.
 *
 * A machine that refuses io_uring (io_uring_setup fails with EPERM under a seccomp profile or
 * sysctl kernel.io_uring_disabled, ENOSYS without io_uring, EINVAL/EOPNOTSUPP on too old a kernel)
 * fails this program with a message saying so, unless NATIVESELECTOR_NO_IO_URING=1
 * (backend_testable in backend_test_support.h).
 */
#include "uring_backend.h"
#include "backend_test_support.h"
#include "uring_syscall_seam.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/*
 * ---- seams ----
 * This program is linked with --wrap for pthread_mutex_unlock, syscall, mmap and munmap
 * (CMakeLists.txt): the backend's calls to them come here first, so that a test can act at a
 * chosen moment or make a call fail. Unless a test asks for more, each passes the call on.
 */

/* Runs once, right after the next pthread_mutex_unlock on the thread that set it: the moment a
   poll has dropped the backend's lock and is about to wait in the kernel. */
static _Thread_local void (*after_next_unlock)(void *);
static _Thread_local void *after_next_unlock_arg;

int __real_pthread_mutex_unlock(pthread_mutex_t *mutex);
int __wrap_pthread_mutex_unlock(pthread_mutex_t *mutex);
int __wrap_pthread_mutex_unlock(pthread_mutex_t *mutex)
{
    int rc = __real_pthread_mutex_unlock(mutex);
    void (*hook)(void *) = after_next_unlock;
    if (hook != NULL) {
        after_next_unlock = NULL;
        hook(after_next_unlock_arg);
    }
    return rc;
}

/* The errno the next io_uring_enter on this thread fails with, without entering; 0: it enters. */
static _Thread_local int next_enter_fails_with;
/* How many io_uring_enter calls after that one fail with the same errno. */
static _Thread_local int more_enters_fail;

/* io_uring_enter, failing when a test asked for it (uring_syscall_seam.h). */
static long on_io_uring_enter(int fd, unsigned to_submit, unsigned min_complete, unsigned flags, void *arg,
                              size_t size)
{
    if (next_enter_fails_with != 0) {
        errno = next_enter_fails_with;
        if (more_enters_fail > 0)
            more_enters_fail--;
        else
            next_enter_fails_with = 0;
        return -1;
    }
    return __real_syscall(__NR_io_uring_enter, fd, to_submit, min_complete, flags, arg, size);
}

static long on_io_uring_setup(unsigned entries, struct io_uring_params *params)
{
    return __real_syscall(__NR_io_uring_setup, entries, params);
}

/*
 * The mappings the backend holds. An munmap of anything else is counted in wrong_unmaps and not
 * done: it could unmap memory mapped since by someone else. Rings are opened and closed on the
 * main thread only.
 */
#define MAX_MAPPINGS 16
static struct mapping {
    void *address;
    size_t length;
} mappings[MAX_MAPPINGS];
static int mapping_count, wrong_unmaps;
/* The mmap after this many more fails with ENOMEM; -1: none fails. */
static int mmaps_before_failure = -1;

void *__real_mmap(void *address, size_t length, int prot, int flags, int fd, off_t offset);
void *__wrap_mmap(void *address, size_t length, int prot, int flags, int fd, off_t offset);
void *__wrap_mmap(void *address, size_t length, int prot, int flags, int fd, off_t offset)
{
    if (mmaps_before_failure == 0) {
        mmaps_before_failure = -1;
        errno = ENOMEM;
        return MAP_FAILED;
    }
    if (mmaps_before_failure > 0)
        mmaps_before_failure--;
    void *mapped = __real_mmap(address, length, prot, flags, fd, offset);
    if (mapped != MAP_FAILED) {
        CHECK(mapping_count < MAX_MAPPINGS);
        if (mapping_count < MAX_MAPPINGS)
            mappings[mapping_count++] = (struct mapping){ mapped, length };
    }
    return mapped;
}

int __real_munmap(void *address, size_t length);
int __wrap_munmap(void *address, size_t length);
int __wrap_munmap(void *address, size_t length)
{
    for (int i = 0; i < mapping_count; i++) {
        if (mappings[i].address == address && mappings[i].length == length) {
            mappings[i] = mappings[--mapping_count];
            return __real_munmap(address, length);
        }
    }
    wrong_unmaps++;
    errno = EINVAL;
    return -1;
}

/* ---- open ---- */

/*
 * A mapping refused at open (vm.max_map_count reached, say): the open fails with the errno, and
 * each mapping it made is unmapped once, whichever of the two failed.
 */
static void test_open_unmaps_each_mapping_once_when_one_fails(void)
{
    int fds = count_fds();
    for (int mapped_first = 0; mapped_first < 2; mapped_first++) {
        mmaps_before_failure = mapped_first;
        struct ns_backend *r = NULL;
        int rc = ns_uring_ops.open(8, 0, &r);
        CHECK(mmaps_before_failure == -1); /* the failure came */
        CHECK(rc == -ENOMEM);
        CHECK(r == NULL);
        CHECK(wrong_unmaps == 0);
        CHECK(mapping_count == 0);
        if (wrong_unmaps != 0 || mapping_count != 0)
            fprintf(stderr, "  with mmap %d refused: %d unmaps of memory not mapped, %d mappings left\n",
                    mapped_first + 1, wrong_unmaps, mapping_count);
        wrong_unmaps = 0;
    }
    mmaps_before_failure = -1;
    CHECK(count_fds() == fds);
}

/* ---- changes ---- */

/*
 * A MOD left for the poll to submit, as the selector's own flush does. The IN completion that came before the MOD may still be reported once (the poll that submits the MOD
 * finds it in the ring); after that, only what is asked for now: OUT.
 */
static void test_mod_to_out_not_sync(void)
{
    struct ns_backend *r = open_backend(&ns_uring_ops, 8);
    int sv[2], error = -1;
    make_pair(sv);
    apply_ok(r, NS_OP_ADD, sv[0], NS_IN, TOKEN_A);
    expect_none(r);
    put_byte(sv[1]);
    CHECK(apply1(r, NS_OP_MOD, sv[0], NS_OUT, TOKEN_A, 0, &error) == 0);
    CHECK(error == 0);
    long deadline = now_ms() + READY_WAIT_MS;
    int outs = 0, ins = 0;
    while (outs < 3 && now_ms() < deadline) {
        struct ns_ready ready[8];
        int n = poll_records(r, ready, 8, READY_WAIT_MS, NULL);
        for (int i = 0; i < n; i++) {
            CHECK(ready[i].token == TOKEN_A);
            if (ready[i].events & NS_IN) {
                CHECK(outs == 0); /* only before the first OUT */
                ins++;
            }
            if (ready[i].events & NS_OUT)
                outs++;
        }
    }
    CHECK(ins <= 1);
    CHECK(outs == 3);
    close_pair(sv);
    ns_uring_ops.close(r);
}

/*
 * Registrations are kept by slot (the token's low 32 bits) and generation. A DEL of a slot beyond
 * the table's initial size, or of an older generation of a registered slot, is error 0, and the
 * registration of the slot stays.
 */
static void test_del_of_other_slot_or_generation_is_error_0(void)
{
    struct ns_backend *r = open_backend(&ns_uring_ops, 8);
    int sv[2], error = -1;
    make_pair(sv);
    CHECK(apply1(r, NS_OP_DEL, sv[0], 0, UINT64_C(0x0000000100100000), 1, &error) >= 0);
    CHECK(error == 0);
    apply_ok(r, NS_OP_ADD, sv[0], NS_IN, TOKEN_B);
    error = -1;
    CHECK(apply1(r, NS_OP_DEL, sv[0], 0, TOKEN_A, 1, &error) >= 0);
    CHECK(error == 0);
    put_byte(sv[1]);
    expect_one(r, TOKEN_B, NS_IN);
    close_pair(sv);
    ns_uring_ops.close(r);
}

/* ---- completions that waited in the ring ---- */

/*
 * A completion tells what its fd was ready for when it completed; a poll reports what the fd is
 * ready for now. Here the completions are posted while nothing waits (the polls were armed by
 * this thread, so the peer's write posts them on its way back to user space), then the data is
 * read before the poll: nothing is reported, and the polls are armed again.
 */
static void test_completion_for_readiness_gone_is_not_reported(void)
{
    struct ns_backend *r = open_backend(&ns_uring_ops, 8);
    int sv[2];
    make_pair(sv);
    apply_ok(r, NS_OP_ADD, sv[0], NS_IN, TOKEN_A);
    struct ns_ready ready[4];
    CHECK(poll_records(r, ready, 4, 0, NULL) == 0);
    put_byte(sv[1]);
    sleep_ms(10);
    CHECK(drain_socket(sv[0]) == 1);
    CHECK(poll_records(r, ready, 4, 0, NULL) == 0);
    expect_none(r);
    put_byte(sv[1]);
    expect_one(r, TOKEN_A, NS_IN);
    close_pair(sv);
    ns_uring_ops.close(r);
}

/* A completion for part of the interest, then the rest becomes ready: the poll reports both. */
static void test_completion_reports_what_is_ready_now(void)
{
    struct ns_backend *r = open_backend(&ns_uring_ops, 8);
    int sv[2];
    make_pair(sv);
    /* Writable at once: the poll completes with POLLOUT alone, before the data comes. */
    apply_ok(r, NS_OP_ADD, sv[0], NS_IN | NS_OUT, TOKEN_A);
    sleep_ms(10);
    put_byte(sv[1]);
    struct ns_ready ready[4];
    int n = poll_records(r, ready, 4, READY_WAIT_MS, NULL);
    CHECK(n == 1);
    CHECK(n == 1 && ready[0].token == TOKEN_A && ready[0].events == (NS_IN | NS_OUT));
    close_pair(sv);
    ns_uring_ops.close(r);
}

static void stall_longer_than_timeout(void *unused)
{
    (void)unused;
    sleep_ms(20);
}

/*
 * A completion in the ring when a timed poll begins has its poll armed again and checked, however
 * late the poll gets to that: here the poll loses the CPU, right after arming it again, for longer
 * than its whole timeout, as on a busy machine. The socket was writable when the poll began and
 * still is: it is reported.
 */
static void test_completion_checked_again_after_timeout_passed(void)
{
    struct ns_backend *r = open_backend(&ns_uring_ops, 8);
    int sv[2];
    make_pair(sv);
    apply_ok(r, NS_OP_ADD, sv[0], NS_IN | NS_OUT, TOKEN_A); /* writable: completes at once */
    after_next_unlock = stall_longer_than_timeout;
    struct ns_ready ready[4];
    int n = poll_records(r, ready, 4, 1, NULL);
    CHECK(after_next_unlock == NULL); /* the stall came */
    CHECK(n == 1);
    CHECK(n == 1 && ready[0].token == TOKEN_A && ready[0].events == NS_OUT);
    close_pair(sv);
    ns_uring_ops.close(r);
}

/* Nothing to submit and nothing in the ring: a poll that does not wait makes no system call. */
static void test_idle_poll_without_wait_needs_no_call(void)
{
    struct ns_backend *r = open_backend(&ns_uring_ops, 8);
    int sv[2], no_syscall = -1;
    make_pair(sv);
    apply_ok(r, NS_OP_ADD, sv[0], NS_IN, TOKEN_A);
    struct ns_ready ready[4];
    /* The first poll arms the wakeup poll: a system call, so no flag. */
    CHECK(poll_records(r, ready, 4, 0, &no_syscall) == 0);
    CHECK(no_syscall == 0);
    CHECK(poll_records(r, ready, 4, 0, &no_syscall) == 0);
    CHECK(no_syscall == 1);
    close_pair(sv);
    ns_uring_ops.close(r);
}

struct apply_args {
    struct ns_backend *r;
    struct ns_change change;
    int sync;
    int result;
};

static void *apply_on_thread(void *arg)
{
    struct apply_args *a = arg;
    a->result = ns_uring_ops.apply(a->r, &a->change, 1, a->sync);
    return NULL;
}

/*
 * "(or set aside by an apply on another thread)": a sync apply takes completions off the ring;
 * they are checked again like completions in the ring.
 */
/* A sync apply of one change on a thread of its own, expected to succeed: the system calls it made. */
static int sync_apply_on_thread(struct ns_backend *r, struct ns_change change)
{
    struct apply_args a = { .r = r, .change = change, .sync = 1, .result = -1 };
    pthread_t t;
    CHECK(pthread_create(&t, NULL, apply_on_thread, &a) == 0);
    CHECK(pthread_join(t, NULL) == 0);
    CHECK(a.change.error == 0);
    return a.result;
}

/*
 * A sync DEL of a token that is not registered, on a thread of its own: it takes every completion
 * off the ring and sets it aside. Returns the apply's result (the system calls it made).
 */
static int set_aside_on_thread(struct ns_backend *r)
{
    return sync_apply_on_thread(r, (struct ns_change){ .token = TOKEN_D, .fd = closed_fd(), .op = NS_OP_DEL,
                                                       .error = -1 });
}

static void test_completions_set_aside_are_checked_again(void)
{
    struct ns_backend *r = open_backend(&ns_uring_ops, 8);
    int sv[2], other[2];
    make_pair(sv);
    make_pair(other);
    apply_ok(r, NS_OP_ADD, sv[0], NS_IN, TOKEN_A);
    apply_ok(r, NS_OP_ADD, other[0], NS_IN, TOKEN_C);
    struct ns_ready ready[4];
    CHECK(poll_records(r, ready, 4, 0, NULL) == 0);
    put_byte(sv[1]);
    put_byte(other[1]);
    sleep_ms(10);
    /* Nothing to submit: no system call. */
    CHECK(set_aside_on_thread(r) == 0);
    CHECK(drain_socket(other[0]) == 1);
    expect_one(r, TOKEN_A, NS_IN);
    close_pair(sv);
    close_pair(other);
    ns_uring_ops.close(r);
}

struct set_aside_during_wait {
    struct ns_backend *r;
    int peer; /* written to, or -1: the ring is woken instead */
};

/* Something becomes ready, and a sync apply on another thread takes its completion off the ring. */
static void ready_then_set_aside(void *arg)
{
    struct set_aside_during_wait *w = arg;
    if (w->peer >= 0)
        put_byte(w->peer);
    else
        CHECK(ns_uring_ops.wakeup(w->r) == 0);
    CHECK(set_aside_on_thread(w->r) >= 0);
}

/*
 * A completion set aside by an apply while a poll is about to wait (it has dropped the lock, not
 * yet entered the kernel) ends that wait: first an fd's readiness, then a wakeup, whose poll is
 * not armed again until a poll takes its record, so that only the record can end the wait.
 */
static void test_completion_set_aside_as_poll_waits_ends_the_wait(void)
{
    struct ns_backend *r = open_backend(&ns_uring_ops, 8);
    int sv[2];
    make_pair(sv);
    apply_ok(r, NS_OP_ADD, sv[0], NS_IN, TOKEN_A);
    struct ns_ready ready[4];
    CHECK(poll_records(r, ready, 4, 0, NULL) == 0); /* the wakeup poll armed, by this thread */
    struct set_aside_during_wait cases[2] = { { r, sv[1] }, { r, -1 } };
    for (int i = 0; i < 2; i++) {
        after_next_unlock = ready_then_set_aside;
        after_next_unlock_arg = &cases[i];
        long start = now_ms();
        int n = poll_records(r, ready, 4, READY_WAIT_MS, NULL);
        long waited = now_ms() - start;
        uint64_t token = cases[i].peer >= 0 ? TOKEN_A : NS_WAKEUP_TOKEN;
        CHECK(after_next_unlock == NULL);
        CHECK(n == 1);
        CHECK(n == 1 && ready[0].token == token && ready[0].events == NS_IN);
        CHECK(waited < READY_WAIT_MS);
        if (waited >= READY_WAIT_MS)
            fprintf(stderr, "  the poll slept until its timeout with the %s record set aside\n",
                    cases[i].peer >= 0 ? "fd's" : "wakeup");
        if (cases[i].peer >= 0) {
            CHECK(drain_socket(sv[0]) == 1);
            /* Its poll armed again by this thread, not by the next apply (whose thread ends). */
            CHECK(poll_records(r, ready, 4, 0, NULL) == 0);
        }
    }
    close_pair(sv);
    ns_uring_ops.close(r);
}

struct change_during_wait {
    struct ns_backend *r;
    int fd;
};

/* A sync MOD of TOKEN_A's registration to NS_OUT, on a thread of its own. */
static void mod_to_out_on_thread(void *arg)
{
    struct change_during_wait *w = arg;
    sync_apply_on_thread(w->r, (struct ns_change){ .token = TOKEN_A, .fd = w->fd, .events = NS_OUT,
                                                   .op = NS_OP_MOD, .error = -1 });
}

/*
 * An interest change made by a sync apply on another thread while a poll is about to wait (it has
 * dropped the lock, not yet entered the kernel): the apply takes the end of the poll it removed
 * off the ring, so the waiting poll is woken to arm the new one, which reports the fd at once.
 */
static void test_interest_change_as_poll_waits_ends_the_wait(void)
{
    struct ns_backend *r = open_backend(&ns_uring_ops, 8);
    int sv[2];
    make_pair(sv);
    apply_ok(r, NS_OP_ADD, sv[0], NS_IN, TOKEN_A);
    struct ns_ready ready[4];
    CHECK(poll_records(r, ready, 4, 0, NULL) == 0); /* A's poll armed, by this thread */
    struct change_during_wait w = { r, sv[0] };
    after_next_unlock = mod_to_out_on_thread;
    after_next_unlock_arg = &w;
    long start = now_ms();
    int n = poll_records(r, ready, 4, READY_WAIT_MS, NULL);
    long waited = now_ms() - start;
    CHECK(after_next_unlock == NULL);
    CHECK(n == 1 && ready[0].token == TOKEN_A && ready[0].events == NS_OUT);
    CHECK(waited < READY_WAIT_MS);
    close_pair(sv);
    ns_uring_ops.close(r);
}

/* ---- apply: sync and not ---- */

static void test_nonsync_add_then_poll(void)
{
    struct ns_backend *r = open_backend(&ns_uring_ops, 8);
    int sv[2], error = -1;
    make_pair(sv);
    put_byte(sv[1]);
    CHECK(apply1(r, NS_OP_ADD, sv[0], NS_IN, TOKEN_A, 0, &error) == 0);
    CHECK(error == 0);
    expect_one(r, TOKEN_A, NS_IN);
    /* not yet readable, then readable */
    error = -1;
    CHECK(apply1(r, NS_OP_ADD, sv[1], NS_IN, TOKEN_C, 0, &error) == 0);
    CHECK(error == 0);
    CHECK(drain_socket(sv[0]) == 1);
    expect_none(r);
    put_byte(sv[0]);
    expect_one(r, TOKEN_C, NS_IN);
    close_pair(sv);
    ns_uring_ops.close(r);
}

static void test_sync_apply_makes_calls(void)
{
    struct ns_backend *r = open_backend(&ns_uring_ops, 8);
    int sv[2];
    make_pair(sv);
    /* The socket is never readable: the poll stays armed, so each change has a poll to act on
       (after the MOD's removal, once the poll has armed the new one). */
    CHECK(apply_ok(r, NS_OP_ADD, sv[0], NS_IN, TOKEN_A) >= 1);
    CHECK(apply_ok(r, NS_OP_MOD, sv[0], NS_IN | NS_HUP, TOKEN_A) >= 1);
    expect_none(r);
    CHECK(apply_ok(r, NS_OP_DEL, sv[0], 0, TOKEN_A) >= 1);
    /* A sync apply with nothing to submit makes no call. */
    CHECK(apply_ok(r, NS_OP_DEL, sv[0], 0, TOKEN_A) == 0);
    close_pair(sv);
    ns_uring_ops.close(r);
}

/*
 * An interest change of an armed poll removes it and arms one for the new events once its end is
 * seen, never an in-place update (whose completion Linux 6.0 until a fix of December 2025 could
 * lose when the update made the poll ready): the sync apply awaits that end, so that the next
 * one has no removal left to wait for and makes one call.
 */
static void test_mod_of_armed_poll_removes_it_and_arms_another(void)
{
    struct ns_backend *r = open_backend(&ns_uring_ops, 8);
    int sv[2], other[2];
    make_pair(sv);
    make_pair(other);
    apply_ok(r, NS_OP_ADD, sv[0], NS_IN, TOKEN_A);
    expect_none(r);
    CHECK(apply_ok(r, NS_OP_MOD, sv[0], NS_OUT, TOKEN_A) >= 1);
    CHECK(apply_ok(r, NS_OP_ADD, other[0], NS_IN, TOKEN_D) == 1);
    expect_one(r, TOKEN_A, NS_OUT);
    int error = -1;
    CHECK(apply1(r, NS_OP_MOD, sv[0], NS_IN, TOKEN_A, 0, &error) == 0 && error == 0);
    expect_none(r);
    /* Not sync, and a poll that does not wait: that poll submits the removal, sees its end, and
       arms and checks the new poll before it returns. */
    CHECK(apply1(r, NS_OP_MOD, sv[0], NS_OUT, TOKEN_A, 0, &error) == 0 && error == 0);
    struct ns_ready ready[4];
    CHECK(poll_records(r, ready, 4, 0, NULL) == 1);
    CHECK(ready[0].token == TOKEN_A && ready[0].events == NS_OUT);
    /* The same when the poll has another record to report: both come back. */
    CHECK(apply1(r, NS_OP_MOD, sv[0], NS_IN, TOKEN_A, 0, &error) == 0 && error == 0);
    expect_none(r);
    CHECK(apply1(r, NS_OP_MOD, other[0], NS_OUT, TOKEN_D, 0, &error) == 0 && error == 0);
    expect_one(r, TOKEN_D, NS_OUT);
    CHECK(apply1(r, NS_OP_MOD, sv[0], NS_OUT, TOKEN_A, 0, &error) == 0 && error == 0);
    CHECK(poll_records(r, ready, 4, 0, NULL) == 2);
    CHECK(ready[0].token != ready[1].token);
    CHECK(ready[0].events == NS_OUT && ready[1].events == NS_OUT);
    apply_ok(r, NS_OP_DEL, other[0], 0, TOKEN_D);
    close_pair(other);
    close_pair(sv);
    ns_uring_ops.close(r);
}

/* ---- files held by armed polls ---- */

/*
 * A pending poll holds a reference to its file: a socket closed while its poll is armed lives on,
 * and the peer sees no end of stream until the DEL (after which it does, backend_contract_test.c).
 */
static void test_socket_closed_while_armed_lives_until_del(void)
{
    struct ns_backend *r = open_backend(&ns_uring_ops, 8);
    int sv[2];
    make_pair(sv);
    apply_ok(r, NS_OP_ADD, sv[0], NS_IN, TOKEN_C);
    expect_none(r); /* the poll is armed in the kernel, holding the socket */
    close(sv[0]);
    CHECK(!readable_within(sv[1], 100));
    apply_ok(r, NS_OP_DEL, sv[0], 0, TOKEN_C);
    expect_end_of_stream(sv[1]);
    close(sv[1]);
    expect_none(r);
    ns_uring_ops.close(r);
}

/* ---- a submission the kernel refuses ---- */

/* The backend's submission ring holds this many entries. */
#define SUBMISSION_RING 256

/* Fills the submission ring: `count` ADDs on fd, slots 100 and up, not submitted yet. */
static void queue_adds(struct ns_backend *r, int fd, int count)
{
    static struct ns_change batch[SUBMISSION_RING];
    for (int i = 0; i < count; i++)
        batch[i] = (struct ns_change){ .token = UINT64_C(1) << 32 | (uint64_t)(100 + i), .fd = fd,
                                       .events = NS_IN, .op = NS_OP_ADD, .error = -1 };
    CHECK(ns_uring_ops.apply(r, batch, count, 0) == 0);
    for (int i = 0; i < count; i++)
        CHECK(batch[i].error == 0);
}

/*
 * The io_uring_enter that makes room in a full submission ring fails (EAGAIN: the kernel had no
 * memory for requests): the ADD fails with it and leaves its slot as it was, free, so that the
 * same ADD again arms a poll.
 */
static void test_refused_add_leaves_slot_free(void)
{
    struct ns_backend *r = open_backend(&ns_uring_ops, 8);
    int idle[2], sv[2], error = -1;
    make_pair(idle);
    make_pair(sv);
    queue_adds(r, idle[0], SUBMISSION_RING);
    next_enter_fails_with = EAGAIN;
    CHECK(apply1(r, NS_OP_ADD, sv[0], NS_IN, TOKEN_A, 1, &error) >= 0);
    CHECK(next_enter_fails_with == 0);
    CHECK(error == EAGAIN);
    put_byte(sv[1]);
    expect_none(r);
    apply_ok(r, NS_OP_ADD, sv[0], NS_IN, TOKEN_A);
    expect_one(r, TOKEN_A, NS_IN);
    close_pair(idle);
    close_pair(sv);
    ns_uring_ops.close(r);
}

/* The same for a DEL: the registration stays, and the DEL again removes its poll. */
static void test_refused_del_leaves_poll_to_remove(void)
{
    struct ns_backend *r = open_backend(&ns_uring_ops, 8);
    int idle[2], sv[2], error = -1;
    make_pair(idle);
    make_pair(sv);
    apply_ok(r, NS_OP_ADD, sv[0], NS_IN, TOKEN_A);
    expect_none(r); /* the poll is armed in the kernel, holding the socket */
    queue_adds(r, idle[0], SUBMISSION_RING);
    next_enter_fails_with = EAGAIN;
    CHECK(apply1(r, NS_OP_DEL, sv[0], 0, TOKEN_A, 1, &error) >= 0);
    CHECK(next_enter_fails_with == 0);
    CHECK(error == EAGAIN);
    apply_ok(r, NS_OP_DEL, sv[0], 0, TOKEN_A);
    close(sv[0]);
    expect_end_of_stream(sv[1]); /* the poll let the socket go */
    close(sv[1]);
    close_pair(idle);
    ns_uring_ops.close(r);
}

/* A poll whose re-arm is refused is armed by the next poll call. */
static void test_refused_rearm_is_armed_by_next_poll(void)
{
    enum { COUNT = SUBMISSION_RING + 44 };
    struct ns_backend *r = open_backend(&ns_uring_ops, COUNT);
    int sv[2];
    make_pair(sv);
    static struct ns_change batch[COUNT];
    static struct ns_ready ready[COUNT + 8];
    static unsigned char seen[COUNT];
    for (int i = 0; i < COUNT; i++)
        batch[i] = (struct ns_change){ .token = UINT64_C(1) << 32 | (uint64_t)(10 + i), .fd = sv[0],
                                       .events = NS_IN, .op = NS_OP_ADD, .error = -1 };
    CHECK(ns_uring_ops.apply(r, batch, COUNT, 1) >= 2);
    CHECK(poll_records(r, ready, COUNT + 8, 0, NULL) == 0);
    /* Every poll completes; the poll call that finds them arms them again, more than the
       submission ring holds, and the io_uring_enter that makes room fails. */
    put_byte(sv[1]);
    next_enter_fails_with = EAGAIN;
    CHECK(ns_uring_ops.poll(r, ready, COUNT + 8, 0) == -EAGAIN);
    CHECK(next_enter_fails_with == 0);
    memset(seen, 0, sizeof(seen));
    int distinct = 0;
    long deadline = now_ms() + READY_WAIT_MS;
    while (distinct < COUNT && now_ms() < deadline) {
        int n = poll_records(r, ready, COUNT + 8, READY_WAIT_MS, NULL);
        for (int i = 0; i < n; i++) {
            uint32_t slot = (uint32_t)ready[i].token;
            if (slot >= 10 && slot < COUNT + 10 && !seen[slot - 10]) {
                seen[slot - 10] = 1;
                distinct++;
            }
        }
    }
    CHECK(distinct == COUNT);
    close_pair(sv);
    ns_uring_ops.close(r);
}

/*
 * A poll call whose re-arm is refused after it has taken a record (here the wakeup's, with the
 * poll of an interest change to arm again and the submission ring full) returns the record: it is
 * off the completion ring, and lost if the call returned the error instead. Three calls fail: the
 * one that makes room to re-arm as completions are taken, the one that would submit the ring before
 * the wait, and the one that makes room to arm the removed poll before the call returns.
 */
static void test_refused_rearm_after_records_taken_returns_them(void)
{
    struct ns_backend *r = open_backend(&ns_uring_ops, 8);
    int idle[2], sv[2];
    make_pair(idle);
    make_pair(sv);
    apply_ok(r, NS_OP_ADD, sv[0], NS_IN, TOKEN_A);
    expect_none(r);
    apply_ok(r, NS_OP_MOD, sv[0], NS_OUT, TOKEN_A); /* its poll removed, the new one not armed yet */
    CHECK(ns_uring_ops.wakeup(r) == 0);
    queue_adds(r, idle[0], SUBMISSION_RING);
    next_enter_fails_with = EAGAIN;
    more_enters_fail = 2;
    struct ns_ready ready[4];
    CHECK(ns_uring_ops.poll(r, ready, 4, 0) == 1);
    CHECK(next_enter_fails_with == 0 && more_enters_fail == 0);
    CHECK(ready[0].token == NS_WAKEUP_TOKEN);
    expect_one(r, TOKEN_A, NS_OUT);
    close_pair(idle);
    close_pair(sv);
    ns_uring_ops.close(r);
}

/* The same for the wakeup poll. */
static void test_refused_wakeup_arm_is_armed_by_next_poll(void)
{
    struct ns_backend *r = open_backend(&ns_uring_ops, 8);
    int idle[2];
    make_pair(idle);
    queue_adds(r, idle[0], SUBMISSION_RING); /* before the first poll arms the wakeup poll */
    next_enter_fails_with = EAGAIN;
    struct ns_ready ready[8];
    CHECK(ns_uring_ops.poll(r, ready, 8, 0) == -EAGAIN);
    CHECK(next_enter_fails_with == 0);
    CHECK(ns_uring_ops.wakeup(r) == 0);
    expect_one(r, NS_WAKEUP_TOKEN, NS_IN);
    close_pair(idle);
    ns_uring_ops.close(r);
}

/*
 * ---- a poll whose owner cannot run its task work ----
 * A poll that fires is finished by task work on the thread that armed it. Until that runs, the
 * kernel refuses to remove the poll (EALREADY); and when the task work then finds the fd not
 * ready (its wakeup carried no events, as inotify's does) it arms the poll again, and the refused
 * removal is left undone: the backend asks again. Here the thread that armed the poll is held in
 * clone(CLONE_VFORK), which task work does not interrupt, until its child exits.
 */
struct held_owner {
    struct ns_backend *r;
    struct ns_change add;
    int held[2];    /* the child writes a byte: the owner is held */
    int release[2]; /* a byte lets the child exit, and the owner go */
    int finish[2];  /* a byte ends the owner thread, which cancels its polls */
};

/* The child's stack; AddressSanitizer, which knows only thread stacks, stays out of the child. */
static char held_child_stack[64 * 1024] __attribute__((aligned(16)));

__attribute__((no_sanitize("address"))) static int held_child(void *arg)
{
    struct held_owner *h = arg;
    char byte = 0;
    _exit(write(h->held[1], &byte, 1) == 1 && read(h->release[0], &byte, 1) == 1 ? 0 : 1);
}

static void *held_owner_thread(void *arg)
{
    struct held_owner *h = arg;
    CHECK(ns_uring_ops.apply(h->r, &h->add, 1, 1) >= 1);
    CHECK(h->add.error == 0);
    pid_t child = clone(held_child, held_child_stack + sizeof(held_child_stack),
                        CLONE_VM | CLONE_VFORK | SIGCHLD, h);
    CHECK(child > 0);
    int status = -1;
    CHECK(child > 0 && waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    char byte;
    CHECK(read(h->finish[0], &byte, 1) == 1);
    return NULL;
}

/*
 * The removal of a poll is refused for longer than a sync DEL waits, and the slot then goes to a
 * new key: the removal asked again is the old poll's, and once it is gone the new key's poll is
 * armed and reports.
 */
static void test_refused_removal_of_reused_slot_is_asked_for_the_old_poll(void)
{
    struct ns_backend *r = open_backend(&ns_uring_ops, 8);
    struct ns_ready ready[4];
    CHECK(poll_records(r, ready, 4, 0, NULL) == 0);
    char path[] = "/tmp/uring_backend_test.XXXXXX";
    int file = mkstemp(path);
    CHECK(file >= 0);
    int watch = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    CHECK(watch >= 0);
    CHECK(inotify_add_watch(watch, path, IN_MODIFY) >= 0);
    CHECK(unlink(path) == 0);
    struct held_owner h = {
        .r = r,
        .add = { .token = TOKEN_A, .fd = watch, .events = NS_IN, .op = NS_OP_ADD, .error = -1 },
    };
    CHECK(pipe(h.held) == 0 && pipe(h.release) == 0 && pipe(h.finish) == 0);
    pthread_t owner;
    CHECK(pthread_create(&owner, NULL, held_owner_thread, &h) == 0);
    char byte;
    CHECK(readable_within(h.held[0], READY_WAIT_MS) && read(h.held[0], &byte, 1) == 1);

    CHECK(write(file, "x", 1) == 1); /* the poll fires; its task work waits for the owner */
    int error = -1;
    CHECK(apply1(r, NS_OP_DEL, watch, 0, TOKEN_A, 1, &error) >= 0);
    CHECK(error == 0);
    char events[256];
    CHECK(read(watch, events, sizeof(events)) > 0); /* not ready when the task work runs */
    int sv[2];
    make_pair(sv);
    apply_ok(r, NS_OP_ADD, sv[0], NS_IN, TOKEN_B); /* slot 3 again */
    CHECK(write(h.release[1], &byte, 1) == 1);
    put_byte(sv[1]);
    expect_one(r, TOKEN_B, NS_IN);

    CHECK(write(h.finish[1], &byte, 1) == 1);
    CHECK(pthread_join(owner, NULL) == 0);
    close_pair(h.held);
    close_pair(h.release);
    close_pair(h.finish);
    close_pair(sv);
    close(watch);
    close(file);
    ns_uring_ops.close(r);
}

/* ---- threads ---- */

static void *write_after_50ms(void *arg)
{
    sleep_ms(50);
    put_byte(*(int *)arg);
    return NULL;
}

/*
 * "Threads that submit polls own them: when such a thread exits, the kernel cancels its polls,
 * and a registered fd's cancelled poll is armed again by the next poll call."
 */
static void test_polls_of_exited_thread_are_rearmed(void)
{
    struct ns_backend *r = open_backend(&ns_uring_ops, 8);
    int s1[2], s2[2];
    make_pair(s1);
    make_pair(s2);
    struct ns_ready ready[4];
    CHECK(poll_records(r, ready, 4, 0, NULL) == 0); /* the wakeup poll is this thread's */
    struct apply_args a1 = {
        .r = r,
        .change = { .token = TOKEN_A, .fd = s1[0], .events = NS_IN, .op = NS_OP_ADD, .error = -1 },
        .sync = 1,
        .result = -1,
    };
    struct apply_args a2 = a1;
    a2.change.token = TOKEN_C;
    a2.change.fd = s2[0];
    pthread_t t;
    CHECK(pthread_create(&t, NULL, apply_on_thread, &a1) == 0);
    CHECK(pthread_join(t, NULL) == 0);
    CHECK(pthread_create(&t, NULL, apply_on_thread, &a2) == 0);
    CHECK(pthread_join(t, NULL) == 0);
    CHECK(a1.result >= 1 && a1.change.error == 0);
    CHECK(a2.result >= 1 && a2.change.error == 0);
    /* Readiness after the exit. The exited thread's poll completes with -ECANCELED (on Linux
       6.x when the fd becomes ready, from a kernel worker, its task being gone); the sleep lets
       that completion reach the ring before the next poll call, which must arm the poll again
       and report the fd within its timeout. */
    put_byte(s1[1]);
    sleep_ms(20);
    long start = now_ms();
    int n = poll_records(r, ready, 4, READY_WAIT_MS, NULL);
    CHECK(n == 1);
    CHECK(n == 1 && ready[0].token == TOKEN_A && ready[0].events == NS_IN);
    if (n == 0)
        fprintf(stderr, "  the poll waited %ld ms and reported nothing: the exited thread's "
                        "cancelled poll was not re-armed by this poll call\n", now_ms() - start);
    /* Readiness arriving while this thread waits (A, still readable, is reported meanwhile). */
    pthread_t w;
    CHECK(pthread_create(&w, NULL, write_after_50ms, &s2[1]) == 0);
    int seen_c = 0;
    long deadline = now_ms() + READY_WAIT_MS;
    while (!seen_c && now_ms() < deadline) {
        n = poll_records(r, ready, 4, READY_WAIT_MS, NULL);
        seen_c = find_token(ready, n, TOKEN_C) != NULL;
    }
    CHECK(seen_c);
    CHECK(pthread_join(w, NULL) == 0);
    /* and both stay reported, level-triggered */
    for (int round = 0; round < 3; round++) {
        int seen_a = 0;
        seen_c = 0;
        for (int i = 0; i < 2 && !(seen_a && seen_c); i++) {
            n = poll_records(r, ready, 4, READY_WAIT_MS, NULL);
            seen_a |= find_token(ready, n, TOKEN_A) != NULL;
            seen_c |= find_token(ready, n, TOKEN_C) != NULL;
        }
        CHECK(seen_a && seen_c);
    }
    close_pair(s1);
    close_pair(s2);
    ns_uring_ops.close(r);
}

/* ---- big batches ---- */

static void test_batch_larger_than_submission_ring(void)
{
    enum { COUNT = 1000 };
    struct ns_backend *r = open_backend(&ns_uring_ops, COUNT);
    int sv[2];
    make_pair(sv);
    static struct ns_change batch[COUNT];
    static struct ns_ready ready[COUNT + 8];
    static unsigned char seen[COUNT];
    /* 1000 registrations, one slot each, all on one socket: each is its own poll. Generation 1
       is added and removed while the socket is idle (every poll armed), generation 2 stays. */
    for (uint64_t generation = 1; generation <= 2; generation++) {
        for (int i = 0; i < COUNT; i++)
            batch[i] = (struct ns_change){ .token = generation << 32 | (uint64_t)(i + 10), .fd = sv[0],
                                           .events = NS_IN, .op = NS_OP_ADD, .error = -1 };
        int calls = ns_uring_ops.apply(r, batch, COUNT, 1);
        CHECK(calls >= 4); /* more than three rings' worth: at least four submissions */
        for (int i = 0; i < COUNT; i++)
            CHECK(batch[i].error == 0);
        expect_none(r);
        if (generation == 2)
            break;
        for (int i = 0; i < COUNT; i++) {
            batch[i].op = NS_OP_DEL;
            batch[i].error = -1;
        }
        CHECK(ns_uring_ops.apply(r, batch, COUNT, 1) >= 4);
        for (int i = 0; i < COUNT; i++)
            CHECK(batch[i].error == 0);
        expect_none(r);
    }
    put_byte(sv[1]);
    memset(seen, 0, sizeof(seen));
    int distinct = 0;
    long deadline = now_ms() + READY_WAIT_MS;
    while (distinct < COUNT && now_ms() < deadline) {
        int n = poll_records(r, ready, COUNT + 8, READY_WAIT_MS, NULL);
        for (int i = 0; i < n; i++) {
            uint64_t slot = (uint32_t)ready[i].token;
            CHECK(ready[i].token >> 32 == 2 && slot >= 10 && slot < COUNT + 10);
            CHECK(ready[i].events == NS_IN);
            if (slot >= 10 && slot < COUNT + 10 && !seen[slot - 10]) {
                seen[slot - 10] = 1;
                distinct++;
            }
        }
    }
    CHECK(distinct == COUNT);
    close_pair(sv);
    ns_uring_ops.close(r); /* with up to 1000 polls armed */
}

/* ---- runner ---- */

static const struct test tests[] = {
    T(test_open_unmaps_each_mapping_once_when_one_fails),
    T(test_mod_to_out_not_sync),
    T(test_del_of_other_slot_or_generation_is_error_0),
    T(test_completion_for_readiness_gone_is_not_reported),
    T(test_completion_reports_what_is_ready_now),
    T(test_completion_checked_again_after_timeout_passed),
    T(test_idle_poll_without_wait_needs_no_call),
    T(test_completions_set_aside_are_checked_again),
    T(test_completion_set_aside_as_poll_waits_ends_the_wait),
    T(test_interest_change_as_poll_waits_ends_the_wait),
    T(test_nonsync_add_then_poll),
    T(test_sync_apply_makes_calls),
    T(test_mod_of_armed_poll_removes_it_and_arms_another),
    T(test_socket_closed_while_armed_lives_until_del),
    T(test_refused_add_leaves_slot_free),
    T(test_refused_del_leaves_poll_to_remove),
    T(test_refused_rearm_is_armed_by_next_poll),
    T(test_refused_rearm_after_records_taken_returns_them),
    T(test_refused_wakeup_arm_is_armed_by_next_poll),
    T(test_refused_removal_of_reused_slot_is_asked_for_the_old_poll),
    T(test_polls_of_exited_thread_are_rearmed),
    T(test_batch_larger_than_submission_ring),
#undef T
};

int main(void)
{
    alarm(20); /* a hung poll kills the run instead of stalling it */
    int status;
    if (!backend_testable(&ns_uring_ops, &status))
        return status;
    return run_tests(tests, sizeof(tests) / sizeof(tests[0]));
}
