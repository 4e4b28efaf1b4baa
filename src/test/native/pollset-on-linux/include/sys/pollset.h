/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

/*
 * AIX's <sys/pollset.h>, implemented for Linux by pollset.c over poll(2), so that code written
 * for AIX's pollset API builds and runs unchanged on Linux. It keeps the behaviour AIX documents
 * (pollset_create(3), pollset_ctl(3), pollset_poll(3), pollset_query(3)), quirks included:
 *
 *   pollset_create(maxfd)   returns a pollset id, not a file descriptor (the first is 0), or -1.
 *                           maxfd is how many descriptors the set may hold; -1 means the
 *                           process's descriptor limit.
 *   pollset_ctl(ps, a, n)   applies a[0..n) in order:
 *                             PS_ADD     adds an open fd; EINVAL if it is already in the set,
 *                                        EBADF if it is not open.
 *                             PS_MOD     ORs events into those of an fd in the set: bits are
 *                                        never removed this way. An fd not in the set is added.
 *                             PS_DELETE  removes an fd, open or already closed; EINVAL if it
 *                                        is not in the set.
 *                           Returns 0 when all were applied. When a[i] fails, a[0..i) stay
 *                           applied, a[i+1..n) are not attempted, errno tells why, and the
 *                           return value is i, or -1 when i is 0 (nothing was applied).
 *                           While another thread is inside pollset_poll on the same set, it
 *                           blocks until that poll returns.
 *   pollset_poll(ps, o, n, timeout_ms)
 *                           waits as poll(2) does and writes up to n ready descriptors to o,
 *                           with revents. POLLHUP and POLLERR are reported even when not
 *                           asked for. A descriptor stays in the set when it is closed: the
 *                           set then reports POLLNVAL for it, and if its number is reused the
 *                           new file is polled under the old registration. Returns the
 *                           number written, or -1 (EINTR when a signal interrupted it).
 *   pollset_query(ps, q)    1 and q->events when q->fd is in the set, 0 when not, -1 on error.
 *   pollset_destroy(ps)     releases the set and its id. No thread may be using it.
 *
 * Where AIX's documentation is silent, this implementation chooses: the errno of each refusal
 * above, ENOSPC for a set already holding maxfd descriptors, EINVAL for an unknown command,
 * pollset id or event bit (events may hold POLLIN, POLLOUT and POLLPRI), and fairness (when more descriptors are ready than fit in the output array, the
 * next poll starts after the last one reported).
 *
 * It is faithful, not fast: each pollset_poll is one poll(2) over the whole set.
 */
#ifndef NS_AIX_SYS_POLLSET_H
#define NS_AIX_SYS_POLLSET_H

#include "poll.h"

#define PS_ADD    0x0
#define PS_MOD    0x1
#define PS_DELETE 0x2

typedef int pollset_t;

struct poll_ctl {
    short cmd;
    short events;
    int fd;
};

pollset_t pollset_create(int maxfd);
int pollset_destroy(pollset_t ps);
int pollset_ctl(pollset_t ps, struct poll_ctl *pollctl_array, int array_length);
int pollset_query(pollset_t ps, struct pollfd *pollfd_query);
int pollset_poll(pollset_t ps, struct pollfd *polldata_array, int array_length, int timeout);

#endif
