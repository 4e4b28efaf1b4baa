/*
 * Tests of the pollset backend (src/main/native/aix/pollset_backend.h), one static function per documented
 * behaviour. They use only the backend and POSIX, so they run unchanged on AIX and on Linux
 * (there through pollset-on-linux/). Prints "N passed, M failed".
 */
#include "pollset_backend.h"
#include "test_support.h"

#include <errno.h>
#include <pthread.h>
#include <sys/socket.h>
#include <unistd.h>

/* ---- helpers ---- */

static struct ns_backend *open_set(int capacity)
{
    struct ns_backend *ps = NULL;
    CHECK(ns_pollset_ops.open(capacity, &ps) == 0);
    CHECK(ps != NULL);
    return ps;
}

static struct ns_change change(int op, int fd, uint32_t events, uint64_t token)
{
    return (struct ns_change){ .token = token, .fd = fd, .events = events, .op = op, .error = -1 };
}

/* One change; returns the pollset_ctl call count and stores the change's error. */
static int apply1(struct ns_backend *ps, int op, int fd, uint32_t events, uint64_t token, int *error)
{
    struct ns_change c = change(op, fd, events, token);
    int calls = ns_pollset_ops.apply(ps, &c, 1, 1);
    *error = c.error;
    return calls;
}

static void apply_ok(struct ns_backend *ps, int op, int fd, uint32_t events, uint64_t token)
{
    int error;
    CHECK(apply1(ps, op, fd, events, token, &error) == 1);
    CHECK(error == 0);
}

static int poll_set(struct ns_backend *ps, struct ns_ready *ready, int capacity, int timeout_ms)
{
    int n = ns_pollset_ops.poll(ps, ready, capacity, timeout_ms);
    for (int i = 0; i < n; i++) {
        CHECK((ready[i].events & ~ALL_BITS) == 0);
        CHECK(ready[i].reserved == 0);
    }
    return n;
}

static void expect_one(struct ns_backend *ps, uint64_t token, uint32_t events)
{
    struct ns_ready ready[8];
    int n = poll_set(ps, ready, 8, 0);
    CHECK(n == 1);
    if (n >= 1) {
        CHECK(ready[0].token == token);
        CHECK(ready[0].events == events);
    }
}

static void expect_none(struct ns_backend *ps)
{
    struct ns_ready ready[8];
    CHECK(poll_set(ps, ready, 8, 0) == 0);
}

/* ---- open / close / wakeup ---- */

static void test_open_rejects_bad_capacity(void)
{
    struct ns_backend *ps = NULL;
    CHECK(ns_pollset_ops.open(0, &ps) == -EINVAL);
    CHECK(ps == NULL);
}

static void test_open_close_no_fd_leak(void)
{
    int before = count_fds();
    for (int i = 0; i < 100; i++)
        ns_pollset_ops.close(open_set(4));
    CHECK(count_fds() == before);
}

static void test_wakeup_then_drained(void)
{
    struct ns_backend *ps = open_set(8);
    expect_none(ps);
    CHECK(ns_pollset_ops.wakeup(ps) == 0);
    CHECK(ns_pollset_ops.wakeup(ps) == 0);
    expect_one(ps, NS_WAKEUP_TOKEN, NS_IN);
    expect_none(ps);
    ns_pollset_ops.close(ps);
}

static void *wake_after_50ms(void *arg)
{
    sleep_ms(50);
    CHECK(ns_pollset_ops.wakeup(arg) == 0);
    return NULL;
}

static void test_wakeup_from_other_thread(void)
{
    struct ns_backend *ps = open_set(8);
    pthread_t t;
    CHECK(pthread_create(&t, NULL, wake_after_50ms, ps) == 0);
    struct ns_ready ready[4];
    int n = poll_set(ps, ready, 4, -1);
    CHECK(n == 1 && ready[0].token == NS_WAKEUP_TOKEN);
    CHECK(pthread_join(t, NULL) == 0);
    ns_pollset_ops.close(ps);
}

static void test_poll_times_out_when_idle(void)
{
    struct ns_backend *ps = open_set(8);
    struct ns_ready ready[4];
    long start = now_ms();
    CHECK(poll_set(ps, ready, 4, 100) == 0);
    CHECK(now_ms() - start >= 90);
    ns_pollset_ops.close(ps);
}

/* ---- changes ---- */

static void test_add_is_level_triggered(void)
{
    struct ns_backend *ps = open_set(8);
    int sv[2];
    make_pair(sv);
    apply_ok(ps, NS_OP_ADD, sv[0], NS_IN, TOKEN_A);
    expect_none(ps);
    put_byte(sv[1]);
    expect_one(ps, TOKEN_A, NS_IN);
    expect_one(ps, TOKEN_A, NS_IN);
    CHECK(drain_socket(sv[0]) == 1);
    expect_none(ps);
    close_pair(sv);
    ns_pollset_ops.close(ps);
}

static void test_more_events_is_one_or_element(void)
{
    struct ns_backend *ps = open_set(8);
    int sv[2];
    make_pair(sv);
    apply_ok(ps, NS_OP_ADD, sv[0], NS_IN, TOKEN_A);
    apply_ok(ps, NS_OP_MOD, sv[0], NS_IN | NS_OUT, TOKEN_A);
    expect_one(ps, TOKEN_A, NS_OUT);
    close_pair(sv);
    ns_pollset_ops.close(ps);
}

static void test_fewer_events_really_removes_bits(void)
{
    struct ns_backend *ps = open_set(8);
    int sv[2];
    make_pair(sv);
    apply_ok(ps, NS_OP_ADD, sv[0], NS_IN | NS_OUT, TOKEN_A);
    expect_one(ps, TOKEN_A, NS_OUT);
    /* PS_MOD could not drop POLLOUT: DELETE + ADD in the one pollset_ctl. */
    apply_ok(ps, NS_OP_MOD, sv[0], NS_IN, TOKEN_A);
    expect_none(ps);
    put_byte(sv[1]);
    expect_one(ps, TOKEN_A, NS_IN);
    close_pair(sv);
    ns_pollset_ops.close(ps);
}

static void test_same_events_only_update_the_token(void)
{
    struct ns_backend *ps = open_set(8);
    int sv[2];
    make_pair(sv);
    apply_ok(ps, NS_OP_ADD, sv[0], NS_OUT, TOKEN_A);
    int error;
    CHECK(apply1(ps, NS_OP_MOD, sv[0], NS_OUT, TOKEN_B, &error) == 0);
    CHECK(error == 0);
    expect_one(ps, TOKEN_B, NS_OUT);
    close_pair(sv);
    ns_pollset_ops.close(ps);
}

static void test_op_follows_the_kernel_not_the_batch(void)
{
    struct ns_backend *ps = open_set(8);
    int sv[2];
    make_pair(sv);
    apply_ok(ps, NS_OP_MOD, sv[0], NS_OUT, TOKEN_A); /* absent: added */
    apply_ok(ps, NS_OP_ADD, sv[0], NS_IN, TOKEN_A);  /* present: replaced */
    expect_none(ps);
    int error;
    apply_ok(ps, NS_OP_DEL, sv[0], 0, TOKEN_A);
    CHECK(apply1(ps, NS_OP_DEL, sv[0], 0, TOKEN_A, &error) == 0); /* absent: nothing to do */
    CHECK(error == 0);
    close_pair(sv);
    ns_pollset_ops.close(ps);
}

static void test_bad_changes_are_refused_alone(void)
{
    struct ns_backend *ps = open_set(8);
    int error;
    CHECK(apply1(ps, 9, 0, NS_IN, TOKEN_A, &error) == 0);
    CHECK(error == EINVAL);
    CHECK(apply1(ps, NS_OP_ADD, -1, NS_IN, TOKEN_A, &error) == 0);
    CHECK(error == EBADF);
    CHECK(apply1(ps, NS_OP_ADD, closed_fd(), NS_IN, TOKEN_A, &error) == 1);
    CHECK(error == EBADF);
    CHECK(ns_pollset_ops.apply(ps, NULL, -1, 1) == -EINVAL);
    ns_pollset_ops.close(ps);
}

static void test_batch_is_one_pollset_ctl(void)
{
    enum { PAIRS = 50 };
    struct ns_backend *ps = open_set(64);
    int sv[PAIRS][2];
    struct ns_change batch[PAIRS];
    for (int i = 0; i < PAIRS; i++) {
        make_pair(sv[i]);
        batch[i] = change(NS_OP_ADD, sv[i][0], NS_OUT, (uint64_t)i);
    }
    CHECK(ns_pollset_ops.apply(ps, batch, PAIRS, 1) == 1);
    for (int i = 0; i < PAIRS; i++)
        CHECK(batch[i].error == 0);
    struct ns_ready ready[64];
    CHECK(poll_set(ps, ready, 64, 0) == PAIRS);
    for (int i = 0; i < PAIRS; i++)
        CHECK(find_token(ready, PAIRS, (uint64_t)i) != NULL);
    for (int i = 0; i < PAIRS; i++)
        batch[i] = change(NS_OP_DEL, sv[i][0], 0, (uint64_t)i);
    CHECK(ns_pollset_ops.apply(ps, batch, PAIRS, 1) == 1);
    expect_none(ps);
    for (int i = 0; i < PAIRS; i++)
        close_pair(sv[i]);
    ns_pollset_ops.close(ps);
}

static void test_refused_element_resubmits_the_rest(void)
{
    struct ns_backend *ps = open_set(8);
    int a[2], b[2], c[2];
    make_pair(a);
    make_pair(b);
    make_pair(c);
    struct ns_change batch[] = {
        change(NS_OP_ADD, a[0], NS_OUT, TOKEN_A),
        change(NS_OP_ADD, closed_fd(), NS_OUT, TOKEN_C),
        change(NS_OP_ADD, b[0], NS_OUT, TOKEN_B),
        change(NS_OP_ADD, c[0], NS_OUT, TOKEN_C),
    };
    CHECK(ns_pollset_ops.apply(ps, batch, 4, 1) == 2);
    CHECK(batch[0].error == 0);
    CHECK(batch[1].error == EBADF);
    CHECK(batch[2].error == 0);
    CHECK(batch[3].error == 0);
    struct ns_ready ready[8];
    int n = poll_set(ps, ready, 8, 0);
    CHECK(n == 3);
    CHECK(find_token(ready, n, TOKEN_A) != NULL);
    CHECK(find_token(ready, n, TOKEN_B) != NULL);
    CHECK(find_token(ready, n, TOKEN_C) != NULL);
    close_pair(a);
    close_pair(b);
    close_pair(c);
    ns_pollset_ops.close(ps);
}

static void test_refused_first_element(void)
{
    struct ns_backend *ps = open_set(8);
    int a[2];
    make_pair(a);
    struct ns_change batch[] = {
        change(NS_OP_ADD, closed_fd(), NS_OUT, TOKEN_C),
        change(NS_OP_ADD, a[0], NS_OUT, TOKEN_A),
    };
    CHECK(ns_pollset_ops.apply(ps, batch, 2, 1) == 2);
    CHECK(batch[0].error == EBADF);
    CHECK(batch[1].error == 0);
    expect_one(ps, TOKEN_A, NS_OUT);
    close_pair(a);
    ns_pollset_ops.close(ps);
}

static void test_refused_add_of_a_pair_leaves_fd_out(void)
{
    struct ns_backend *ps = open_set(8);
    int a[2], b[2];
    make_pair(a);
    make_pair(b);
    int fd = a[0];
    apply_ok(ps, NS_OP_ADD, fd, NS_IN | NS_OUT, TOKEN_A);
    close(fd); /* closed without its DEL: still in the set */
    expect_one(ps, TOKEN_A, NS_NVAL);
    struct ns_change batch[] = {
        change(NS_OP_MOD, fd, NS_IN, TOKEN_A), /* DELETE accepted, ADD refused (EBADF) */
        change(NS_OP_ADD, b[0], NS_OUT, TOKEN_B),
    };
    CHECK(ns_pollset_ops.apply(ps, batch, 2, 1) == 2);
    CHECK(batch[0].error == EBADF);
    CHECK(batch[1].error == 0);
    expect_one(ps, TOKEN_B, NS_OUT); /* the closed fd left the set with its DELETE */
    close(a[1]);
    close_pair(b);
    ns_pollset_ops.close(ps);
}

static void test_two_changes_to_one_fd_in_a_batch(void)
{
    struct ns_backend *ps = open_set(8);
    int sv[2];
    make_pair(sv);
    struct ns_change batch[] = {
        change(NS_OP_ADD, sv[0], NS_IN | NS_OUT, TOKEN_A),
        change(NS_OP_MOD, sv[0], NS_OUT, TOKEN_B),
    };
    CHECK(ns_pollset_ops.apply(ps, batch, 2, 1) == 2);
    CHECK(batch[0].error == 0 && batch[1].error == 0);
    put_byte(sv[1]);
    expect_one(ps, TOKEN_B, NS_OUT);
    close_pair(sv);
    ns_pollset_ops.close(ps);
}

static void test_delete_of_closed_fd_succeeds(void)
{
    struct ns_backend *ps = open_set(8);
    int sv[2];
    make_pair(sv);
    apply_ok(ps, NS_OP_ADD, sv[0], NS_IN, TOKEN_A);
    close(sv[0]);
    apply_ok(ps, NS_OP_DEL, sv[0], 0, TOKEN_A);
    expect_none(ps);
    close(sv[1]);
    ns_pollset_ops.close(ps);
}

static void test_reused_fd_carries_new_token(void)
{
    struct ns_backend *ps = open_set(8);
    int sv[2];
    make_pair(sv);
    int fd = sv[0];
    apply_ok(ps, NS_OP_ADD, fd, NS_IN, TOKEN_A);
    apply_ok(ps, NS_OP_DEL, fd, 0, TOKEN_A);
    close_pair(sv);
    int again[2];
    make_pair(again);
    CHECK(again[0] == fd);
    apply_ok(ps, NS_OP_ADD, again[0], NS_IN, TOKEN_B);
    put_byte(again[1]);
    expect_one(ps, TOKEN_B, NS_IN);
    close_pair(again);
    ns_pollset_ops.close(ps);
}

static void test_peer_close_reports_hup(void)
{
    struct ns_backend *ps = open_set(8);
    int sv[2];
    make_pair(sv);
    apply_ok(ps, NS_OP_ADD, sv[0], NS_IN, TOKEN_A);
    close(sv[1]);
    struct ns_ready ready[4];
    int n = poll_set(ps, ready, 4, 1000);
    CHECK(n == 1 && ready[0].token == TOKEN_A && (ready[0].events & NS_HUP) != 0);
    close(sv[0]);
    ns_pollset_ops.close(ps);
}

static void test_poll_capacity_limits_records(void)
{
    struct ns_backend *ps = open_set(8);
    int a[2], b[2];
    make_pair(a);
    make_pair(b);
    apply_ok(ps, NS_OP_ADD, a[0], NS_OUT, TOKEN_A);
    apply_ok(ps, NS_OP_ADD, b[0], NS_OUT, TOKEN_B);
    struct ns_ready ready[2];
    CHECK(poll_set(ps, ready, 1, 0) == 1);
    uint64_t first = ready[0].token;
    CHECK(poll_set(ps, ready, 1, 0) == 1);
    CHECK(ready[0].token != first); /* neither is starved */
    close_pair(a);
    close_pair(b);
    ns_pollset_ops.close(ps);
}

static const struct test tests[] = {
    T(test_open_rejects_bad_capacity),
    T(test_open_close_no_fd_leak),
    T(test_wakeup_then_drained),
    T(test_wakeup_from_other_thread),
    T(test_poll_times_out_when_idle),
    T(test_add_is_level_triggered),
    T(test_more_events_is_one_or_element),
    T(test_fewer_events_really_removes_bits),
    T(test_same_events_only_update_the_token),
    T(test_op_follows_the_kernel_not_the_batch),
    T(test_bad_changes_are_refused_alone),
    T(test_batch_is_one_pollset_ctl),
    T(test_refused_element_resubmits_the_rest),
    T(test_refused_first_element),
    T(test_refused_add_of_a_pair_leaves_fd_out),
    T(test_two_changes_to_one_fd_in_a_batch),
    T(test_delete_of_closed_fd_succeeds),
    T(test_reused_fd_carries_new_token),
    T(test_peer_close_reports_hup),
    T(test_poll_capacity_limits_records),
#undef T
};

int main(void)
{
    alarm(10); /* a hung poll kills the run instead of stalling it */
    return run_tests(tests, sizeof(tests) / sizeof(tests[0]));
}
