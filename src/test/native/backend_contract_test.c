/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

/*
 * The contract every backend keeps (ns_backend.h), tested through one backend's ops table:
 * NS_CONTRACT_OPS, which CMakeLists.txt names when it builds this file once per backend
 * (ctest backend_contract_<name>). What only one backend does, and how many system calls it
 * makes for it, is tested beside that backend (<name>_backend_test.c).
 *
 * The cases use only the backend and POSIX, so they run on AIX too. io_uring refused here fails
 * the run unless NATIVESELECTOR_NO_IO_URING=1 (backend_testable). Prints "N passed, M failed".
 */
#include "backend_test_support.h"

#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

extern const struct ns_backend_ops NS_CONTRACT_OPS;

static const struct ns_backend_ops *const ops = &NS_CONTRACT_OPS;

/* ---- open / close ---- */

static void test_open_rejects_bad_capacity(void)
{
    struct ns_backend *b = NULL;
    CHECK(ops->open(0, 0, &b) == -EINVAL);
    CHECK(ops->open(-1, 0, &b) == -EINVAL);
    CHECK(ops->open(INT_MIN, 0, &b) == -EINVAL);
    CHECK(b == NULL);
}

static void test_open_close_leaves_no_fd(void)
{
    int before = count_fds();
    CHECK(before > 0);
    for (int i = 0; i < 1000; i++) {
        struct ns_backend *b = NULL;
        int rc = ops->open(1 + i % 64, 0, &b);
        if (rc != 0) {
            CHECK(rc == 0);
            break;
        }
        if (i % 2 == 1) { /* half of them polled once: closed with their wakeup watched */
            struct ns_ready ready[2];
            CHECK(poll_records(b, ready, 2, 0, NULL) == 0);
        }
        ops->close(b);
    }
    CHECK(count_fds() == before);
}

/* The lowest fd number not in use. */
static int lowest_free_fd(void)
{
    int fd = dup(0);
    CHECK(fd >= 0);
    close(fd);
    return fd;
}

/*
 * "On failure nothing is left behind": with the descriptor limit at the lowest free number, and
 * then a few above it, open runs out of descriptors at each of its steps in turn. It fails with
 * EMFILE and leaves every descriptor as it was, or it succeeds with a wakeup that works.
 */
static void test_open_out_of_descriptors_leaves_nothing(void)
{
    struct rlimit saved;
    CHECK(getrlimit(RLIMIT_NOFILE, &saved) == 0);
    int fds = count_fds();
    int lowest = lowest_free_fd();
    int refused = 0, opened = 0;
    for (int spare = 0; spare < 6; spare++) {
        struct rlimit limited = { (rlim_t)(lowest + spare), saved.rlim_max };
        CHECK(setrlimit(RLIMIT_NOFILE, &limited) == 0);
        struct ns_backend *b = NULL;
        int rc = ops->open(4, 0, &b);
        CHECK(setrlimit(RLIMIT_NOFILE, &saved) == 0);
        if (rc == 0) {
            opened++;
            CHECK(ops->wakeup(b) == 0);
            expect_one(b, NS_WAKEUP_TOKEN, NS_IN);
            ops->close(b);
        } else {
            refused++;
            CHECK(rc == -EMFILE);
            CHECK(b == NULL);
        }
        CHECK(count_fds() == fds);
    }
    CHECK(refused >= 1); /* with no descriptor to spare, open cannot succeed */
    CHECK(opened >= 1);  /* and six are enough for every backend */
}

/* ---- wakeup ---- */

static void test_wakeup_then_drained(void)
{
    struct ns_backend *b = open_backend(ops, 8);
    expect_none(b);
    CHECK(ops->wakeup(b) == 0);
    expect_one(b, NS_WAKEUP_TOKEN, NS_IN);
    expect_none(b);
    /* and again, once the wakeup is watched anew */
    CHECK(ops->wakeup(b) == 0);
    expect_one(b, NS_WAKEUP_TOKEN, NS_IN);
    expect_none(b);
    ops->close(b);
}

static void test_several_wakeups_one_record(void)
{
    struct ns_backend *b = open_backend(ops, 8);
    for (int i = 0; i < 5; i++)
        CHECK(ops->wakeup(b) == 0);
    expect_one(b, NS_WAKEUP_TOKEN, NS_IN);
    expect_none(b);
    /* the same with the wakeup already watched in the kernel */
    for (int i = 0; i < 5; i++)
        CHECK(ops->wakeup(b) == 0);
    expect_one(b, NS_WAKEUP_TOKEN, NS_IN);
    expect_none(b);
    ops->close(b);
}

static void test_wakeup_alongside_ready_fd(void)
{
    struct ns_backend *b = open_backend(ops, 8);
    int sv[2];
    make_pair(sv);
    apply_ok(b, NS_OP_ADD, sv[0], NS_IN, TOKEN_A);
    put_byte(sv[1]);
    CHECK(ops->wakeup(b) == 0);
    struct ns_ready ready[4];
    int n = poll_records(b, ready, 4, READY_WAIT_MS, NULL);
    CHECK(n == 2);
    CHECK(find_token(ready, n, NS_WAKEUP_TOKEN) != NULL);
    CHECK(find_token(ready, n, TOKEN_A) != NULL);
    expect_one(b, TOKEN_A, NS_IN); /* the wakeup was drained, the data was not */
    close_pair(sv);
    ops->close(b);
}

static void *wake_after_50ms(void *arg)
{
    sleep_ms(50);
    CHECK(ops->wakeup(arg) == 0);
    return NULL;
}

static void test_wakeup_from_other_thread(void)
{
    struct ns_backend *b = open_backend(ops, 8);
    for (int round = 0; round < 3; round++) {
        pthread_t t;
        long start = now_ms(); /* before the thread exists, so its whole sleep precedes the wakeup */
        CHECK(pthread_create(&t, NULL, wake_after_50ms, b) == 0);
        struct ns_ready ready[4];
        int n = poll_records(b, ready, 4, -1, NULL);
        CHECK(n == 1);
        CHECK(n == 1 && ready[0].token == NS_WAKEUP_TOKEN && ready[0].events == NS_IN);
        CHECK(now_ms() - start >= 30);
        CHECK(pthread_join(t, NULL) == 0);
    }
    expect_none(b);
    ops->close(b);
}

/* ---- waiting ---- */

static void test_poll_times_out_when_idle(void)
{
    struct ns_backend *b = open_backend(ops, 8);
    int sv[2];
    make_pair(sv);
    apply_ok(b, NS_OP_ADD, sv[0], NS_IN, TOKEN_A);
    struct ns_ready ready[4];
    for (int i = 0; i < 2; i++) { /* the first poll may have the wakeup still to watch */
        long start = now_ms();
        CHECK(poll_records(b, ready, 4, 50, NULL) == 0);
        long elapsed = now_ms() - start;
        CHECK(elapsed >= 40);
        CHECK(elapsed < 2000);
    }
    long start = now_ms();
    CHECK(poll_records(b, ready, 4, 0, NULL) == 0);
    CHECK(now_ms() - start < 1000);
    close_pair(sv);
    ops->close(b);
}

static void on_signal(int signal)
{
    (void)signal;
}

struct interrupter {
    pthread_t target;
    atomic_int done;
};

/* Signals the target every 20 ms until told to stop: one signal could come before it waits. */
static void *interrupt_until_done(void *arg)
{
    struct interrupter *i = arg;
    while (!i->done) {
        sleep_ms(20);
        if (!i->done)
            CHECK(pthread_kill(i->target, SIGUSR1) == 0);
    }
    return NULL;
}

/* "-EINTR when a signal ended the wait", and the backend works on. */
static void test_signal_ends_the_wait_with_eintr(void)
{
    struct sigaction handler, saved;
    memset(&handler, 0, sizeof(handler));
    handler.sa_handler = on_signal; /* and no SA_RESTART */
    CHECK(sigemptyset(&handler.sa_mask) == 0);
    CHECK(sigaction(SIGUSR1, &handler, &saved) == 0);
    struct ns_backend *b = open_backend(ops, 8);
    struct interrupter i = { .target = pthread_self() };
    atomic_init(&i.done, 0);
    pthread_t t;
    CHECK(pthread_create(&t, NULL, interrupt_until_done, &i) == 0);
    struct ns_ready ready[4];
    int n = ops->poll(b, ready, 4, -1);
    i.done = 1;
    CHECK(pthread_join(t, NULL) == 0);
    CHECK(n == -EINTR);
    CHECK(sigaction(SIGUSR1, &saved, NULL) == 0);
    CHECK(ops->wakeup(b) == 0);
    expect_one(b, NS_WAKEUP_TOKEN, NS_IN);
    ops->close(b);
}

/* ---- readiness ---- */

static void test_add_is_level_triggered(void)
{
    struct ns_backend *b = open_backend(ops, 8);
    int sv[2];
    make_pair(sv);
    apply_ok(b, NS_OP_ADD, sv[0], NS_IN, TOKEN_C); /* the highest generation a token can have */
    expect_none(b);
    put_byte(sv[1]);
    put_byte(sv[1]);
    for (int i = 0; i < 5; i++)
        expect_one(b, TOKEN_C, NS_IN); /* not consumed: reported by every poll */
    CHECK(drain_socket(sv[0]) == 2);
    expect_none(b);
    expect_none(b);
    put_byte(sv[1]); /* and readable again later */
    expect_one(b, TOKEN_C, NS_IN);
    expect_one(b, TOKEN_C, NS_IN);
    close_pair(sv);
    ops->close(b);
}

static void test_mod_replaces_the_events(void)
{
    struct ns_backend *b = open_backend(ops, 8);
    int sv[2];
    make_pair(sv);
    apply_ok(b, NS_OP_ADD, sv[0], NS_IN, TOKEN_A);
    expect_none(b);
    put_byte(sv[1]); /* readable too, but no longer asked for after MOD */
    apply_ok(b, NS_OP_MOD, sv[0], NS_OUT, TOKEN_A);
    expect_one(b, TOKEN_A, NS_OUT);
    expect_one(b, TOKEN_A, NS_OUT); /* level-triggered with the new events too */
    apply_ok(b, NS_OP_MOD, sv[0], NS_IN, TOKEN_A);
    expect_one(b, TOKEN_A, NS_IN);
    CHECK(drain_socket(sv[0]) == 1);
    /* fewer events: writable is no longer reported */
    apply_ok(b, NS_OP_MOD, sv[0], NS_IN | NS_OUT, TOKEN_A);
    expect_one(b, TOKEN_A, NS_OUT);
    apply_ok(b, NS_OP_MOD, sv[0], NS_IN, TOKEN_A);
    expect_none(b);
    put_byte(sv[1]);
    expect_one(b, TOKEN_A, NS_IN);
    close_pair(sv);
    ops->close(b);
}

/* A MOD to events ready at once, of a registration whose poll waits: reported at the next poll. */
static void test_mod_to_events_ready_now_is_reported(void)
{
    struct ns_backend *b = open_backend(ops, 8);
    int sv[2];
    make_pair(sv);
    apply_ok(b, NS_OP_ADD, sv[0], NS_IN, TOKEN_A);
    expect_none(b);
    apply_ok(b, NS_OP_MOD, sv[0], NS_OUT, TOKEN_A); /* writable already */
    expect_one(b, TOKEN_A, NS_OUT);
    apply_ok(b, NS_OP_MOD, sv[0], NS_IN | NS_OUT, TOKEN_A);
    expect_one(b, TOKEN_A, NS_OUT);
    close_pair(sv);
    ops->close(b);
}

/* "ADD and MOD both mean 'watch these events'": whatever the kernel holds for the fd. */
static void test_add_and_mod_both_mean_watch(void)
{
    struct ns_backend *b = open_backend(ops, 8);
    int sv[2];
    make_pair(sv);
    apply_ok(b, NS_OP_MOD, sv[0], NS_OUT, TOKEN_A); /* absent: watched */
    expect_one(b, TOKEN_A, NS_OUT);
    apply_ok(b, NS_OP_ADD, sv[0], NS_IN, TOKEN_A); /* present: its events replaced */
    expect_none(b);
    put_byte(sv[1]);
    expect_one(b, TOKEN_A, NS_IN);
    close_pair(sv);
    ops->close(b);
}

static void test_del_stops_reports(void)
{
    struct ns_backend *b = open_backend(ops, 8);
    int sv[2];
    make_pair(sv);
    apply_ok(b, NS_OP_ADD, sv[0], NS_IN, TOKEN_A);
    put_byte(sv[1]);
    expect_one(b, TOKEN_A, NS_IN);
    apply_ok(b, NS_OP_DEL, sv[0], 0, TOKEN_A);
    expect_none(b);
    put_byte(sv[1]);
    expect_none(b);
    /* DEL between readiness and the poll that would report it: not reported either */
    apply_ok(b, NS_OP_ADD, sv[0], NS_IN, TOKEN_B);
    sleep_ms(10);
    apply_ok(b, NS_OP_DEL, sv[0], 0, TOKEN_B);
    expect_none(b);
    close_pair(sv);
    ops->close(b);
}

/*
 * "MOD to no events reports nothing": the fd may stay registered (epoll parks it), but neither
 * readiness nor a hang-up is reported at every poll, at most once; then a MOD with events
 * reports what is there. Without it, a key whose interest is 0 would wake every select.
 */
static void test_mod_to_no_events_parks(void)
{
    struct ns_backend *b = open_backend(ops, 8);
    int sv[2];
    make_pair(sv);
    apply_ok(b, NS_OP_ADD, sv[0], NS_IN, TOKEN_A);
    put_byte(sv[1]);
    expect_one(b, TOKEN_A, NS_IN);
    apply_ok(b, NS_OP_MOD, sv[0], 0, TOKEN_A);
    expect_none(b);
    close(sv[1]);
    struct ns_ready ready[8];
    int reported = 0;
    for (int i = 0; i < 3; i++) {
        int n = poll_records(b, ready, 8, i == 0 ? QUIET_WAIT_MS : 0, NULL);
        for (int j = 0; j < n; j++) {
            CHECK(ready[j].token == TOKEN_A);
            CHECK((ready[j].events & (NS_IN | NS_OUT)) == 0);
        }
        reported += n;
    }
    CHECK(reported <= 1);
    apply_ok(b, NS_OP_MOD, sv[0], NS_IN, TOKEN_A);
    expect_one(b, TOKEN_A, NS_IN | NS_HUP);
    apply_ok(b, NS_OP_MOD, sv[0], 0, TOKEN_A);
    apply_ok(b, NS_OP_DEL, sv[0], 0, TOKEN_A);
    apply_ok(b, NS_OP_MOD, sv[0], NS_IN, TOKEN_B); /* absent again: watched */
    expect_one(b, TOKEN_B, NS_IN | NS_HUP);
    close(sv[0]);
    ops->close(b);
}

/* "DEL of an absent or closed fd succeeds". */
static void test_del_of_absent_or_closed_fd_succeeds(void)
{
    struct ns_backend *b = open_backend(ops, 8);
    int sv[2];
    make_pair(sv);
    apply_ok(b, NS_OP_DEL, sv[0], 0, TOKEN_A);     /* never added */
    apply_ok(b, NS_OP_DEL, closed_fd(), 0, TOKEN_A); /* not even open */
    apply_ok(b, NS_OP_ADD, sv[0], NS_IN, TOKEN_A);
    apply_ok(b, NS_OP_DEL, sv[0], 0, TOKEN_A);
    apply_ok(b, NS_OP_DEL, sv[0], 0, TOKEN_A); /* twice */
    apply_ok(b, NS_OP_ADD, sv[0], NS_IN, TOKEN_B);
    close(sv[0]); /* closed while watched */
    apply_ok(b, NS_OP_DEL, sv[0], 0, TOKEN_B);
    expect_none(b);
    close(sv[1]);
    ops->close(b);
}

/* ---- changes refused ---- */

static void test_unknown_op_is_einval_alone(void)
{
    struct ns_backend *b = open_backend(ops, 8);
    int sv[2], error = -1;
    make_pair(sv);
    CHECK(apply1(b, 0, sv[0], NS_IN, TOKEN_A, 1, &error) >= 0);
    CHECK(error == EINVAL);
    error = -1;
    CHECK(apply1(b, 99, sv[0], NS_IN, TOKEN_A, 1, &error) >= 0);
    CHECK(error == EINVAL);
    put_byte(sv[1]);
    expect_none(b); /* nothing was registered */
    close_pair(sv);
    ops->close(b);
}

/*
 * The kernel refuses to watch an fd that is not open. A backend whose kernel answers at once
 * gives the change EBADF and registers nothing; io_uring's answer comes with the poll, as one
 * NS_NVAL record for the token, after which the fd is not polled again.
 */
static void check_refused_bad_fd(const struct ns_change *c, const struct ns_ready *ready, int n)
{
    const struct ns_ready *r = find_token(ready, n, c->token);
    if (c->error == 0) {
        CHECK(r != NULL && r->events == NS_NVAL);
    } else {
        CHECK(c->error == EBADF);
        CHECK(r == NULL);
    }
}

static void test_add_of_bad_fd_is_refused(void)
{
    for (int i = 0; i < 2; i++) {
        struct ns_backend *b = open_backend(ops, 8);
        struct ns_change c = change_of(NS_OP_ADD, i == 0 ? closed_fd() : -1, NS_IN, TOKEN_A);
        CHECK(ops->apply(b, &c, 1, 1) >= 0);
        struct ns_ready ready[4];
        int n = poll_records(b, ready, 4, c.error == 0 ? READY_WAIT_MS : QUIET_WAIT_MS, NULL);
        CHECK(n == (c.error == 0 ? 1 : 0));
        check_refused_bad_fd(&c, ready, n);
        expect_none(b);
        ops->close(b);
    }
}

/* "writing each change's errno into change->error": one refused change fails alone. */
static void test_refusal_is_per_change(void)
{
    struct ns_backend *b = open_backend(ops, 8);
    int s1[2], s2[2];
    make_pair(s1);
    make_pair(s2);
    struct ns_change batch[4] = {
        change_of(NS_OP_ADD, closed_fd(), NS_IN, TOKEN_D),
        change_of(NS_OP_ADD, s1[0], NS_IN, TOKEN_A),
        change_of(99, s2[0], NS_IN, TOKEN_B),
        change_of(NS_OP_ADD, s2[0], NS_IN, TOKEN_C),
    };
    CHECK(ops->apply(b, batch, 4, 1) >= 0);
    CHECK(batch[1].error == 0);
    CHECK(batch[2].error == EINVAL);
    CHECK(batch[3].error == 0);
    put_byte(s1[1]);
    put_byte(s2[1]);
    struct ns_ready ready[8];
    int n = 0;
    long deadline = now_ms() + READY_WAIT_MS;
    while (n < (batch[0].error == 0 ? 3 : 2) && now_ms() < deadline)
        n += poll_records(b, ready + n, 8 - n, READY_WAIT_MS, NULL);
    CHECK(n == (batch[0].error == 0 ? 3 : 2));
    const struct ns_ready *a = find_token(ready, n, TOKEN_A), *c = find_token(ready, n, TOKEN_C);
    CHECK(a != NULL && a->events == NS_IN);
    CHECK(c != NULL && c->events == NS_IN);
    check_refused_bad_fd(&batch[0], ready, n);
    close_pair(s1);
    close_pair(s2);
    ops->close(b);
}

/* ---- hang-ups and errors ---- */

static void test_peer_close_reports_hup(void)
{
    struct ns_backend *b = open_backend(ops, 8);
    int sv[2];
    make_pair(sv);
    apply_ok(b, NS_OP_ADD, sv[0], NS_IN, TOKEN_A);
    close(sv[1]);
    expect_one(b, TOKEN_A, NS_IN | NS_HUP); /* end of stream reads as readable, and hung up */
    close(sv[0]);
    ops->close(b);
}

static void test_peer_shutdown_reports_hup(void)
{
    struct ns_backend *b = open_backend(ops, 8);
    int sv[2];
    make_pair(sv);
    apply_ok(b, NS_OP_ADD, sv[0], NS_IN | NS_OUT, TOKEN_A);
    CHECK(shutdown(sv[1], SHUT_RDWR) == 0);
    struct ns_ready ready[4];
    int n = poll_records(b, ready, 4, READY_WAIT_MS, NULL);
    CHECK(n == 1);
    CHECK(n == 1 && ready[0].token == TOKEN_A);
    CHECK(n == 1 && (ready[0].events & NS_HUP) != 0);
    close_pair(sv);
    ops->close(b);
}

/* HUP and ERR are reported whether asked for or not. */
static void test_pipe_ends_report_hup_and_err(void)
{
    struct ns_backend *b = open_backend(ops, 8);
    int p[2], q[2];
    CHECK(pipe(p) == 0);
    CHECK(pipe(q) == 0);
    apply_ok(b, NS_OP_ADD, p[0], NS_IN, TOKEN_A);  /* read end; the writer goes away */
    apply_ok(b, NS_OP_ADD, q[1], NS_OUT, TOKEN_C); /* write end; the reader goes away */
    expect_one(b, TOKEN_C, NS_OUT);
    close(p[1]);
    close(q[0]);
    struct ns_ready ready[4];
    int n = 0;
    long deadline = now_ms() + READY_WAIT_MS;
    while (n < 2 && now_ms() < deadline)
        n += poll_records(b, ready + n, 4 - n, READY_WAIT_MS, NULL);
    CHECK(n == 2);
    const struct ns_ready *r = find_token(ready, n, TOKEN_A);
    const struct ns_ready *w = find_token(ready, n, TOKEN_C);
    CHECK(r != NULL && r->events == NS_HUP);
    CHECK(w != NULL && (w->events & NS_ERR) != 0);
    close(p[0]);
    close(q[1]);
    ops->close(b);
}

/* ---- fd reuse ---- */

static void test_reused_fd_carries_new_token(void)
{
    struct ns_backend *b = open_backend(ops, 8);
    int sv[2];
    make_pair(sv);
    int x = sv[0];
    apply_ok(b, NS_OP_ADD, x, NS_IN, TOKEN_A);
    expect_none(b);
    apply_ok(b, NS_OP_DEL, x, 0, TOKEN_A);
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
    apply_ok(b, NS_OP_ADD, x, NS_IN, TOKEN_B);
    put_byte(sv[1]);
    for (int i = 0; i < 3; i++)
        expect_one(b, TOKEN_B, NS_IN);
    close_pair(sv);
    ops->close(b);
}

/* ---- capacity ---- */

/* More ready than the caller's array holds: the one left out comes next, and none is starved. */
static void test_poll_capacity_limits_records(void)
{
    struct ns_backend *b = open_backend(ops, 8);
    const uint64_t tokens[3] = { TOKEN_A, TOKEN_C, TOKEN_D };
    int sv[3][2];
    struct ns_ready first[8], second[8];
    for (int i = 0; i < 3; i++) {
        make_pair(sv[i]);
        apply_ok(b, NS_OP_ADD, sv[i][0], NS_IN, tokens[i]);
    }
    CHECK(poll_records(b, first, 8, 0, NULL) == 0);
    for (int i = 0; i < 3; i++)
        put_byte(sv[i][1]);
    int n1 = poll_records(b, first, 2, READY_WAIT_MS, NULL);
    CHECK(n1 == 2);
    int n2 = poll_records(b, second, 2, READY_WAIT_MS, NULL);
    CHECK(n2 >= 1 && n2 <= 2);
    for (int i = 0; i < 3; i++)
        CHECK(find_token(first, n1, tokens[i]) != NULL || find_token(second, n2, tokens[i]) != NULL);
    for (int i = 0; i < n2; i++)
        CHECK(second[i].events == NS_IN);
    /* and every one of them still comes, level-triggered, over the next polls */
    int seen[3] = { 0, 0, 0 };
    for (int round = 0; round < 6; round++) {
        struct ns_ready more[8];
        int n = poll_records(b, more, 2, READY_WAIT_MS, NULL);
        for (int i = 0; i < 3; i++)
            seen[i] += find_token(more, n, tokens[i]) != NULL;
    }
    for (int i = 0; i < 3; i++)
        CHECK(seen[i] >= 2);
    for (int i = 0; i < 3; i++)
        close_pair(sv[i]);
    ops->close(b);
}

/* ---- threads ---- */

struct apply_later {
    struct ns_backend *b;
    struct ns_change change;
    int result;
};

static void *apply_after_50ms(void *arg)
{
    struct apply_later *a = arg;
    sleep_ms(50);
    a->result = ops->apply(a->b, &a->change, 1, 1);
    return NULL;
}

/* With applies_during_poll, an ADD on another thread ends a wait with nothing else to end it. */
static void test_add_from_other_thread_during_poll(void)
{
    if (!ops->applies_during_poll)
        return; /* its callers never apply while a poll is in progress */
    struct ns_backend *b = open_backend(ops, 8);
    int sv[2];
    make_pair(sv);
    put_byte(sv[1]);
    struct apply_later a = { .b = b, .change = change_of(NS_OP_ADD, sv[0], NS_IN, TOKEN_C), .result = -1 };
    pthread_t t;
    CHECK(pthread_create(&t, NULL, apply_after_50ms, &a) == 0);
    struct ns_ready ready[4];
    long start = now_ms();
    int n = poll_records(b, ready, 4, -1, NULL);
    CHECK(now_ms() - start < 4000);
    CHECK(n == 1);
    CHECK(n == 1 && ready[0].token == TOKEN_C && ready[0].events == NS_IN);
    CHECK(pthread_join(t, NULL) == 0);
    CHECK(a.result >= 0);
    CHECK(a.change.error == 0);
    expect_one(b, TOKEN_C, NS_IN); /* and it stays reported */
    close_pair(sv);
    ops->close(b);
}

/* ---- releasing files ---- */

/* A DEL releases the fd's file: once the fd is closed, its peer sees the end of the stream. */
static void test_del_then_close_ends_the_stream(void)
{
    struct ns_backend *b = open_backend(ops, 8);
    int sv[2];
    make_pair(sv);
    apply_ok(b, NS_OP_ADD, sv[0], NS_IN, TOKEN_A);
    expect_none(b); /* watched in the kernel */
    apply_ok(b, NS_OP_DEL, sv[0], 0, TOKEN_A);
    close(sv[0]);
    expect_end_of_stream(sv[1]);
    close(sv[1]);
    ops->close(b);
}

/* "close releases the kernel object (every registration goes with it)", and their files. */
static void test_close_releases_registered_files(void)
{
    struct ns_backend *b = open_backend(ops, 8);
    int sv[2];
    make_pair(sv);
    apply_ok(b, NS_OP_ADD, sv[0], NS_IN, TOKEN_A);
    expect_none(b);
    close(sv[0]);
    ops->close(b);
    expect_end_of_stream(sv[1]);
    close(sv[1]);
}

/* ---- runner ---- */

static const struct test tests[] = {
    T(test_open_rejects_bad_capacity),
    T(test_open_close_leaves_no_fd),
    T(test_open_out_of_descriptors_leaves_nothing),
    T(test_wakeup_then_drained),
    T(test_several_wakeups_one_record),
    T(test_wakeup_alongside_ready_fd),
    T(test_wakeup_from_other_thread),
    T(test_poll_times_out_when_idle),
    T(test_signal_ends_the_wait_with_eintr),
    T(test_add_is_level_triggered),
    T(test_mod_replaces_the_events),
    T(test_mod_to_events_ready_now_is_reported),
    T(test_add_and_mod_both_mean_watch),
    T(test_del_stops_reports),
    T(test_mod_to_no_events_parks),
    T(test_del_of_absent_or_closed_fd_succeeds),
    T(test_unknown_op_is_einval_alone),
    T(test_add_of_bad_fd_is_refused),
    T(test_refusal_is_per_change),
    T(test_peer_close_reports_hup),
    T(test_peer_shutdown_reports_hup),
    T(test_pipe_ends_report_hup_and_err),
    T(test_reused_fd_carries_new_token),
    T(test_poll_capacity_limits_records),
    T(test_add_from_other_thread_during_poll),
    T(test_del_then_close_ends_the_stream),
    T(test_close_releases_registered_files),
#undef T
};

int main(void)
{
    alarm(30); /* a hung poll kills the run instead of stalling it */
    printf("the %s backend against the contract of ns_backend.h\n", ops->name);
    int status;
    if (!backend_testable(ops, &status))
        return status;
    return run_tests(tests, sizeof(tests) / sizeof(tests[0]));
}
