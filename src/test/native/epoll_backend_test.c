/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

/*
 * What only the epoll backend does (linux/epoll_backend.h): one epoll_ctl per change, ADD of a
 * present fd turned into MOD and MOD of an absent one into ADD, and the private epoll_event
 * array that bounds a poll. What every backend does is tested by backend_contract_test.c.
 * Prints "N passed, M failed" (tests, not checks) and exits non-zero on failure.
 */
#include "epoll_backend.h"
#include "backend_test_support.h"

#include <unistd.h>

/* A change expected to take exactly `calls` epoll_ctl calls and end with `error`. */
static void expect_calls(struct ns_backend *ep, int op, int fd, uint32_t events, uint64_t token, int calls,
                         int error)
{
    int got = -1;
    CHECK(apply1(ep, op, fd, events, token, 1, &got) == calls);
    CHECK(got == error);
}

static void test_one_epoll_ctl_per_change(void)
{
    struct ns_backend *ep = open_backend(&ns_epoll_ops, 8);
    int sv[2];
    make_pair(sv);
    expect_calls(ep, NS_OP_ADD, sv[0], NS_IN, TOKEN_A, 1, 0);
    put_byte(sv[1]);
    expect_calls(ep, NS_OP_MOD, sv[0], NS_OUT, TOKEN_B, 1, 0);
    expect_one(ep, TOKEN_B, NS_OUT); /* the token is replaced with the events */
    expect_calls(ep, NS_OP_DEL, sv[0], 0, TOKEN_B, 1, 0);
    expect_none(ep);
    expect_calls(ep, NS_OP_DEL, sv[0], 0, TOKEN_B, 1, 0);        /* ENOENT, taken as done */
    expect_calls(ep, NS_OP_DEL, closed_fd(), 0, TOKEN_B, 1, 0);  /* EBADF, taken as done */
    expect_calls(ep, NS_OP_ADD, closed_fd(), NS_IN, TOKEN_A, 1, EBADF);
    expect_calls(ep, 0, sv[0], NS_IN, TOKEN_A, 0, EINVAL); /* refused before any call */
    expect_calls(ep, 99, sv[0], NS_IN, TOKEN_A, 0, EINVAL);
    struct ns_change batch[3] = {
        change_of(NS_OP_ADD, sv[0], NS_IN, TOKEN_A),
        change_of(NS_OP_ADD, closed_fd(), NS_IN, TOKEN_B),
        change_of(NS_OP_ADD, sv[1], NS_IN, TOKEN_C),
    };
    CHECK(ns_epoll_ops.apply(ep, batch, 3, 1) == 3);
    CHECK(batch[0].error == 0 && batch[1].error == EBADF && batch[2].error == 0);
    close_pair(sv);
    ns_epoll_ops.close(ep);
}

static void test_add_present_becomes_mod(void)
{
    struct ns_backend *ep = open_backend(&ns_epoll_ops, 8);
    int sv[2];
    make_pair(sv);
    expect_calls(ep, NS_OP_ADD, sv[0], NS_IN, TOKEN_A, 1, 0);
    expect_calls(ep, NS_OP_ADD, sv[0], NS_OUT, TOKEN_B, 2, 0); /* EEXIST, then MOD */
    expect_one(ep, TOKEN_B, NS_OUT);
    close_pair(sv);
    ns_epoll_ops.close(ep);
}

static void test_mod_absent_becomes_add(void)
{
    struct ns_backend *ep = open_backend(&ns_epoll_ops, 8);
    int sv[2];
    make_pair(sv);
    put_byte(sv[1]);
    expect_calls(ep, NS_OP_MOD, sv[0], NS_IN, TOKEN_A, 2, 0); /* ENOENT, then ADD */
    expect_one(ep, TOKEN_A, NS_IN);
    close_pair(sv);
    ns_epoll_ops.close(ep);
}

/* epoll_wait fills the backend's own array of the capacity open was given, whatever the caller's. */
static void test_poll_limited_by_open_capacity(void)
{
    struct ns_backend *ep = open_backend(&ns_epoll_ops, 2);
    int sv[3][2];
    for (int i = 0; i < 3; i++) {
        make_pair(sv[i]);
        apply_ok(ep, NS_OP_ADD, sv[i][0], NS_IN, TOKEN_A + (uint64_t)i);
        put_byte(sv[i][1]);
    }
    struct ns_ready ready[8];
    CHECK(poll_records(ep, ready, 8, 0, NULL) == 2);
    for (int i = 0; i < 3; i++)
        close_pair(sv[i]);
    ns_epoll_ops.close(ep);
}

static const struct test tests[] = {
    T(test_one_epoll_ctl_per_change),
    T(test_add_present_becomes_mod),
    T(test_mod_absent_becomes_add),
    T(test_poll_limited_by_open_capacity),
#undef T
};

int main(void)
{
    alarm(10); /* a hung poll kills the run instead of stalling it */
    return run_tests(tests, sizeof(tests) / sizeof(tests[0]));
}
