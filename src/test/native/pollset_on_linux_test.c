/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

/*
 * Tests of the AIX pollset API as pollset-on-linux/ implements it: one static function per
 * behaviour that <sys/pollset.h> documents, quirks included. Prints "N passed, M failed".
 */
#include <sys/pollset.h>

#include "pollset-on-linux/pollset_on_linux.h"
#include "test_support.h"

#include <errno.h>
#include <pthread.h>
#include <sys/socket.h>
#include <unistd.h>

static pollset_t create_set(void)
{
    pollset_t ps = pollset_create(-1);
    CHECK(ps >= 0);
    return ps;
}

static int ctl1(pollset_t ps, short cmd, int fd, short events)
{
    struct poll_ctl c = { .cmd = cmd, .events = events, .fd = fd };
    return pollset_ctl(ps, &c, 1);
}

/* 1 and the events when fd is in the set, 0 when not. */
static int member_events(pollset_t ps, int fd, short *events)
{
    struct pollfd q = { .fd = fd };
    int rc = pollset_query(ps, &q);
    *events = q.events;
    return rc;
}

static int is_member(pollset_t ps, int fd)
{
    short events;
    return member_events(ps, fd, &events);
}

/* The revents pollset_poll reports for fd within timeout_ms, or 0. */
static short revents_of(pollset_t ps, int fd, int timeout_ms)
{
    struct pollfd out[16];
    int n = pollset_poll(ps, out, 16, timeout_ms);
    CHECK(n >= 0);
    for (int i = 0; i < n; i++)
        if (out[i].fd == fd)
            return out[i].revents;
    return 0;
}

/* ---- create / destroy ---- */

static void test_ids_are_not_fds_and_start_at_zero(void)
{
    pollset_t first = pollset_create(-1);
    pollset_t second = pollset_create(16);
    CHECK(first == 0);
    CHECK(second == 1);
    CHECK(pollset_destroy(first) == 0);
    CHECK(pollset_create(-1) == 0); /* the lowest free id again */
    CHECK(pollset_destroy(0) == 0);
    CHECK(pollset_destroy(second) == 0);
}

static void test_create_rejects_bad_maxfd(void)
{
    errno = 0;
    CHECK(pollset_create(0) == -1 && errno == EINVAL);
    errno = 0;
    CHECK(pollset_create(-2) == -1 && errno == EINVAL);
}

static void test_unknown_set_is_einval(void)
{
    struct pollfd q = { .fd = 0 };
    errno = 0;
    CHECK(pollset_query(4242, &q) == -1 && errno == EINVAL);
    errno = 0;
    CHECK(ctl1(4242, PS_ADD, 0, POLLIN) == -1 && errno == EINVAL);
    errno = 0;
    CHECK(pollset_destroy(4242) == -1 && errno == EINVAL);
}

static void test_maxfd_limits_members(void)
{
    pollset_t ps = pollset_create(1);
    int sv[2];
    make_pair(sv);
    CHECK(ctl1(ps, PS_ADD, sv[0], POLLIN) == 0);
    errno = 0;
    CHECK(ctl1(ps, PS_ADD, sv[1], POLLIN) == -1 && errno == ENOSPC);
    CHECK(pollset_destroy(ps) == 0);
    close_pair(sv);
}

/* ---- pollset_ctl ---- */

static void test_add_then_query(void)
{
    pollset_t ps = create_set();
    int sv[2];
    make_pair(sv);
    short events = 0;
    CHECK(is_member(ps, sv[0]) == 0);
    CHECK(ctl1(ps, PS_ADD, sv[0], POLLIN) == 0);
    CHECK(member_events(ps, sv[0], &events) == 1 && events == POLLIN);
    pollset_destroy(ps);
    close_pair(sv);
}

static void test_add_present_is_einval(void)
{
    pollset_t ps = create_set();
    int sv[2];
    make_pair(sv);
    CHECK(ctl1(ps, PS_ADD, sv[0], POLLIN) == 0);
    errno = 0;
    CHECK(ctl1(ps, PS_ADD, sv[0], POLLOUT) == -1 && errno == EINVAL);
    short events = 0;
    CHECK(member_events(ps, sv[0], &events) == 1 && events == POLLIN);
    pollset_destroy(ps);
    close_pair(sv);
}

static void test_add_closed_is_ebadf(void)
{
    pollset_t ps = create_set();
    int fd = closed_fd();
    errno = 0;
    CHECK(ctl1(ps, PS_ADD, fd, POLLIN) == -1 && errno == EBADF);
    CHECK(is_member(ps, fd) == 0);
    pollset_destroy(ps);
}

static void test_mod_ors_bits_and_never_removes(void)
{
    pollset_t ps = create_set();
    int sv[2];
    make_pair(sv);
    short events = 0;
    CHECK(ctl1(ps, PS_ADD, sv[0], POLLIN) == 0);
    CHECK(ctl1(ps, PS_MOD, sv[0], POLLOUT) == 0);
    CHECK(member_events(ps, sv[0], &events) == 1 && events == (POLLIN | POLLOUT));
    CHECK(ctl1(ps, PS_MOD, sv[0], POLLIN) == 0);
    CHECK(member_events(ps, sv[0], &events) == 1 && events == (POLLIN | POLLOUT));
    /* Still watching POLLOUT: the writable socket is reported. */
    CHECK((revents_of(ps, sv[0], 0) & POLLOUT) != 0);
    pollset_destroy(ps);
    close_pair(sv);
}

static void test_mod_absent_adds(void)
{
    pollset_t ps = create_set();
    int sv[2];
    make_pair(sv);
    short events = 0;
    CHECK(ctl1(ps, PS_MOD, sv[0], POLLOUT) == 0);
    CHECK(member_events(ps, sv[0], &events) == 1 && events == POLLOUT);
    pollset_destroy(ps);
    close_pair(sv);
}

static void test_delete_then_delete_absent_is_einval(void)
{
    pollset_t ps = create_set();
    int sv[2];
    make_pair(sv);
    CHECK(ctl1(ps, PS_ADD, sv[0], POLLIN) == 0);
    CHECK(ctl1(ps, PS_DELETE, sv[0], 0) == 0);
    CHECK(is_member(ps, sv[0]) == 0);
    errno = 0;
    CHECK(ctl1(ps, PS_DELETE, sv[0], 0) == -1 && errno == EINVAL);
    pollset_destroy(ps);
    close_pair(sv);
}

static void test_delete_works_on_closed_fd(void)
{
    pollset_t ps = create_set();
    int sv[2];
    make_pair(sv);
    CHECK(ctl1(ps, PS_ADD, sv[0], POLLIN) == 0);
    close(sv[0]);
    CHECK(is_member(ps, sv[0]) == 1);
    CHECK(ctl1(ps, PS_DELETE, sv[0], 0) == 0);
    CHECK(is_member(ps, sv[0]) == 0);
    pollset_destroy(ps);
    close(sv[1]);
}

static void test_unknown_command_or_bits_is_einval(void)
{
    pollset_t ps = create_set();
    int sv[2];
    make_pair(sv);
    errno = 0;
    CHECK(ctl1(ps, 7, sv[0], POLLIN) == -1 && errno == EINVAL);
    errno = 0;
    CHECK(ctl1(ps, PS_ADD, sv[0], POLLHUP) == -1 && errno == EINVAL);
    CHECK(is_member(ps, sv[0]) == 0);
    pollset_destroy(ps);
    close_pair(sv);
}

static void test_failure_returns_index_with_earlier_elements_applied(void)
{
    pollset_t ps = create_set();
    int a[2], b[2], c[2];
    make_pair(a);
    make_pair(b);
    make_pair(c);
    int gone = closed_fd();
    struct poll_ctl batch[] = {
        { .cmd = PS_ADD, .events = POLLIN, .fd = a[0] },
        { .cmd = PS_ADD, .events = POLLIN, .fd = b[0] },
        { .cmd = PS_ADD, .events = POLLIN, .fd = gone },
        { .cmd = PS_ADD, .events = POLLIN, .fd = c[0] },
    };
    errno = 0;
    CHECK(pollset_ctl(ps, batch, 4) == 2);
    CHECK(errno == EBADF);
    CHECK(is_member(ps, a[0]) == 1);
    CHECK(is_member(ps, b[0]) == 1);
    CHECK(is_member(ps, c[0]) == 0); /* after the refused element: not attempted */
    CHECK(pollset_ctl(ps, batch + 3, 1) == 0);
    CHECK(is_member(ps, c[0]) == 1);
    pollset_destroy(ps);
    close_pair(a);
    close_pair(b);
    close_pair(c);
}

static void test_empty_batch_succeeds(void)
{
    pollset_t ps = create_set();
    CHECK(pollset_ctl(ps, NULL, 0) == 0);
    pollset_destroy(ps);
}

/* ---- pollset_poll ---- */

static void test_aix_bit_values_in_revents(void)
{
    CHECK(POLLIN == 0x0001 && POLLOUT == 0x0002 && POLLPRI == 0x0004);
    CHECK(POLLHUP == 0x2000 && POLLERR == 0x4000 && POLLNVAL == 0x8000);
    pollset_t ps = create_set();
    int sv[2];
    make_pair(sv);
    put_byte(sv[1]);
    CHECK(ctl1(ps, PS_ADD, sv[0], POLLIN | POLLOUT) == 0);
    CHECK(revents_of(ps, sv[0], 0) == (POLLIN | POLLOUT));
    pollset_destroy(ps);
    close_pair(sv);
}

static void test_poll_is_level_triggered_and_times_out(void)
{
    pollset_t ps = create_set();
    int sv[2];
    make_pair(sv);
    CHECK(ctl1(ps, PS_ADD, sv[0], POLLIN) == 0);
    long start = now_ms();
    struct pollfd out[4];
    CHECK(pollset_poll(ps, out, 4, 100) == 0);
    CHECK(now_ms() - start >= 90);
    put_byte(sv[1]);
    CHECK(revents_of(ps, sv[0], 1000) == POLLIN);
    CHECK(revents_of(ps, sv[0], 0) == POLLIN); /* not consumed: reported again */
    CHECK(drain_socket(sv[0]) == 1);
    CHECK(revents_of(ps, sv[0], 0) == 0);
    pollset_destroy(ps);
    close_pair(sv);
}

static void test_hup_reported_without_being_asked(void)
{
    pollset_t ps = create_set();
    int sv[2];
    make_pair(sv);
    CHECK(ctl1(ps, PS_ADD, sv[0], 0) == 0);
    CHECK(revents_of(ps, sv[0], 0) == 0);
    close(sv[1]);
    CHECK((revents_of(ps, sv[0], 1000) & POLLHUP) != 0);
    pollset_destroy(ps);
    close(sv[0]);
}

static void test_err_reported_without_being_asked(void)
{
    pollset_t ps = create_set();
    int p[2];
    CHECK(pipe(p) == 0);
    CHECK(ctl1(ps, PS_ADD, p[1], 0) == 0);
    close(p[0]); /* a pipe's write end with no reader is an error */
    CHECK((revents_of(ps, p[1], 1000) & POLLERR) != 0);
    pollset_destroy(ps);
    close(p[1]);
}

static void test_closed_member_reports_nval(void)
{
    pollset_t ps = create_set();
    int sv[2];
    make_pair(sv);
    int fd = sv[0];
    CHECK(ctl1(ps, PS_ADD, fd, POLLIN) == 0);
    close(fd);
    CHECK((unsigned short)revents_of(ps, fd, 0) == POLLNVAL);
    pollset_destroy(ps);
    close(sv[1]);
}

static void test_reused_number_is_polled_under_old_registration(void)
{
    pollset_t ps = create_set();
    int sv[2];
    make_pair(sv);
    int fd = sv[0];
    CHECK(ctl1(ps, PS_ADD, fd, POLLIN) == 0);
    close(fd);
    int again[2];
    make_pair(again);
    CHECK(again[0] == fd); /* the lowest free number */
    put_byte(again[1]);
    CHECK(revents_of(ps, fd, 1000) == POLLIN);
    pollset_destroy(ps);
    close(sv[1]);
    close_pair(again);
}

static void test_output_array_limits_and_rotates(void)
{
    pollset_t ps = create_set();
    int a[2], b[2];
    make_pair(a);
    make_pair(b);
    CHECK(ctl1(ps, PS_ADD, a[0], POLLOUT) == 0);
    CHECK(ctl1(ps, PS_ADD, b[0], POLLOUT) == 0);
    struct pollfd out[1];
    CHECK(pollset_poll(ps, out, 1, 0) == 1);
    int first = out[0].fd;
    CHECK(pollset_poll(ps, out, 1, 0) == 1);
    CHECK(out[0].fd != first); /* the one left out last time comes first */
    pollset_destroy(ps);
    close_pair(a);
    close_pair(b);
}

struct poller {
    pollset_t ps;
    long started_ms; /* 0 until the thread is about to poll */
};

static void *poll_300ms(void *arg)
{
    struct poller *p = arg;
    struct pollfd out[4];
    __atomic_store_n(&p->started_ms, now_ms(), __ATOMIC_SEQ_CST);
    CHECK(pollset_poll(p->ps, out, 4, 300) == 0);
    return NULL;
}

static void test_ctl_blocks_while_another_thread_polls(void)
{
    pollset_t ps = create_set();
    int sv[2];
    make_pair(sv);
    struct poller p = { .ps = ps, .started_ms = 0 };
    pthread_t t;
    CHECK(pthread_create(&t, NULL, poll_300ms, &p) == 0);
    /* Only a poll the set has counted makes the ctl wait; no sleep is sure to see one counted, as
       thread start-up alone can take over 50 ms under qemu-user and the poller can be preempted
       between started_ms and its poll. */
    long deadline = now_ms() + 10000;
    while (pollset_polls_begun(ps) == 0 && now_ms() < deadline)
        sleep_ms(1);
    CHECK(pollset_polls_begun(ps) == 1);
    CHECK(ctl1(ps, PS_ADD, sv[0], POLLIN) == 0);
    /* The ctl returned once the poll, which began after started_ms and found nothing, timed out
       (whether the poller thread has run on since is up to the scheduler). */
    CHECK(now_ms() - __atomic_load_n(&p.started_ms, __ATOMIC_SEQ_CST) >= 300);
    CHECK(pthread_join(t, NULL) == 0);
    CHECK(is_member(ps, sv[0]) == 1);
    pollset_destroy(ps);
    close_pair(sv);
}

static const struct test tests[] = {
    T(test_ids_are_not_fds_and_start_at_zero), /* first: no set exists yet */
    T(test_create_rejects_bad_maxfd),
    T(test_unknown_set_is_einval),
    T(test_maxfd_limits_members),
    T(test_add_then_query),
    T(test_add_present_is_einval),
    T(test_add_closed_is_ebadf),
    T(test_mod_ors_bits_and_never_removes),
    T(test_mod_absent_adds),
    T(test_delete_then_delete_absent_is_einval),
    T(test_delete_works_on_closed_fd),
    T(test_unknown_command_or_bits_is_einval),
    T(test_failure_returns_index_with_earlier_elements_applied),
    T(test_empty_batch_succeeds),
    T(test_aix_bit_values_in_revents),
    T(test_poll_is_level_triggered_and_times_out),
    T(test_hup_reported_without_being_asked),
    T(test_err_reported_without_being_asked),
    T(test_closed_member_reports_nval),
    T(test_reused_number_is_polled_under_old_registration),
    T(test_output_array_limits_and_rotates),
    T(test_ctl_blocks_while_another_thread_polls),
#undef T
};

int main(void)
{
    alarm(10); /* a hung poll kills the run instead of stalling it */
    return run_tests(tests, sizeof(tests) / sizeof(tests[0]));
}
