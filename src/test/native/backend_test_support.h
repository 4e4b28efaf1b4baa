/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

/*
 * What the C tests of the backends share on top of test_support.h: calling a backend through its
 * ops table (every backend's state starts with it, ns_backend.h), polls whose records are checked,
 * the expectations built on them, and whether io_uring can be tested here at all.
 *
 * A poll that expects a record waits up to READY_WAIT_MS and returns as soon as one comes, so only
 * a failure waits that long; one that expects nothing waits QUIET_WAIT_MS, so that a completion
 * the kernel posts late (io_uring) would still be seen.
 */
#ifndef NS_BACKEND_TEST_SUPPORT_H
#define NS_BACKEND_TEST_SUPPORT_H

#include "ns_backend.h"
#include "test_support.h"

#include <poll.h>
#include <stdlib.h>
#include <string.h>

#define READY_WAIT_MS 2000
#define QUIET_WAIT_MS 20

/* Opens a backend; a test cannot go on without one, so the program ends when it fails. */
static inline struct ns_backend *open_backend(const struct ns_backend_ops *ops, int capacity)
{
    struct ns_backend *b = NULL;
    int rc = ops->open(capacity, 0, &b);
    CHECK(rc == 0);
    CHECK(b != NULL);
    if (b == NULL) {
        fprintf(stderr, "%s: open failed: %s; cannot go on\n", ops->name, strerror(-rc));
        printf("0 passed, 1 failed\n");
        exit(1);
    }
    return b;
}

static inline struct ns_change change_of(int op, int fd, uint32_t events, uint64_t token)
{
    return (struct ns_change){ .token = token, .fd = fd, .events = events, .op = op, .error = -1 };
}

/* One change; returns what apply returned (system calls or -errno) and stores the change's error. */
static inline int apply1(struct ns_backend *b, int op, int fd, uint32_t events, uint64_t token, int sync,
                         int *error)
{
    struct ns_change c = change_of(op, fd, events, token);
    int calls = b->ops->apply(b, &c, 1, sync);
    *error = c.error;
    return calls;
}

/* A synchronous change expected to succeed; returns the system calls it made. */
static inline int apply_ok(struct ns_backend *b, int op, int fd, uint32_t events, uint64_t token)
{
    int error = -1;
    int calls = apply1(b, op, fd, events, token, 1, &error);
    CHECK(calls >= 0);
    CHECK(error == 0);
    return calls;
}

/*
 * Polls and checks every record carries only documented bits and a zero reserved field. The
 * count comes back without NS_POLLED_WITHOUT_SYSCALL, which goes to *no_syscall (when not NULL).
 *
 * A poll ended by -EINTR polls again: once an io_uring ring is closed, the kernel's exit work
 * signals every thread that set it up or entered it (task work, TWA_SIGNAL), and an epoll_wait
 * on such a thread at that moment, whatever its epoll, ends with EINTR. The epoll backend's own
 * ring does that to the test's next poll.
 */
static inline int poll_records(struct ns_backend *b, struct ns_ready *ready, int capacity, int timeout_ms,
                               int *no_syscall)
{
    int n;
    while ((n = b->ops->poll(b, ready, capacity, timeout_ms)) == -EINTR) {
    }
    CHECK(n >= 0);
    if (n < 0) {
        fprintf(stderr, "  %s poll: %s\n", b->ops->name, strerror(-n));
        return 0;
    }
    if (no_syscall != NULL)
        *no_syscall = (n & NS_POLLED_WITHOUT_SYSCALL) != 0;
    n &= ~NS_POLLED_WITHOUT_SYSCALL;
    CHECK(n <= capacity);
    for (int i = 0; i < n; i++) {
        CHECK((ready[i].events & ~ALL_BITS) == 0);
        CHECK(ready[i].reserved == 0);
    }
    return n;
}

/* Expects exactly one record, with this token and these events, within READY_WAIT_MS. */
static inline void expect_one(struct ns_backend *b, uint64_t token, uint32_t events)
{
    struct ns_ready ready[8];
    int n = poll_records(b, ready, 8, READY_WAIT_MS, NULL);
    CHECK(n == 1);
    if (n >= 1) {
        CHECK(ready[0].token == token);
        CHECK(ready[0].events == events);
        if (ready[0].token != token || ready[0].events != events)
            fprintf(stderr, "  got token %#llx events %#x\n", (unsigned long long)ready[0].token,
                    ready[0].events);
    }
}

/* Expects no record, waiting QUIET_WAIT_MS. */
static inline void expect_none(struct ns_backend *b)
{
    struct ns_ready ready[8];
    int n = poll_records(b, ready, 8, QUIET_WAIT_MS, NULL);
    CHECK(n == 0);
    for (int i = 0; i < n; i++)
        fprintf(stderr, "  unexpected token %#llx events %#x\n", (unsigned long long)ready[i].token,
                ready[i].events);
}

/* Whether fd shows POLLIN within ms milliseconds. */
static inline int readable_within(int fd, int ms)
{
    struct pollfd p = { .fd = fd, .events = POLLIN };
    int n;
    while ((n = poll(&p, 1, ms)) < 0 && errno == EINTR) {
    }
    return n == 1 && (p.revents & POLLIN) != 0;
}

/* Expects the end of the stream on fd within a second: its peer's file was released. */
static inline void expect_end_of_stream(int fd)
{
    char c;
    CHECK(readable_within(fd, 1000));
    CHECK(read(fd, &c, 1) == 0); /* readable, so the read does not block */
}

/* Why io_uring cannot be set up here, from the errno of a failed open; NULL: another failure. */
static inline const char *io_uring_unavailable_because(int err)
{
    switch (err) {
    case EPERM:
        return "io_uring_setup was refused (seccomp, or sysctl kernel.io_uring_disabled)";
    case ENOSYS:
        return "this kernel has no io_uring";
    case EINVAL:
    case EOPNOTSUPP:
        return "this kernel's io_uring is too old for the backend (io_uring: Linux 5.13; epoll's ring: 5.6)";
    default:
        return NULL;
    }
}

/*
 * Whether a test may go on without io_uring, which refused the backend with errno `err`. A machine
 * that refuses io_uring fails the test with a message saying so: a skipped test would hide what
 * went untested. With NATIVESELECTOR_NO_IO_URING=1 in the environment that is accepted on purpose:
 * the reason and `accepted` are printed and the answer is yes. Otherwise the reason and `refused`
 * are printed, and the answer is no.
 */
static inline int io_uring_refusal_accepted(int err, const char *accepted, const char *refused)
{
    const char *why = io_uring_unavailable_because(err);
    if (why == NULL)
        why = "it could not be set up";
    const char *accept = getenv("NATIVESELECTOR_NO_IO_URING");
    if (accept != NULL && strcmp(accept, "1") == 0) {
        printf("io_uring is unavailable: %s (%s); NATIVESELECTOR_NO_IO_URING=1: %s\n", why, strerror(err),
               accepted);
        return 1;
    }
    fprintf(stderr, "io_uring is unavailable: %s (%s). %s; set NATIVESELECTOR_NO_IO_URING=1 to accept that.\n",
            why, strerror(err), refused);
    return 0;
}

/*
 * Whether the backend can be tested here: every backend but io_uring can, and io_uring can unless
 * it is refused (io_uring_refusal_accepted decides whether that fails the run). Every other
 * failure to open is left for the tests to report. When not testable, *exit_status is what the
 * program returns, after its closing line.
 */
static inline int backend_testable(const struct ns_backend_ops *ops, int *exit_status)
{
    struct ns_backend *b = NULL;
    int rc = ops->open(8, 0, &b);
    if (rc == 0) {
        ops->close(b);
        return 1;
    }
    if (strcmp(ops->name, "io_uring") != 0 || io_uring_unavailable_because(-rc) == NULL)
        return 1;
    int accepted = io_uring_refusal_accepted(-rc, "not tested", "The io_uring backend cannot be tested here");
    printf("0 passed, %d failed\n", accepted ? 0 : 1);
    *exit_status = accepted ? 0 : 1;
    return 0;
}

#endif
