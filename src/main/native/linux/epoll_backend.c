/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

#include "epoll_backend.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

struct ns_epoll {
    struct ns_backend base;
    int epfd;
    int wakefd;
    int capacity;
    struct epoll_event events[];
};

static struct ns_epoll *epoll_of(struct ns_backend *b)
{
    return (struct ns_epoll *)b;
}

static int epoll_open(int capacity, struct ns_backend **out)
{
    if (capacity < 1)
        return -EINVAL;
    struct ns_epoll *ep = malloc(sizeof(*ep) + (size_t)capacity * sizeof(struct epoll_event));
    if (ep == NULL)
        return -ENOMEM;
    ep->base.ops = &ns_epoll_ops;
    ep->capacity = capacity;
    ep->epfd = epoll_create1(EPOLL_CLOEXEC);
    if (ep->epfd < 0) {
        int err = errno;
        free(ep);
        return -err;
    }
    ep->wakefd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (ep->wakefd < 0) {
        int err = errno;
        close(ep->epfd);
        free(ep);
        return -err;
    }
    struct epoll_event ev = { .events = EPOLLIN, .data.u64 = NS_WAKEUP_TOKEN };
    if (epoll_ctl(ep->epfd, EPOLL_CTL_ADD, ep->wakefd, &ev) < 0) {
        int err = errno;
        close(ep->wakefd);
        close(ep->epfd);
        free(ep);
        return -err;
    }
    *out = &ep->base;
    return 0;
}

static int ctl(struct ns_epoll *ep, int op, const struct ns_change *c)
{
    struct epoll_event ev = { .events = c->events, .data.u64 = c->token };
    return epoll_ctl(ep->epfd, op, c->fd, &ev) < 0 ? errno : 0;
}

/* Applies one change; returns the number of epoll_ctl calls it took. */
static int apply_one(struct ns_epoll *ep, struct ns_change *c)
{
    switch (c->op) {
    case NS_OP_ADD:
        c->error = ctl(ep, EPOLL_CTL_ADD, c);
        if (c->error != EEXIST)
            return 1;
        c->error = ctl(ep, EPOLL_CTL_MOD, c);
        return 2;
    case NS_OP_MOD:
        c->error = ctl(ep, EPOLL_CTL_MOD, c);
        if (c->error != ENOENT)
            return 1;
        c->error = ctl(ep, EPOLL_CTL_ADD, c);
        return 2;
    case NS_OP_DEL:
        c->error = ctl(ep, EPOLL_CTL_DEL, c);
        /* Absent (never added, or the file was closed and left the set) is the goal. */
        if (c->error == ENOENT || c->error == EBADF)
            c->error = 0;
        return 1;
    default:
        c->error = EINVAL;
        return 0;
    }
}

/* epoll_ctl takes effect at once: every apply is synchronous. */
static int epoll_apply(struct ns_backend *b, struct ns_change *changes, int count, int sync)
{
    (void)sync;
    struct ns_epoll *ep = epoll_of(b);
    int calls = 0;
    for (int i = 0; i < count; i++)
        calls += apply_one(ep, &changes[i]);
    return calls;
}

static int drain_wakeup(struct ns_epoll *ep)
{
    uint64_t value;
    /* EAGAIN: already empty; the caller resets its latch either way. */
    if (read(ep->wakefd, &value, sizeof(value)) < 0 && errno != EAGAIN)
        return -errno;
    return 0;
}

static int epoll_poll(struct ns_backend *b, struct ns_ready *ready, int capacity, int timeout_ms)
{
    struct ns_epoll *ep = epoll_of(b);
    int max = capacity < ep->capacity ? capacity : ep->capacity;
    int n = epoll_wait(ep->epfd, ep->events, max, timeout_ms);
    if (n < 0)
        return -errno;
    for (int i = 0; i < n; i++) {
        ready[i].token = ep->events[i].data.u64;
        ready[i].events = ep->events[i].events & (NS_IN | NS_OUT | NS_ERR | NS_HUP);
        ready[i].reserved = 0;
        if (ready[i].token == NS_WAKEUP_TOKEN) {
            int err = drain_wakeup(ep);
            if (err < 0)
                return err;
        }
    }
    return n;
}

static int epoll_wakeup(struct ns_backend *b)
{
    struct ns_epoll *ep = epoll_of(b);
    uint64_t one = 1;
    if (write(ep->wakefd, &one, sizeof(one)) < 0 && errno != EAGAIN)
        return -errno;
    return 0;
}

static void epoll_close(struct ns_backend *b)
{
    struct ns_epoll *ep = epoll_of(b);
    /* close(2) errors on these private fds leave nothing to undo: both numbers are released. */
    close(ep->wakefd);
    close(ep->epfd);
    free(ep);
}

const struct ns_backend_ops ns_epoll_ops = {
    .name = "epoll",
    .applies_during_poll = 1,
    .open = epoll_open,
    .apply = epoll_apply,
    .poll = epoll_poll,
    .wakeup = epoll_wakeup,
    .close = epoll_close,
    .calls = { "epoll backend: open", "epoll_ctl", "epoll_wait", "epoll backend: wakeup" },
};
