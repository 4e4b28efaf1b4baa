/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

/*
 * AIX's pollset API over Linux's poll(2); include/sys/pollset.h tells what it promises.
 *
 * A set is an array of members plus an fd-indexed table of their positions. Each set has a
 * lock; pollset_poll holds it only to copy the members out and to write the results back, and
 * counts itself in `pollers` in between, which is what makes pollset_ctl wait for it.
 *
 * Locking and unlocking these default mutexes, and waiting on the condition variable, cannot
 * fail as they are used (never recursive, never destroyed while held), so those results are
 * not checked; initialisation can, and is.
 */
#include <sys/pollset.h>

#include "pollset_on_linux.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* Linux's poll(2) bits; <poll.h> cannot be included beside AIX's <sys/poll.h>. */
#define LINUX_POLLIN   0x001
#define LINUX_POLLPRI  0x002
#define LINUX_POLLOUT  0x004
#define LINUX_POLLERR  0x008
#define LINUX_POLLHUP  0x010
#define LINUX_POLLNVAL 0x020

#define REQUESTABLE (POLLIN | POLLOUT | POLLPRI)

/* The kernel takes this struct pollfd as its own: same fields, same layout. */
_Static_assert(sizeof(struct pollfd) == 8, "struct pollfd layout");

struct member {
    int fd;
    short events;
};

struct pollset {
    pthread_mutex_t lock;
    pthread_cond_t polls_done;
    int pollers;
    int polls_begun;
    int maxfd;
    struct member *members;
    int count;
    int capacity;
    int *position; /* position[fd] = index in members + 1; 0: not a member */
    int position_capacity;
    int next_start;
};

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct pollset **registry;
static int registry_size;

static struct pollset *find(pollset_t ps)
{
    pthread_mutex_lock(&registry_lock);
    struct pollset *set = ps >= 0 && ps < registry_size ? registry[ps] : NULL;
    pthread_mutex_unlock(&registry_lock);
    return set;
}

/* Stores set at the lowest free id; returns the id or -1 with errno. */
static int register_set(struct pollset *set)
{
    pthread_mutex_lock(&registry_lock);
    int id = 0;
    while (id < registry_size && registry[id] != NULL)
        id++;
    if (id == registry_size) {
        int size = registry_size == 0 ? 4 : registry_size * 2;
        struct pollset **grown = realloc(registry, (size_t)size * sizeof(*grown));
        if (grown == NULL) {
            pthread_mutex_unlock(&registry_lock);
            errno = ENOMEM;
            return -1;
        }
        for (int i = registry_size; i < size; i++)
            grown[i] = NULL;
        registry = grown;
        registry_size = size;
    }
    registry[id] = set;
    pthread_mutex_unlock(&registry_lock);
    return id;
}

pollset_t pollset_create(int maxfd)
{
    if (maxfd == 0 || maxfd < -1) {
        errno = EINVAL;
        return -1;
    }
    if (maxfd == -1) {
        struct rlimit limit;
        if (getrlimit(RLIMIT_NOFILE, &limit) < 0)
            return -1;
        maxfd = limit.rlim_cur > (rlim_t)0x7fffffff ? 0x7fffffff : (int)limit.rlim_cur;
    }
    struct pollset *set = calloc(1, sizeof(*set));
    if (set == NULL) {
        errno = ENOMEM;
        return -1;
    }
    set->maxfd = maxfd;
    int err = pthread_mutex_init(&set->lock, NULL);
    if (err != 0) {
        free(set);
        errno = err;
        return -1;
    }
    err = pthread_cond_init(&set->polls_done, NULL);
    if (err != 0) {
        pthread_mutex_destroy(&set->lock);
        free(set);
        errno = err;
        return -1;
    }
    int id = register_set(set);
    if (id < 0) {
        pthread_cond_destroy(&set->polls_done);
        pthread_mutex_destroy(&set->lock);
        free(set);
    }
    return id;
}

int pollset_destroy(pollset_t ps)
{
    pthread_mutex_lock(&registry_lock);
    struct pollset *set = ps >= 0 && ps < registry_size ? registry[ps] : NULL;
    if (set != NULL)
        registry[ps] = NULL;
    pthread_mutex_unlock(&registry_lock);
    if (set == NULL) {
        errno = EINVAL;
        return -1;
    }
    pthread_cond_destroy(&set->polls_done);
    pthread_mutex_destroy(&set->lock);
    free(set->members);
    free(set->position);
    free(set);
    return 0;
}

static int member_index(const struct pollset *set, int fd)
{
    return fd >= 0 && fd < set->position_capacity ? set->position[fd] - 1 : -1;
}

static int ensure_room(struct pollset *set, int fd)
{
    if (fd >= set->position_capacity) {
        int size = set->position_capacity == 0 ? 64 : set->position_capacity;
        while (size <= fd)
            size *= 2;
        int *grown = realloc(set->position, (size_t)size * sizeof(*grown));
        if (grown == NULL)
            return ENOMEM;
        for (int i = set->position_capacity; i < size; i++)
            grown[i] = 0;
        set->position = grown;
        set->position_capacity = size;
    }
    if (set->count == set->capacity) {
        int size = set->capacity == 0 ? 64 : set->capacity * 2;
        struct member *grown = realloc(set->members, (size_t)size * sizeof(*grown));
        if (grown == NULL)
            return ENOMEM;
        set->members = grown;
        set->capacity = size;
    }
    return 0;
}

static int add_member(struct pollset *set, int fd, short events)
{
    if (fd < 0 || fcntl(fd, F_GETFD) < 0)
        return EBADF;
    if (set->count >= set->maxfd)
        return ENOSPC;
    int err = ensure_room(set, fd);
    if (err != 0)
        return err;
    set->members[set->count] = (struct member){ .fd = fd, .events = events };
    set->position[fd] = ++set->count;
    return 0;
}

static void remove_member(struct pollset *set, int index)
{
    int fd = set->members[index].fd;
    struct member last = set->members[--set->count];
    if (index < set->count) {
        set->members[index] = last;
        set->position[last.fd] = index + 1;
    }
    set->position[fd] = 0;
}

static int apply_one(struct pollset *set, const struct poll_ctl *ctl)
{
    if ((ctl->events & ~REQUESTABLE) != 0)
        return EINVAL;
    int index = member_index(set, ctl->fd);
    switch (ctl->cmd) {
    case PS_ADD:
        return index >= 0 ? EINVAL : add_member(set, ctl->fd, ctl->events);
    case PS_MOD:
        if (index < 0)
            return add_member(set, ctl->fd, ctl->events);
        set->members[index].events |= ctl->events;
        return 0;
    case PS_DELETE:
        if (index < 0)
            return EINVAL;
        remove_member(set, index);
        return 0;
    default:
        return EINVAL;
    }
}

int pollset_ctl(pollset_t ps, struct poll_ctl *pollctl_array, int array_length)
{
    struct pollset *set = find(ps);
    if (set == NULL || array_length < 0 || (array_length > 0 && pollctl_array == NULL)) {
        errno = EINVAL;
        return -1;
    }
    pthread_mutex_lock(&set->lock);
    while (set->pollers > 0)
        pthread_cond_wait(&set->polls_done, &set->lock);
    for (int i = 0; i < array_length; i++) {
        int err = apply_one(set, &pollctl_array[i]);
        if (err != 0) {
            pthread_mutex_unlock(&set->lock);
            errno = err;
            return i == 0 ? -1 : i;
        }
    }
    pthread_mutex_unlock(&set->lock);
    return 0;
}

int pollset_query(pollset_t ps, struct pollfd *pollfd_query)
{
    struct pollset *set = find(ps);
    if (set == NULL || pollfd_query == NULL) {
        errno = EINVAL;
        return -1;
    }
    pthread_mutex_lock(&set->lock);
    int index = member_index(set, pollfd_query->fd);
    if (index >= 0)
        pollfd_query->events = set->members[index].events;
    pthread_mutex_unlock(&set->lock);
    return index >= 0;
}

static short to_linux(short events)
{
    return (short)(((events & POLLIN) ? LINUX_POLLIN : 0) | ((events & POLLOUT) ? LINUX_POLLOUT : 0)
                   | ((events & POLLPRI) ? LINUX_POLLPRI : 0));
}

static short from_linux(short revents)
{
    return (short)(((revents & LINUX_POLLIN) ? POLLIN : 0) | ((revents & LINUX_POLLOUT) ? POLLOUT : 0)
                   | ((revents & LINUX_POLLPRI) ? POLLPRI : 0) | ((revents & LINUX_POLLERR) ? POLLERR : 0)
                   | ((revents & LINUX_POLLHUP) ? POLLHUP : 0)
                   | ((revents & LINUX_POLLNVAL) ? POLLNVAL : 0));
}

/* poll(2) through ppoll, the call every Linux architecture has. */
static int linux_poll(struct pollfd *fds, int count, int timeout_ms)
{
    struct timespec timeout = { timeout_ms / 1000, (long)(timeout_ms % 1000) * 1000000L };
    return (int)syscall(SYS_ppoll, fds, (unsigned long)count, timeout_ms < 0 ? NULL : &timeout, NULL,
                        (size_t)(_NSIG / 8));
}

/* Copies up to `room` ready results into out, starting after the last one reported before. */
static int collect(struct pollset *set, const struct pollfd *polled, int count, struct pollfd *out,
                   int room)
{
    int start = count > 0 ? set->next_start % count : 0;
    int written = 0;
    set->next_start = 0;
    for (int k = 0; k < count; k++) {
        int i = (start + k) % count;
        if (polled[i].revents == 0)
            continue;
        if (written == room) {
            set->next_start = i;
            break;
        }
        out[written].fd = polled[i].fd;
        out[written].events = set->members[i].events;
        out[written].revents = from_linux(polled[i].revents);
        written++;
    }
    return written;
}

int pollset_poll(pollset_t ps, struct pollfd *polldata_array, int array_length, int timeout)
{
    struct pollset *set = find(ps);
    if (set == NULL || array_length < 0 || (array_length > 0 && polldata_array == NULL)) {
        errno = EINVAL;
        return -1;
    }
    pthread_mutex_lock(&set->lock);
    int count = set->count;
    struct pollfd *polled = malloc((size_t)(count > 0 ? count : 1) * sizeof(*polled));
    if (polled == NULL) {
        pthread_mutex_unlock(&set->lock);
        errno = ENOMEM;
        return -1;
    }
    for (int i = 0; i < count; i++) {
        polled[i].fd = set->members[i].fd;
        polled[i].events = to_linux(set->members[i].events);
        polled[i].revents = 0;
    }
    set->pollers++;
    set->polls_begun++;
    pthread_mutex_unlock(&set->lock);

    int ready = linux_poll(polled, count, timeout);
    int err = errno;

    pthread_mutex_lock(&set->lock);
    if (--set->pollers == 0)
        pthread_cond_broadcast(&set->polls_done);
    /* Members cannot have changed: pollset_ctl waited for this poll. */
    int written = ready > 0 ? collect(set, polled, count, polldata_array, array_length) : 0;
    pthread_mutex_unlock(&set->lock);
    free(polled);
    if (ready < 0) {
        errno = err;
        return -1;
    }
    return written;
}

int pollset_polls_begun(pollset_t ps)
{
    struct pollset *set = find(ps);
    if (set == NULL) {
        errno = EINVAL;
        return -1;
    }
    pthread_mutex_lock(&set->lock);
    int begun = set->polls_begun;
    pthread_mutex_unlock(&set->lock);
    return begun;
}
