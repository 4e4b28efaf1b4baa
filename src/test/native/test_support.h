/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

/*
 * What the C tests of the backends share: CHECK, fd and socket helpers, tokens, and the runner.
 * Each test is a void function; run_tests prints "N passed, M failed" (tests, not checks).
 */
#ifndef NS_TEST_SUPPORT_H
#define NS_TEST_SUPPORT_H

#include "ns_records.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static int check_failures;

#define CHECK(expr)                                                                    \
    do {                                                                               \
        if (!(expr)) {                                                                 \
            check_failures++;                                                          \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #expr);   \
        }                                                                              \
    } while (0)

#define ALL_BITS (NS_IN | NS_OUT | NS_ERR | NS_HUP | NS_NVAL)
/* TOKEN_A and TOKEN_B share slot 3 (the low 32 bits) with different generations. */
#define TOKEN_A UINT64_C(0x0000000700000003)
#define TOKEN_B UINT64_C(0x0000000900000003)
#define TOKEN_C UINT64_C(0x7fffffff00000005)
#define TOKEN_D UINT64_C(0x0000000200000006)

static inline long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static inline void sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR) {
    }
}

static inline int count_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    if (d == NULL)
        return -1;
    int n = 0;
    while (readdir(d) != NULL)
        n++;
    closedir(d);
    return n;
}

static inline void make_pair(int sv[2])
{
    int rc = socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
    CHECK(rc == 0);
}

/* Returns a number that is certainly not an open fd right now. */
static inline int closed_fd(void)
{
    int p[2];
    CHECK(pipe(p) == 0);
    close(p[0]);
    close(p[1]);
    return p[0];
}

static inline void close_pair(int sv[2])
{
    close(sv[0]);
    close(sv[1]);
}

static inline void put_byte(int fd)
{
    CHECK(write(fd, "x", 1) == 1);
}

/*
 * Reads everything pending on a socket; returns the byte count. The socket is non-blocking for
 * the while, by its flags: POSIX has no per-call flag for that (MSG_DONTWAIT is not on AIX).
 */
static inline int drain_socket(int fd)
{
    int flags = fcntl(fd, F_GETFL);
    CHECK(flags >= 0);
    CHECK(fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0);
    char buf[256];
    int total = 0;
    ssize_t n;
    while ((n = read(fd, buf, sizeof(buf))) > 0)
        total += (int)n;
    CHECK(n == 0 || errno == EAGAIN || errno == EWOULDBLOCK);
    CHECK(fcntl(fd, F_SETFL, flags) == 0);
    return total;
}

static inline const struct ns_ready *find_token(const struct ns_ready *ready, int n, uint64_t token)
{
    for (int i = 0; i < n; i++)
        if (ready[i].token == token)
            return &ready[i];
    return NULL;
}

struct test {
    const char *name;
    void (*fn)(void);
};

#define T(f) { #f, f }

/* Runs every test, prints the closing line ctest and CI read, and returns the exit status. */
static inline int run_tests(const struct test *tests, size_t count)
{
    int passed = 0, failed = 0;
    for (size_t i = 0; i < count; i++) {
        int before = check_failures;
        tests[i].fn();
        if (check_failures == before) {
            passed++;
        } else {
            failed++;
            fprintf(stderr, "FAIL %s\n", tests[i].name);
        }
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}

#endif
