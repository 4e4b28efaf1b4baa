/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

/*
 * What only the pollset backend does (src/main/native/aix/pollset_backend.h): how it plans a
 * batch from what the kernel's set holds (PS_ADD, PS_MOD, PS_DELETE + PS_ADD, or nothing), one
 * pollset_ctl per batch, and what a refused element does to the rest. What every backend does is
 * tested by backend_contract_test.c. They use only the backend and POSIX, so they run unchanged
 * on AIX and on Linux (there through pollset-on-linux/). Prints "N passed, M failed".
 */
#include "pollset_backend.h"
#include "backend_test_support.h"

#include <limits.h>
#include <unistd.h>

static const struct ns_backend_ops *const ops = &ns_pollset_ops;

/* ---- planning: the kernel's set decides the element ---- */

static void test_more_events_is_one_or_element(void)
{
    struct ns_backend *ps = open_backend(ops, 8);
    int sv[2];
    make_pair(sv);
    CHECK(apply_ok(ps, NS_OP_ADD, sv[0], NS_IN, TOKEN_A) == 1);
    CHECK(apply_ok(ps, NS_OP_MOD, sv[0], NS_IN | NS_OUT, TOKEN_A) == 1);
    expect_one(ps, TOKEN_A, NS_OUT);
    close_pair(sv);
    ops->close(ps);
}

static void test_fewer_events_is_delete_and_add_in_one_call(void)
{
    struct ns_backend *ps = open_backend(ops, 8);
    int sv[2];
    make_pair(sv);
    CHECK(apply_ok(ps, NS_OP_ADD, sv[0], NS_IN | NS_OUT, TOKEN_A) == 1);
    expect_one(ps, TOKEN_A, NS_OUT);
    /* PS_MOD could not drop POLLOUT: DELETE + ADD in the one pollset_ctl. */
    CHECK(apply_ok(ps, NS_OP_MOD, sv[0], NS_IN, TOKEN_A) == 1);
    expect_none(ps);
    close_pair(sv);
    ops->close(ps);
}

static void test_same_events_only_update_the_token(void)
{
    struct ns_backend *ps = open_backend(ops, 8);
    int sv[2];
    make_pair(sv);
    apply_ok(ps, NS_OP_ADD, sv[0], NS_OUT, TOKEN_A);
    CHECK(apply_ok(ps, NS_OP_MOD, sv[0], NS_OUT, TOKEN_B) == 0);
    expect_one(ps, TOKEN_B, NS_OUT);
    close_pair(sv);
    ops->close(ps);
}

static void test_op_follows_the_kernel_not_the_batch(void)
{
    struct ns_backend *ps = open_backend(ops, 8);
    int sv[2];
    make_pair(sv);
    CHECK(apply_ok(ps, NS_OP_MOD, sv[0], NS_OUT, TOKEN_A) == 1); /* absent: PS_ADD */
    CHECK(apply_ok(ps, NS_OP_ADD, sv[0], NS_IN, TOKEN_A) == 1);  /* present: DELETE + ADD */
    CHECK(apply_ok(ps, NS_OP_DEL, sv[0], 0, TOKEN_A) == 1);
    CHECK(apply_ok(ps, NS_OP_DEL, sv[0], 0, TOKEN_A) == 0); /* absent: nothing to do */
    CHECK(apply_ok(ps, NS_OP_ADD, sv[0], NS_IN, TOKEN_A) == 1);
    close(sv[0]);
    CHECK(apply_ok(ps, NS_OP_DEL, sv[0], 0, TOKEN_A) == 1); /* closed, still in the set: PS_DELETE */
    close(sv[1]);
    ops->close(ps);
}

/* ---- refusals ---- */

static void test_bad_changes_are_refused_alone(void)
{
    struct ns_backend *ps = open_backend(ops, 8);
    int error;
    CHECK(apply1(ps, 9, 0, NS_IN, TOKEN_A, 1, &error) == 0);
    CHECK(error == EINVAL);
    CHECK(apply1(ps, NS_OP_ADD, -1, NS_IN, TOKEN_A, 1, &error) == 0); /* no pollset_ctl for it */
    CHECK(error == EBADF);
    /* No table grown to hold it (the doubling of its size overflowed, and looped for ever, at
       2^30); its DEL asks for what is so, an fd absent from the set. */
    CHECK(apply1(ps, NS_OP_ADD, INT_MAX, NS_IN, TOKEN_A, 1, &error) == 0);
    CHECK(error == EBADF);
    CHECK(apply1(ps, NS_OP_DEL, INT_MAX, 0, TOKEN_A, 1, &error) == 0);
    CHECK(error == 0);
    CHECK(apply1(ps, NS_OP_ADD, closed_fd(), NS_IN, TOKEN_A, 1, &error) == 1);
    CHECK(error == EBADF);
    CHECK(ops->apply(ps, NULL, -1, 1) == -EINVAL);
    ops->close(ps);
}

static void test_batch_is_one_pollset_ctl(void)
{
    enum { PAIRS = 50 };
    struct ns_backend *ps = open_backend(ops, 64);
    int sv[PAIRS][2];
    struct ns_change batch[PAIRS];
    for (int i = 0; i < PAIRS; i++) {
        make_pair(sv[i]);
        batch[i] = change_of(NS_OP_ADD, sv[i][0], NS_OUT, (uint64_t)i);
    }
    CHECK(ops->apply(ps, batch, PAIRS, 1) == 1);
    for (int i = 0; i < PAIRS; i++)
        CHECK(batch[i].error == 0);
    struct ns_ready ready[64];
    CHECK(poll_records(ps, ready, 64, 0, NULL) == PAIRS);
    for (int i = 0; i < PAIRS; i++)
        CHECK(find_token(ready, PAIRS, (uint64_t)i) != NULL);
    for (int i = 0; i < PAIRS; i++)
        batch[i] = change_of(NS_OP_DEL, sv[i][0], 0, (uint64_t)i);
    CHECK(ops->apply(ps, batch, PAIRS, 1) == 1);
    expect_none(ps);
    for (int i = 0; i < PAIRS; i++)
        close_pair(sv[i]);
    ops->close(ps);
}

static void test_refused_element_resubmits_the_rest(void)
{
    struct ns_backend *ps = open_backend(ops, 8);
    int a[2], b[2], c[2];
    make_pair(a);
    make_pair(b);
    make_pair(c);
    struct ns_change batch[] = {
        change_of(NS_OP_ADD, a[0], NS_OUT, TOKEN_A),
        change_of(NS_OP_ADD, closed_fd(), NS_OUT, TOKEN_C),
        change_of(NS_OP_ADD, b[0], NS_OUT, TOKEN_B),
        change_of(NS_OP_ADD, c[0], NS_OUT, TOKEN_C),
    };
    CHECK(ops->apply(ps, batch, 4, 1) == 2);
    CHECK(batch[0].error == 0);
    CHECK(batch[1].error == EBADF);
    CHECK(batch[2].error == 0);
    CHECK(batch[3].error == 0);
    struct ns_ready ready[8];
    int n = poll_records(ps, ready, 8, 0, NULL);
    CHECK(n == 3);
    CHECK(find_token(ready, n, TOKEN_A) != NULL);
    CHECK(find_token(ready, n, TOKEN_B) != NULL);
    CHECK(find_token(ready, n, TOKEN_C) != NULL);
    close_pair(a);
    close_pair(b);
    close_pair(c);
    ops->close(ps);
}

static void test_refused_first_element(void)
{
    struct ns_backend *ps = open_backend(ops, 8);
    int a[2];
    make_pair(a);
    struct ns_change batch[] = {
        change_of(NS_OP_ADD, closed_fd(), NS_OUT, TOKEN_C),
        change_of(NS_OP_ADD, a[0], NS_OUT, TOKEN_A),
    };
    CHECK(ops->apply(ps, batch, 2, 1) == 2);
    CHECK(batch[0].error == EBADF);
    CHECK(batch[1].error == 0);
    expect_one(ps, TOKEN_A, NS_OUT);
    close_pair(a);
    ops->close(ps);
}

/*
 * The ADD of a DELETE + ADD pair refused (a closed fd): the old events cannot be added back either
 * (that third call is refused too), and the fd stays out of the set.
 */
static void test_refused_add_of_a_pair_leaves_a_closed_fd_out(void)
{
    struct ns_backend *ps = open_backend(ops, 8);
    int a[2], b[2];
    make_pair(a);
    make_pair(b);
    int fd = a[0];
    apply_ok(ps, NS_OP_ADD, fd, NS_IN | NS_OUT, TOKEN_A);
    close(fd); /* closed without its DEL: still in the set */
    expect_one(ps, TOKEN_A, NS_NVAL);
    struct ns_change batch[] = {
        change_of(NS_OP_MOD, fd, NS_IN, TOKEN_A), /* DELETE accepted, ADD refused (EBADF) */
        change_of(NS_OP_ADD, b[0], NS_OUT, TOKEN_B),
    };
    CHECK(ops->apply(ps, batch, 2, 1) == 3);
    CHECK(batch[0].error == EBADF);
    CHECK(batch[1].error == 0);
    expect_one(ps, TOKEN_B, NS_OUT); /* the closed fd left the set with its DELETE */
    close(a[1]);
    close_pair(b);
    ops->close(ps);
}

static void test_two_changes_to_one_fd_in_a_batch(void)
{
    struct ns_backend *ps = open_backend(ops, 8);
    int sv[2];
    make_pair(sv);
    struct ns_change batch[] = {
        change_of(NS_OP_ADD, sv[0], NS_IN | NS_OUT, TOKEN_A),
        change_of(NS_OP_MOD, sv[0], NS_OUT, TOKEN_B),
    };
    CHECK(ops->apply(ps, batch, 2, 1) == 2);
    CHECK(batch[0].error == 0 && batch[1].error == 0);
    put_byte(sv[1]);
    expect_one(ps, TOKEN_B, NS_OUT);
    close_pair(sv);
    ops->close(ps);
}

static const struct test tests[] = {
    T(test_more_events_is_one_or_element),
    T(test_fewer_events_is_delete_and_add_in_one_call),
    T(test_same_events_only_update_the_token),
    T(test_op_follows_the_kernel_not_the_batch),
    T(test_bad_changes_are_refused_alone),
    T(test_batch_is_one_pollset_ctl),
    T(test_refused_element_resubmits_the_rest),
    T(test_refused_first_element),
    T(test_refused_add_of_a_pair_leaves_a_closed_fd_out),
    T(test_two_changes_to_one_fd_in_a_batch),
#undef T
};

int main(void)
{
    alarm(10); /* a hung poll kills the run instead of stalling it */
    return run_tests(tests, sizeof(tests) / sizeof(tests[0]));
}
