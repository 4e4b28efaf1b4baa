/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

/* In 32-bit builds AIX's <sys/poll.h> renames struct pollfd's events and revents by macro,
   which would rename the fields of the same names in ns_records.h as well. */
#if defined(_AIX) && !defined(__64BIT__)
#error "the pollset backend needs a 64-bit AIX build (gcc -maix64, ibm-clang -m64)"
#endif

#include "pollset_backend.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/poll.h>
#include <sys/pollset.h>
#include <sys/resource.h>
#include <unistd.h>

/* What the kernel's set holds for one fd, as the last accepted pollset_ctl left it. */
struct member {
    uint64_t token;
    short events;           /* while absent, those it had: what a refused pair's ADD adds back */
    unsigned char present;
    unsigned segment; /* the submission that last planned an element for this fd */
};

struct ns_pollset {
    struct ns_backend base;
    pollset_t ps;
    int wake_read;
    int wake_write;
    struct member *members; /* indexed by fd */
    int members_capacity;
    struct poll_ctl *ctl;   /* the elements of one submission */
    int *ctl_change;        /* the change each element belongs to */
    int ctl_capacity;
    unsigned segment;
    int polled_length;      /* entries in polled: the capacity open was given, at most the descriptor limit */
    struct pollfd polled[];
};

static short to_aix(uint32_t events)
{
    return (short)(((events & NS_IN) ? POLLIN : 0) | ((events & NS_OUT) ? POLLOUT : 0));
}

static uint32_t from_aix(short revents)
{
    return ((revents & POLLIN) ? NS_IN : 0) | ((revents & POLLOUT) ? NS_OUT : 0)
           | ((revents & POLLERR) ? NS_ERR : 0) | ((revents & POLLHUP) ? NS_HUP : 0)
           | ((revents & POLLNVAL) ? NS_NVAL : 0);
}

/* Makes room in the table for fd; EBADF past what doubling its size can reach without overflow. */
static int grow_members(struct ns_pollset *b, int fd)
{
    if (fd < b->members_capacity)
        return 0;
    if (fd > INT_MAX / 2)
        return -EBADF;
    int size = b->members_capacity == 0 ? 256 : b->members_capacity;
    while (size <= fd)
        size *= 2;
    struct member *grown = realloc(b->members, (size_t)size * sizeof(*grown));
    if (grown == NULL)
        return -ENOMEM;
    for (int i = b->members_capacity; i < size; i++)
        grown[i] = (struct member){ 0 };
    b->members = grown;
    b->members_capacity = size;
    return 0;
}

static int grow_ctl(struct ns_pollset *b, int elements)
{
    if (elements <= b->ctl_capacity)
        return 0;
    struct poll_ctl *ctl = realloc(b->ctl, (size_t)elements * sizeof(*ctl));
    if (ctl == NULL)
        return -ENOMEM;
    b->ctl = ctl;
    int *owners = realloc(b->ctl_change, (size_t)elements * sizeof(*owners));
    if (owners == NULL)
        return -ENOMEM;
    b->ctl_change = owners;
    b->ctl_capacity = elements;
    return 0;
}

/* Records in the table what the kernel accepted: elements [from, to). */
static void commit(struct ns_pollset *b, const struct ns_change *changes, int from, int to)
{
    for (int i = from; i < to; i++) {
        struct member *m = &b->members[b->ctl[i].fd];
        switch (b->ctl[i].cmd) {
        case PS_DELETE:
            m->present = 0;
            break;
        case PS_MOD:
            m->events |= b->ctl[i].events;
            m->token = changes[b->ctl_change[i]].token;
            break;
        default:
            m->present = 1;
            m->events = b->ctl[i].events;
            m->token = changes[b->ctl_change[i]].token;
            break;
        }
    }
}

/*
 * Adds the events fd had back, after the ADD of a DELETE + ADD pair (fewer events, which AIX
 * cannot make as one change) was refused with the DELETE accepted: a change the kernel refuses
 * must leave the registration as it was. The fd stays out where this is refused too (a closed
 * fd). Returns the pollset_ctl calls made.
 */
static int add_back(struct ns_pollset *b, int fd)
{
    struct member *m = &b->members[fd];
    struct poll_ctl add = { .cmd = PS_ADD, .events = m->events, .fd = fd };
    int calls = 0;
    int rc;
    do {
        errno = 0;
        rc = pollset_ctl(b->ps, &add, 1);
        calls++;
    } while (rc != 0 && errno == EINTR);
    if (rc == 0)
        m->present = 1;
    return calls;
}

/*
 * Hands elements [0, count) to the kernel, submitting again after each refused element and
 * after a signal interrupted the call. Returns the pollset_ctl calls made.
 */
static int submit(struct ns_pollset *b, struct ns_change *changes, int count)
{
    int calls = 0;
    int start = 0;
    while (start < count) {
        /* AIX may set no errno for an element refused after the first: it must not be stale. */
        errno = 0;
        int rc = pollset_ctl(b->ps, b->ctl + start, count - start);
        int err = errno;
        calls++;
        if (rc == 0) {
            commit(b, changes, start, count);
            break;
        }
        int refused = start + (rc > 0 && rc < count - start ? rc : 0);
        commit(b, changes, start, refused);
        if (err == EINTR) {
            start = refused;
            continue;
        }
        int change = b->ctl_change[refused];
        /* Refused without a reason: the change fails all the same. */
        changes[change].error = err != 0 ? err : EINVAL;
        /* A change's second element is the ADD of a pair, whose DELETE, before it, was accepted. */
        if (refused > 0 && b->ctl_change[refused - 1] == change)
            calls += add_back(b, b->ctl[refused].fd);
        start = refused + 1;
        while (start < count && b->ctl_change[start] == change)
            start++;
    }
    return calls;
}

/* Appends one element for change number `change`; room was made by apply_batch. */
static void add_element(struct ns_pollset *b, int *count, int change, short cmd, int fd, short events)
{
    b->ctl[*count] = (struct poll_ctl){ .cmd = cmd, .events = events, .fd = fd };
    b->ctl_change[*count] = change;
    (*count)++;
}

static int apply_batch(struct ns_pollset *b, struct ns_change *changes, int count)
{
    if (count < 0)
        return -EINVAL;
    /* At most two elements per change: DELETE + ADD. */
    int err = grow_ctl(b, 2 * count);
    if (err < 0)
        return err;
    int calls = 0;
    int elements = 0;
    b->segment++;
    for (int i = 0; i < count; i++) {
        struct ns_change *c = &changes[i];
        c->error = 0;
        if (c->op != NS_OP_ADD && c->op != NS_OP_MOD && c->op != NS_OP_DEL) {
            c->error = EINVAL;
            continue;
        }
        if (c->fd < 0) {
            c->error = EBADF;
            continue;
        }
        if (c->op == NS_OP_DEL && c->fd >= b->members_capacity)
            continue; /* never added: absent, which a DEL asks for */
        c->error = -grow_members(b, c->fd);
        if (c->error != 0)
            continue;
        struct member *m = &b->members[c->fd];
        if (m->segment == b->segment) {
            /* A second change to one fd is planned from the kernel's answer to the first. */
            calls += submit(b, changes, elements);
            elements = 0;
            b->segment++;
        }
        m->segment = b->segment;
        short want = c->op == NS_OP_DEL ? 0 : to_aix(c->events);
        if (!m->present) {
            if (want != 0)
                add_element(b, &elements, i, PS_ADD, c->fd, want);
        } else if (want == 0) {
            add_element(b, &elements, i, PS_DELETE, c->fd, 0);
        } else if (want == m->events) {
            m->token = c->token;
        } else if ((want & m->events) == m->events) {
            add_element(b, &elements, i, PS_MOD, c->fd, want);
        } else {
            add_element(b, &elements, i, PS_DELETE, c->fd, 0);
            add_element(b, &elements, i, PS_ADD, c->fd, want);
        }
    }
    return calls + submit(b, changes, elements);
}

/* Sets O_NONBLOCK and FD_CLOEXEC; pipe2 is not on every AIX level. */
static int make_nonblocking_cloexec(int fd)
{
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0 || fcntl(fd, F_SETFD, FD_CLOEXEC) < 0)
        return -errno;
    return 0;
}

static int open_wakeup_pipe(struct ns_pollset *b)
{
    int fds[2];
    if (pipe(fds) < 0)
        return -errno;
    int err = make_nonblocking_cloexec(fds[0]);
    if (err == 0)
        err = make_nonblocking_cloexec(fds[1]);
    if (err < 0) {
        /* The pipe is abandoned: a close error would leave nothing to undo. */
        close(fds[0]);
        close(fds[1]);
        return err;
    }
    b->wake_read = fds[0];
    b->wake_write = fds[1];
    return 0;
}

static void release(struct ns_pollset *b)
{
    free(b->members);
    free(b->ctl);
    free(b->ctl_change);
    free(b);
}

static void destroy(struct ns_pollset *b);

/* A poll reports no more descriptors than the process may have open: the array holds no more. */
static int poll_array_length(int capacity)
{
    struct rlimit limit;
    if (getrlimit(RLIMIT_NOFILE, &limit) < 0)
        return -errno;
    return limit.rlim_cur < (rlim_t)capacity ? (int)limit.rlim_cur : capacity;
}

static int pollset_backend_open(int capacity, int options, struct ns_backend **out)
{
    (void)options; /* none is pollset's */
    if (capacity < 1)
        return -EINVAL;
    int length = poll_array_length(capacity);
    if (length < 0)
        return length;
    struct ns_pollset *b = calloc(1, sizeof(*b) + (size_t)length * sizeof(struct pollfd));
    if (b == NULL)
        return -ENOMEM;
    b->base.ops = &ns_pollset_ops;
    b->polled_length = length;
    errno = 0;
    b->ps = pollset_create(-1);
    if (b->ps < 0) {
        /* Never 0: an open that fails must not look like one that succeeded. */
        int err = errno != 0 ? errno : EINVAL;
        release(b);
        return -err;
    }
    int err = open_wakeup_pipe(b);
    if (err < 0) {
        /* Its error is not the one to report: the pipe's is. */
        pollset_destroy(b->ps);
        release(b);
        return err;
    }
    struct ns_change watch_wakeup = {
        .token = NS_WAKEUP_TOKEN, .fd = b->wake_read, .events = NS_IN, .op = NS_OP_ADD
    };
    /* The apply fails as a whole (no memory for its arrays) or the element alone. */
    int calls = apply_batch(b, &watch_wakeup, 1);
    err = calls < 0 ? calls : -watch_wakeup.error;
    if (err < 0) {
        destroy(b);
        return err;
    }
    *out = &b->base;
    return 0;
}

static int drain_wakeup(struct ns_pollset *b)
{
    char bytes[64];
    ssize_t n;
    while ((n = read(b->wake_read, bytes, sizeof(bytes))) > 0) {
    }
    /* EAGAIN: empty now; the caller resets its latch either way. */
    return n < 0 && errno != EAGAIN ? -errno : 0;
}

static struct ns_pollset *pollset_of(struct ns_backend *b)
{
    return (struct ns_pollset *)b;
}

/* pollset_ctl takes effect at once: every apply is synchronous. */
static int pollset_backend_apply(struct ns_backend *b, struct ns_change *changes, int count, int sync)
{
    (void)sync;
    return apply_batch(pollset_of(b), changes, count);
}

static int pollset_backend_poll(struct ns_backend *backend, struct ns_ready *ready, int capacity, int timeout_ms)
{
    struct ns_pollset *b = pollset_of(backend);
    int max = capacity < b->polled_length ? capacity : b->polled_length;
    int n = pollset_poll(b->ps, b->polled, max, timeout_ms);
    if (n < 0)
        return -errno;
    int records = 0;
    for (int i = 0; i < n; i++) {
        int fd = b->polled[i].fd;
        /* Not a member: cannot happen, as nothing is applied while a poll is in progress. */
        if (fd < 0 || fd >= b->members_capacity || !b->members[fd].present)
            continue;
        uint64_t token = b->members[fd].token;
        if (token == NS_WAKEUP_TOKEN) {
            int err = drain_wakeup(b);
            if (err < 0)
                return err;
        }
        ready[records].token = token;
        ready[records].events = from_aix(b->polled[i].revents);
        ready[records].reserved = 0;
        records++;
    }
    return records;
}

static int pollset_backend_wakeup(struct ns_backend *backend)
{
    struct ns_pollset *b = pollset_of(backend);
    char one = 1;
    if (write(b->wake_write, &one, 1) < 0 && errno != EAGAIN)
        return -errno;
    return 0;
}

static void destroy(struct ns_pollset *b)
{
    /* Errors here leave nothing to undo: the set's id and both pipe fds are released. */
    pollset_destroy(b->ps);
    close(b->wake_read);
    close(b->wake_write);
    release(b);
}

static void pollset_backend_close(struct ns_backend *b)
{
    destroy(pollset_of(b));
}

const struct ns_backend_ops ns_pollset_ops = {
    .name = "pollset",
    .applies_during_poll = 0,
    .open = pollset_backend_open,
    .apply = pollset_backend_apply,
    .poll = pollset_backend_poll,
    .wakeup = pollset_backend_wakeup,
    .close = pollset_backend_close,
    .calls = { "pollset backend: open", "pollset_ctl", "pollset_poll", "pollset backend: wakeup" },
};
