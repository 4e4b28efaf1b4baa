/*
 * Tests for the epoll backend (linux/epoll_backend.h), one static function per documented
 * behaviour. Prints "N passed, M failed" (tests, not checks) and exits non-zero on failure.
 */
#include "epoll_backend.h"
#include "test_support.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* ---- helpers ---- */

static struct ns_backend *open_ep(int capacity)
{
    struct ns_backend *ep = NULL;
    int rc = ns_epoll_ops.open(capacity, &ep);
    CHECK(rc == 0);
    CHECK(ep != NULL);
    return ep;
}

/* One change; returns the epoll_ctl call count and stores the change's error. */
static int apply1(struct ns_backend *ep, int op, int fd, uint32_t events, uint64_t token,
                  int *error)
{
    struct ns_change c = { .token = token, .fd = fd, .events = events, .op = op, .error = -1 };
    int calls = ns_epoll_ops.apply(ep, &c, 1, 1);
    *error = c.error;
    return calls;
}

/* A change expected to take exactly one call and succeed. */
static void apply_ok(struct ns_backend *ep, int op, int fd, uint32_t events, uint64_t token)
{
    int error;
    int calls = apply1(ep, op, fd, events, token, &error);
    CHECK(calls == 1);
    CHECK(error == 0);
}

/* Polls and checks every record carries only documented bits and a zero reserved field. */
static int poll_ep(struct ns_backend *ep, struct ns_ready *ready, int capacity, int timeout_ms)
{
    int n = ns_epoll_ops.poll(ep, ready, capacity, timeout_ms);
    for (int i = 0; i < n; i++) {
        CHECK((ready[i].events & ~ALL_BITS) == 0);
        CHECK(ready[i].reserved == 0);
    }
    return n;
}

/* Polls with timeout 0 and expects exactly one record with this token and these events. */
static void expect_one(struct ns_backend *ep, uint64_t token, uint32_t events)
{
    struct ns_ready ready[4];
    int n = poll_ep(ep, ready, 4, 0);
    CHECK(n == 1);
    if (n >= 1) {
        CHECK(ready[0].token == token);
        CHECK(ready[0].events == events);
    }
}

static void expect_none(struct ns_backend *ep)
{
    struct ns_ready ready[4];
    CHECK(poll_ep(ep, ready, 4, 0) == 0);
}

/* ---- open / close ---- */

static void test_open_rejects_bad_capacity(void)
{
    struct ns_backend *ep = NULL;
    CHECK(ns_epoll_ops.open(0, &ep) == -EINVAL);
    CHECK(ns_epoll_ops.open(-1, &ep) == -EINVAL);
    CHECK(ep == NULL);
}

static void test_open_close_no_fd_leak(void)
{
    int before = count_fds();
    CHECK(before > 0);
    for (int i = 0; i < 1000; i++) {
        struct ns_backend *ep = NULL;
        int rc = ns_epoll_ops.open(1 + i % 64, &ep);
        if (rc != 0) {
            CHECK(rc == 0);
            break;
        }
        ns_epoll_ops.close(ep);
    }
    CHECK(count_fds() == before);
}

/* ---- wakeup and timeouts ---- */

static void test_wakeup_then_drained(void)
{
    struct ns_backend *ep = open_ep(8);
    CHECK(ns_epoll_ops.wakeup(ep) == 0);
    expect_one(ep, NS_WAKEUP_TOKEN, NS_IN);
    expect_none(ep);
    ns_epoll_ops.close(ep);
}

static void test_several_wakeups_one_record(void)
{
    struct ns_backend *ep = open_ep(8);
    for (int i = 0; i < 5; i++)
        CHECK(ns_epoll_ops.wakeup(ep) == 0);
    expect_one(ep, NS_WAKEUP_TOKEN, NS_IN);
    expect_none(ep);
    ns_epoll_ops.close(ep);
}

static void test_wakeup_alongside_ready_fd(void)
{
    struct ns_backend *ep = open_ep(8);
    int sv[2];
    make_pair(sv);
    apply_ok(ep, NS_OP_ADD, sv[0], NS_IN, TOKEN_A);
    put_byte(sv[1]);
    CHECK(ns_epoll_ops.wakeup(ep) == 0);
    struct ns_ready ready[4];
    int n = poll_ep(ep, ready, 4, 0);
    CHECK(n == 2);
    CHECK(find_token(ready, n, NS_WAKEUP_TOKEN) != NULL);
    CHECK(find_token(ready, n, TOKEN_A) != NULL);
    expect_one(ep, TOKEN_A, NS_IN); /* the wakeup was drained, the data was not */
    close_pair(sv);
    ns_epoll_ops.close(ep);
}

static void test_poll_timeouts_when_idle(void)
{
    struct ns_backend *ep = open_ep(8);
    struct ns_ready ready[4];
    expect_none(ep);
    long start = now_ms();
    CHECK(poll_ep(ep, ready, 4, 50) == 0);
    long elapsed = now_ms() - start;
    CHECK(elapsed >= 40);
    CHECK(elapsed < 2000);
    ns_epoll_ops.close(ep);
}

/* ---- readiness ---- */

static void test_add_in_level_triggered(void)
{
    struct ns_backend *ep = open_ep(8);
    int sv[2];
    make_pair(sv);
    apply_ok(ep, NS_OP_ADD, sv[0], NS_IN, TOKEN_A);
    expect_none(ep);
    put_byte(sv[1]);
    put_byte(sv[1]);
    expect_one(ep, TOKEN_A, NS_IN);
    expect_one(ep, TOKEN_A, NS_IN); /* not consumed: reported again */
    CHECK(drain_socket(sv[0]) == 2);
    expect_none(ep);
    close_pair(sv);
    ns_epoll_ops.close(ep);
}

static void test_mod_out_then_del(void)
{
    struct ns_backend *ep = open_ep(8);
    int sv[2];
    make_pair(sv);
    apply_ok(ep, NS_OP_ADD, sv[0], NS_IN, TOKEN_A);
    put_byte(sv[1]); /* readable too, but no longer asked for after MOD */
    apply_ok(ep, NS_OP_MOD, sv[0], NS_OUT, TOKEN_B);
    expect_one(ep, TOKEN_B, NS_OUT);
    apply_ok(ep, NS_OP_DEL, sv[0], 0, TOKEN_B);
    expect_none(ep);
    close_pair(sv);
    ns_epoll_ops.close(ep);
}

/* ---- apply: call counts and errors ---- */

static void test_add_present_becomes_mod(void)
{
    struct ns_backend *ep = open_ep(8);
    int sv[2], error = -1;
    make_pair(sv);
    apply_ok(ep, NS_OP_ADD, sv[0], NS_IN, TOKEN_A);
    CHECK(apply1(ep, NS_OP_ADD, sv[0], NS_OUT, TOKEN_B, &error) == 2);
    CHECK(error == 0);
    expect_one(ep, TOKEN_B, NS_OUT);
    close_pair(sv);
    ns_epoll_ops.close(ep);
}

static void test_mod_absent_becomes_add(void)
{
    struct ns_backend *ep = open_ep(8);
    int sv[2], error = -1;
    make_pair(sv);
    put_byte(sv[1]);
    CHECK(apply1(ep, NS_OP_MOD, sv[0], NS_IN, TOKEN_A, &error) == 2);
    CHECK(error == 0);
    expect_one(ep, TOKEN_A, NS_IN);
    close_pair(sv);
    ns_epoll_ops.close(ep);
}

static void test_del_absent_or_closed_succeeds(void)
{
    struct ns_backend *ep = open_ep(8);
    int sv[2], error = -1;
    make_pair(sv);
    CHECK(apply1(ep, NS_OP_DEL, sv[0], 0, TOKEN_A, &error) == 1);
    CHECK(error == 0);
    error = -1;
    CHECK(apply1(ep, NS_OP_DEL, closed_fd(), 0, TOKEN_A, &error) == 1);
    CHECK(error == 0);
    close_pair(sv);
    ns_epoll_ops.close(ep);
}

static void test_add_closed_fd_is_ebadf(void)
{
    struct ns_backend *ep = open_ep(8);
    int error = -1;
    CHECK(apply1(ep, NS_OP_ADD, closed_fd(), NS_IN, TOKEN_A, &error) == 1);
    CHECK(error == EBADF);
    ns_epoll_ops.close(ep);
}

static void test_unknown_op_is_einval(void)
{
    struct ns_backend *ep = open_ep(8);
    int sv[2], error = -1;
    make_pair(sv);
    CHECK(apply1(ep, 0, sv[0], NS_IN, TOKEN_A, &error) == 0);
    CHECK(error == EINVAL);
    error = -1;
    CHECK(apply1(ep, 99, sv[0], NS_IN, TOKEN_A, &error) == 0);
    CHECK(error == EINVAL);
    put_byte(sv[1]);
    expect_none(ep); /* nothing was registered */
    close_pair(sv);
    ns_epoll_ops.close(ep);
}

static void test_batch_applies_all_valid_changes(void)
{
    struct ns_backend *ep = open_ep(8);
    int s1[2], s2[2];
    make_pair(s1);
    make_pair(s2);
    struct ns_change batch[3] = {
        { .token = TOKEN_A, .fd = s1[0], .events = NS_IN, .op = NS_OP_ADD, .error = -1 },
        { .token = TOKEN_B, .fd = closed_fd(), .events = NS_IN, .op = NS_OP_ADD, .error = -1 },
        { .token = TOKEN_C, .fd = s2[0], .events = NS_IN, .op = NS_OP_ADD, .error = -1 },
    };
    CHECK(ns_epoll_ops.apply(ep, batch, 3, 1) == 3);
    CHECK(batch[0].error == 0);
    CHECK(batch[1].error == EBADF);
    CHECK(batch[2].error == 0);
    put_byte(s1[1]);
    put_byte(s2[1]);
    struct ns_ready ready[4];
    int n = poll_ep(ep, ready, 4, 0);
    CHECK(n == 2);
    CHECK(find_token(ready, n, TOKEN_A) != NULL);
    CHECK(find_token(ready, n, TOKEN_C) != NULL);
    CHECK(find_token(ready, n, TOKEN_B) == NULL);
    close_pair(s1);
    close_pair(s2);
    ns_epoll_ops.close(ep);
}

/* ---- hang-ups and errors ---- */

static void test_peer_close_reports_hup(void)
{
    struct ns_backend *ep = open_ep(8);
    int sv[2];
    make_pair(sv);
    apply_ok(ep, NS_OP_ADD, sv[0], NS_IN, TOKEN_A);
    close(sv[1]);
    expect_one(ep, TOKEN_A, NS_IN | NS_HUP); /* EOF reads as readable, and hung up */
    close(sv[0]);
    ns_epoll_ops.close(ep);
}

static void test_peer_shutdown_reports_hup(void)
{
    struct ns_backend *ep = open_ep(8);
    int sv[2];
    make_pair(sv);
    apply_ok(ep, NS_OP_ADD, sv[0], NS_IN | NS_OUT, TOKEN_A);
    CHECK(shutdown(sv[1], SHUT_RDWR) == 0);
    struct ns_ready ready[4];
    int n = poll_ep(ep, ready, 4, 0);
    CHECK(n == 1);
    CHECK(n == 1 && ready[0].token == TOKEN_A);
    CHECK(n == 1 && (ready[0].events & NS_HUP) != 0);
    close_pair(sv);
    ns_epoll_ops.close(ep);
}

static void test_pipe_hup_and_err(void)
{
    struct ns_backend *ep = open_ep(8);
    int p[2], q[2];
    CHECK(pipe2(p, O_CLOEXEC) == 0);
    CHECK(pipe2(q, O_CLOEXEC) == 0);
    apply_ok(ep, NS_OP_ADD, p[0], NS_IN, TOKEN_A);  /* read end; writer goes away */
    apply_ok(ep, NS_OP_ADD, q[1], NS_OUT, TOKEN_B); /* write end; reader goes away */
    expect_one(ep, TOKEN_B, NS_OUT);
    close(p[1]);
    close(q[0]);
    struct ns_ready ready[4];
    int n = poll_ep(ep, ready, 4, 0);
    CHECK(n == 2);
    const struct ns_ready *r = find_token(ready, n, TOKEN_A);
    const struct ns_ready *w = find_token(ready, n, TOKEN_B);
    CHECK(r != NULL && r->events == NS_HUP);
    CHECK(w != NULL && (w->events & NS_ERR) != 0);
    close(p[0]);
    close(q[1]);
    ns_epoll_ops.close(ep);
}

/* ---- fd reuse ---- */

static void test_reused_fd_carries_new_token(void)
{
    struct ns_backend *ep = open_ep(8);
    int sv[2];
    make_pair(sv);
    int x = sv[0];
    apply_ok(ep, NS_OP_ADD, x, NS_IN, TOKEN_A);
    apply_ok(ep, NS_OP_DEL, x, 0, TOKEN_A);
    close_pair(sv);

    make_pair(sv);
    if (sv[1] == x) { /* keep the registered end on number x */
        sv[1] = sv[0];
        sv[0] = x;
    } else if (sv[0] != x) {
        CHECK(dup2(sv[0], x) == x);
        close(sv[0]);
        sv[0] = x;
    }
    CHECK(sv[0] == x);
    apply_ok(ep, NS_OP_ADD, x, NS_IN, TOKEN_B);
    put_byte(sv[1]);
    expect_one(ep, TOKEN_B, NS_IN);
    close_pair(sv);
    ns_epoll_ops.close(ep);
}

/* ---- capacity ---- */

static void test_poll_capacity_limits_records(void)
{
    struct ns_backend *ep = open_ep(8);
    const uint64_t tokens[3] = { TOKEN_A, TOKEN_B, TOKEN_C };
    int sv[3][2];
    for (int i = 0; i < 3; i++) {
        make_pair(sv[i]);
        apply_ok(ep, NS_OP_ADD, sv[i][0], NS_IN, tokens[i]);
        put_byte(sv[i][1]);
    }
    struct ns_ready first[8], second[8];
    int n1 = poll_ep(ep, first, 2, 0);
    CHECK(n1 == 2);
    int n2 = poll_ep(ep, second, 2, 0);
    CHECK(n2 >= 1 && n2 <= 2);
    /* Each token shows up in one of the two polls: the one left out comes next. */
    for (int i = 0; i < 3; i++)
        CHECK(find_token(first, n1, tokens[i]) != NULL || find_token(second, n2, tokens[i]) != NULL);
    for (int i = 0; i < 3; i++)
        close_pair(sv[i]);
    ns_epoll_ops.close(ep);
}

static void test_poll_limited_by_open_capacity(void)
{
    struct ns_backend *ep = open_ep(2);
    int sv[3][2];
    for (int i = 0; i < 3; i++) {
        make_pair(sv[i]);
        apply_ok(ep, NS_OP_ADD, sv[i][0], NS_IN, TOKEN_A + (uint64_t)i);
        put_byte(sv[i][1]);
    }
    struct ns_ready ready[8];
    CHECK(poll_ep(ep, ready, 8, 0) == 2);
    for (int i = 0; i < 3; i++)
        close_pair(sv[i]);
    ns_epoll_ops.close(ep);
}

/* ---- threads ---- */

static void *wake_after_50ms(void *arg)
{
    sleep_ms(50);
    CHECK(ns_epoll_ops.wakeup(arg) == 0);
    return NULL;
}

static void test_wakeup_from_other_thread(void)
{
    struct ns_backend *ep = open_ep(8);
    pthread_t t;
    CHECK(pthread_create(&t, NULL, wake_after_50ms, ep) == 0);
    struct ns_ready ready[4];
    int n = poll_ep(ep, ready, 4, -1);
    CHECK(n == 1);
    CHECK(n == 1 && ready[0].token == NS_WAKEUP_TOKEN);
    CHECK(pthread_join(t, NULL) == 0);
    ns_epoll_ops.close(ep);
}

struct add_later {
    struct ns_backend *ep;
    int fd;
    int calls;
    int error;
};

static void *add_after_50ms(void *arg)
{
    struct add_later *a = arg;
    sleep_ms(50);
    a->calls = apply1(a->ep, NS_OP_ADD, a->fd, NS_IN, TOKEN_C, &a->error);
    return NULL;
}

static void test_add_while_polling(void)
{
    struct ns_backend *ep = open_ep(8);
    int sv[2];
    make_pair(sv);
    put_byte(sv[1]);
    struct add_later a = { .ep = ep, .fd = sv[0], .calls = -1, .error = -1 };
    pthread_t t;
    CHECK(pthread_create(&t, NULL, add_after_50ms, &a) == 0);
    struct ns_ready ready[4];
    long start = now_ms();
    int n = poll_ep(ep, ready, 4, 5000);
    CHECK(now_ms() - start < 4000);
    CHECK(n == 1);
    CHECK(n == 1 && ready[0].token == TOKEN_C && ready[0].events == NS_IN);
    CHECK(pthread_join(t, NULL) == 0);
    CHECK(a.calls == 1);
    CHECK(a.error == 0);
    close_pair(sv);
    ns_epoll_ops.close(ep);
}

/* ---- runner ---- */

static const struct test tests[] = {
    T(test_open_rejects_bad_capacity),
    T(test_open_close_no_fd_leak),
    T(test_wakeup_then_drained),
    T(test_several_wakeups_one_record),
    T(test_wakeup_alongside_ready_fd),
    T(test_poll_timeouts_when_idle),
    T(test_add_in_level_triggered),
    T(test_mod_out_then_del),
    T(test_add_present_becomes_mod),
    T(test_mod_absent_becomes_add),
    T(test_del_absent_or_closed_succeeds),
    T(test_add_closed_fd_is_ebadf),
    T(test_unknown_op_is_einval),
    T(test_batch_applies_all_valid_changes),
    T(test_peer_close_reports_hup),
    T(test_peer_shutdown_reports_hup),
    T(test_pipe_hup_and_err),
    T(test_reused_fd_carries_new_token),
    T(test_poll_capacity_limits_records),
    T(test_poll_limited_by_open_capacity),
    T(test_wakeup_from_other_thread),
    T(test_add_while_polling),
#undef T
};

int main(void)
{
    alarm(10); /* a hung poll kills the run instead of stalling it */
    return run_tests(tests, sizeof(tests) / sizeof(tests[0]));
}
