/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

/*
 * AIX's <sys/poll.h>, for building AIX code on Linux: struct pollfd with AIX's POLL* bit
 * values, which differ from Linux's (POLLOUT is 0x0002 here, POLLHUP 0x2000, POLLERR 0x4000,
 * POLLNVAL 0x8000). Only pollset.c, the implementation beside it, knows Linux's values.
 *
 * This file shadows the C library's <sys/poll.h> for code that includes it, so such code must
 * not include <poll.h> as well.
 */
#ifndef NS_AIX_SYS_POLL_H
#define NS_AIX_SYS_POLL_H

#define POLLIN     0x0001
#define POLLOUT    0x0002
#define POLLPRI    0x0004
#define POLLHUP    0x2000
#define POLLERR    0x4000
#define POLLNVAL   0x8000

struct pollfd {
    int fd;
    short events;
    short revents;
};

#endif
