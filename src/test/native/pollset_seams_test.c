/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

/*
 * The pollset backend (src/main/native/aix/pollset_backend.h) with the calls it makes answering
 * as a test says, on Linux through pollset-on-linux/. Linked with --wrap for malloc, calloc,
 * realloc and pollset_ctl (CMakeLists.txt), which puts the test between the backend, the pollset
 * emulation and the C library: GNU ld only, hence apart from pollset_backend_test, which also runs
 * on AIX. Each seam passes the call on unless a test asks for more. Prints "N passed, M failed".
 */
#include "pollset_backend.h"
#include "backend_test_support.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/resource.h>

/* ---- seams ---- */

/* The allocation after this many more fails; -1: none fails. */
static int allocations_before_failure = -1;
/* An allocation of more bytes than this fails; 0: any size is allowed. */
static size_t largest_allocation_allowed;

static int refuse_this_allocation(size_t size)
{
    if (largest_allocation_allowed != 0 && size > largest_allocation_allowed)
        return 1;
    if (allocations_before_failure == 0) {
        allocations_before_failure = -1;
        return 1;
    }
    if (allocations_before_failure > 0)
        allocations_before_failure--;
    return 0;
}

void *__real_malloc(size_t size);
void *__wrap_malloc(size_t size);
void *__wrap_malloc(size_t size)
{
    return refuse_this_allocation(size) ? NULL : __real_malloc(size);
}

void *__real_calloc(size_t count, size_t size);
void *__wrap_calloc(size_t count, size_t size);
void *__wrap_calloc(size_t count, size_t size)
{
    return refuse_this_allocation(count * size) ? NULL : __real_calloc(count, size);
}

void *__real_realloc(void *old, size_t size);
void *__wrap_realloc(void *old, size_t size);
void *__wrap_realloc(void *old, size_t size)
{
    return refuse_this_allocation(size) ? NULL : __real_realloc(old, size);
}

/*
 * How the next pollset_ctl answers: as the emulation does, or failing at element `failing_at`
 * (the elements before it applied), interrupted by a signal or refused without setting errno, as
 * AIX may do for an element after the first. <sys/pollset.h> is AIX's, which this file cannot
 * include beside Linux's <poll.h>: the elements are only passed on, and pollset_t is an int.
 */
static enum { CTL_AS_IS, CTL_INTERRUPTED, CTL_REFUSED_WITHOUT_ERRNO } next_ctl;
static int failing_at;

struct poll_ctl;
int __real_pollset_ctl(int ps, struct poll_ctl *elements, int count);
int __wrap_pollset_ctl(int ps, struct poll_ctl *elements, int count);
int __wrap_pollset_ctl(int ps, struct poll_ctl *elements, int count)
{
    if (next_ctl == CTL_AS_IS)
        return __real_pollset_ctl(ps, elements, count);
    int interrupted = next_ctl == CTL_INTERRUPTED;
    next_ctl = CTL_AS_IS;
    if (failing_at > 0) {
        int rc = __real_pollset_ctl(ps, elements, failing_at);
        if (rc != 0)
            return rc;
    }
    if (interrupted)
        errno = EINTR;
    return failing_at == 0 ? -1 : failing_at;
}

/* ---- allocations ---- */

static void test_open_refused_an_allocation_fails_or_wakes_up(void)
{
    int fds = count_fds();
    int opened = 0;
    for (int allowed = 0; !opened && allowed < 100; allowed++) {
        allocations_before_failure = allowed;
        struct ns_backend *ps = NULL;
        int rc = ns_pollset_ops.open(4, 0, &ps);
        int refused = allocations_before_failure == -1;
        allocations_before_failure = -1;
        if (refused) {
            CHECK(rc == -ENOMEM);
            CHECK(ps == NULL);
            if (rc == 0)
                fprintf(stderr, "  allocation %d refused, and yet the open succeeded\n", allowed + 1);
        } else {
            CHECK(rc == 0);
            opened = 1;
        }
        if (rc == 0) {
            struct ns_ready ready[4];
            CHECK(ns_pollset_ops.wakeup(ps) == 0);
            int n = ns_pollset_ops.poll(ps, ready, 4, 0);
            CHECK(n == 1 && ready[0].token == NS_WAKEUP_TOKEN);
            ns_pollset_ops.close(ps);
        }
        CHECK(count_fds() == fds);
    }
    CHECK(opened);
}

/*
 * A poll reports at most as many descriptors as the process may have open, so however large the
 * capacity asked for, the poll array is no larger than the descriptor limit's worth.
 */
static void test_poll_array_is_capped_by_the_descriptor_limit(void)
{
    enum { LIMIT = 256 };
    struct rlimit saved;
    CHECK(getrlimit(RLIMIT_NOFILE, &saved) == 0);
    struct rlimit limited = { LIMIT, saved.rlim_max };
    CHECK(setrlimit(RLIMIT_NOFILE, &limited) == 0);
    largest_allocation_allowed = 64 * 1024; /* LIMIT entries of 8 bytes, and the rest of open */
    struct ns_backend *ps = NULL;
    int rc = ns_pollset_ops.open(0x7fffffff, 0, &ps);
    largest_allocation_allowed = 0;
    CHECK(setrlimit(RLIMIT_NOFILE, &saved) == 0);
    CHECK(rc == 0);
    if (rc == 0) {
        CHECK(ns_pollset_ops.wakeup(ps) == 0);
        expect_one(ps, NS_WAKEUP_TOKEN, NS_IN);
        ns_pollset_ops.close(ps);
    }
}

/* ---- pollset_ctl ---- */

/* Three ADDs of writable sockets; pollset_ctl answers the first call as `answer` says. */
static void apply_three_adds(int answer, int at, struct ns_change batch[3], int *calls)
{
    struct ns_backend *ps = open_backend(&ns_pollset_ops, 8);
    int sv[3][2];
    const uint64_t tokens[3] = { TOKEN_A, TOKEN_C, TOKEN_D };
    for (int i = 0; i < 3; i++) {
        make_pair(sv[i]);
        batch[i] = change_of(NS_OP_ADD, sv[i][0], NS_OUT, tokens[i]);
    }
    next_ctl = answer;
    failing_at = at;
    errno = ENOTTY; /* what a call before left: not the answer for the element */
    *calls = ns_pollset_ops.apply(ps, batch, 3, 1);
    CHECK(next_ctl == CTL_AS_IS); /* the answer was given */
    next_ctl = CTL_AS_IS;
    struct ns_ready ready[8];
    int n = poll_records(ps, ready, 8, 0, NULL);
    for (int i = 0; i < 3; i++) /* what the kernel accepted, and only that, is watched */
        CHECK((find_token(ready, n, tokens[i]) != NULL) == (batch[i].error == 0));
    for (int i = 0; i < 3; i++)
        close_pair(sv[i]);
    ns_pollset_ops.close(ps);
}

/* An element refused without an errno, first or later: its change fails, the others do not. */
static void test_element_refused_without_errno_still_fails(void)
{
    for (int at = 0; at < 3; at++) {
        struct ns_change batch[3];
        int calls = -1;
        apply_three_adds(CTL_REFUSED_WITHOUT_ERRNO, at, batch, &calls);
        CHECK(calls == (at < 2 ? 2 : 1));
        for (int i = 0; i < 3; i++)
            CHECK(batch[i].error == (i == at ? EINVAL : 0));
    }
}

/* A signal that interrupts pollset_ctl refuses nothing: the call is made again from there. */
static void test_interrupted_pollset_ctl_is_made_again(void)
{
    for (int at = 0; at < 3; at++) {
        struct ns_change batch[3];
        int calls = -1;
        apply_three_adds(CTL_INTERRUPTED, at, batch, &calls);
        CHECK(calls == 2);
        for (int i = 0; i < 3; i++)
            CHECK(batch[i].error == 0);
    }
}

/*
 * Fewer events are a DELETE and an ADD, which AIX cannot make as one: an ADD refused after its
 * DELETE was accepted left the fd out of the set, watched for nothing, while the change's failure
 * told the selector its registration was as it was. The old events are added back.
 */
static void test_refused_add_of_a_pair_adds_the_old_events_back(void)
{
    struct ns_backend *ps = open_backend(&ns_pollset_ops, 8);
    int sv[2];
    make_pair(sv);
    CHECK(apply_ok(ps, NS_OP_ADD, sv[0], NS_IN | NS_OUT, TOKEN_A) == 1);
    struct ns_change change = change_of(NS_OP_MOD, sv[0], NS_IN, TOKEN_A);
    next_ctl = CTL_REFUSED_WITHOUT_ERRNO;
    failing_at = 1;
    CHECK(ns_pollset_ops.apply(ps, &change, 1, 1) == 2);
    CHECK(next_ctl == CTL_AS_IS);
    CHECK(change.error == EINVAL);
    expect_one(ps, TOKEN_A, NS_OUT); /* writable, and watched for it still */
    put_byte(sv[1]);
    expect_one(ps, TOKEN_A, NS_IN | NS_OUT);
    close_pair(sv);
    ns_pollset_ops.close(ps);
}

static const struct test tests[] = {
    T(test_open_refused_an_allocation_fails_or_wakes_up),
    T(test_poll_array_is_capped_by_the_descriptor_limit),
    T(test_element_refused_without_errno_still_fails),
    T(test_interrupted_pollset_ctl_is_made_again),
    T(test_refused_add_of_a_pair_adds_the_old_events_back),
#undef T
};

int main(void)
{
    return run_tests(tests, sizeof(tests) / sizeof(tests[0]));
}
