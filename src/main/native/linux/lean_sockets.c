/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

#include "lean_sockets.h"

#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Java hands the poller poll(2) bits; epoll's have the same values on Linux. */
_Static_assert(EPOLLIN == POLLIN && EPOLLOUT == POLLOUT, "epoll and poll bits differ");

/* The IPv4-mapped prefix ::ffff:0:0/96. */
static const uint8_t v4_mapped_prefix[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

int lean_socket(bool inet6)
{
    int fd = socket(inet6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -errno;
    if (!inet6)
        return fd;
    /* Dual stack whatever net.ipv6.bindv6only says, as the JDK's sockets are. */
    int off = 0;
    if (setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof(off)) < 0) {
        int err = errno;
        close(fd);
        return -err;
    }
    return fd;
}

static void make_v4(const uint8_t bytes[4], int port, union lean_sockaddr *out, socklen_t *out_length)
{
    out->v4.sin_family = AF_INET;
    out->v4.sin_port = htons((uint16_t)port);
    memcpy(&out->v4.sin_addr, bytes, 4);
    *out_length = sizeof(out->v4);
}

static void make_v6(const uint8_t bytes[16], int port, uint32_t scope_id, union lean_sockaddr *out,
                    socklen_t *out_length)
{
    out->v6.sin6_family = AF_INET6;
    out->v6.sin6_port = htons((uint16_t)port);
    memcpy(&out->v6.sin6_addr, bytes, 16);
    out->v6.sin6_scope_id = scope_id;
    *out_length = sizeof(out->v6);
}

int lean_sockaddr(bool inet6_socket, const uint8_t *address, int length, int port, uint32_t scope_id,
                  union lean_sockaddr *out, socklen_t *out_length)
{
    if ((length != 4 && length != 16) || port < 0 || port > 65535)
        return -EINVAL;
    memset(out, 0, sizeof(*out));
    if (inet6_socket && length == 4 && memcmp(address, "\0\0\0\0", 4) == 0) {
        /* The IPv4 wildcard on a dual-stack socket means every address, IPv6's too: ::, as the
           JDK binds it, not ::ffff:0.0.0.0, which takes IPv4 peers only. */
        static const uint8_t any[16];
        make_v6(any, port, 0, out, out_length);
    } else if (inet6_socket && length == 4) {
        uint8_t mapped[16];
        memcpy(mapped, v4_mapped_prefix, sizeof(v4_mapped_prefix));
        memcpy(mapped + 12, address, 4);
        make_v6(mapped, port, 0, out, out_length);
    } else if (inet6_socket) {
        make_v6(address, port, scope_id, out, out_length);
    } else if (length == 4) {
        make_v4(address, port, out, out_length);
    } else if (memcmp(address, v4_mapped_prefix, sizeof(v4_mapped_prefix)) == 0) {
        make_v4(address + 12, port, out, out_length);
    } else {
        return -EAFNOSUPPORT; /* an IPv6 address on an IPv4 socket */
    }
    return 0;
}

int lean_bind(int fd, const union lean_sockaddr *address, socklen_t length)
{
    return bind(fd, &address->sa, length) < 0 ? -errno : 0;
}

int lean_listen(int fd, int backlog)
{
    return listen(fd, backlog) < 0 ? -errno : 0;
}


int lean_connect(int fd, const union lean_sockaddr *address, socklen_t length)
{
    return connect(fd, &address->sa, length) < 0 ? -errno : 1;
}

int lean_finish_connect(int fd)
{
    if (fd < 0)
        return -EBADF; /* poll(2) would skip it and report it pending for ever */
    struct pollfd p = { .fd = fd, .events = POLLOUT };
    int n = poll(&p, 1, 0);
    if (n < 0)
        return errno == EINTR ? 0 : -errno;
    if (n == 0)
        return 0;
    if (p.revents & POLLNVAL)
        return -EBADF;
    int error = 0;
    socklen_t length = sizeof(error);
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) < 0)
        return -errno;
    if (error != 0)
        return -error;
    /* Hung up with no error: a socket that was never connecting, as the JDK reports it. */
    return (p.revents & POLLHUP) ? -ENOTCONN : 1;
}

/* `address` as Java holds it; IPv4-mapped IPv6 as family 4. */
static int to_lean_address(const union lean_sockaddr *address, struct lean_address *out)
{
    memset(out, 0, sizeof(*out));
    if (address->sa.sa_family == AF_INET) {
        out->family = 4;
        memcpy(out->bytes, &address->v4.sin_addr, 4);
        out->port = ntohs(address->v4.sin_port);
        return 0;
    }
    if (address->sa.sa_family != AF_INET6)
        return -EAFNOSUPPORT;
    const uint8_t *bytes = address->v6.sin6_addr.s6_addr;
    out->port = ntohs(address->v6.sin6_port);
    if (memcmp(bytes, v4_mapped_prefix, sizeof(v4_mapped_prefix)) == 0) {
        out->family = 4;
        memcpy(out->bytes, bytes + 12, 4);
    } else {
        out->family = 6;
        memcpy(out->bytes, bytes, 16);
        out->scope_id = address->v6.sin6_scope_id;
    }
    return 0;
}

int lean_local_address(int fd, struct lean_address *out)
{
    union lean_sockaddr address;
    socklen_t length = sizeof(address);
    if (getsockname(fd, &address.sa, &length) < 0)
        return -errno;
    return to_lean_address(&address, out);
}

int lean_accept(int fd, struct lean_address *peer)
{
    union lean_sockaddr address;
    socklen_t length = sizeof(address);
    long accepted = syscall(SYS_accept4, fd, &address.sa, &length, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (accepted < 0)
        return -errno;
    int err = to_lean_address(&address, peer);
    if (err < 0) {
        /* Not a TCP peer's family: nobody will have this connection. */
        close((int)accepted);
        return err;
    }
    return (int)accepted;
}

int lean_shutdown(int fd, int how)
{
    if (shutdown(fd, how) < 0 && errno != ENOTCONN)
        return -errno;
    return 0;
}

int lean_close(int fd)
{
    if (syscall(SYS_close, fd) < 0 && errno != EINTR)
        return -errno;
    return 0;
}

int lean_poll(int fd, int events, int timeout_ms)
{
    if (fd < 0)
        return -EBADF; /* poll(2) would skip it and wait out the timeout */
    struct pollfd p = { .fd = fd, .events = (short)events };
    int n = poll(&p, 1, timeout_ms);
    if (n < 0)
        return -errno;
    return n == 0 ? 0 : p.revents;
}

int lean_available(int fd)
{
    int n = 0;
    return ioctl(fd, FIONREAD, &n) < 0 ? -errno : n;
}

int lean_send_urgent(int fd, int data)
{
    uint8_t byte = (uint8_t)data;
    return TEMP_FAILURE_RETRY(syscall(SYS_sendto, fd, &byte, 1, MSG_OOB | MSG_NOSIGNAL, NULL, 0)) < 0 ? -errno : 0;
}

int lean_set_int_option(int fd, int level, int name, int value)
{
    return setsockopt(fd, level, name, &value, sizeof(value)) < 0 ? -errno : 0;
}

int lean_get_int_option(int fd, int level, int name, int *value)
{
    int v = 0; /* an option of one byte fills only the first */
    socklen_t length = sizeof(v);
    if (getsockopt(fd, level, name, &v, &length) < 0)
        return -errno;
    *value = v;
    return 0;
}

int lean_set_linger(int fd, int seconds)
{
    struct linger linger = { .l_onoff = seconds >= 0, .l_linger = seconds >= 0 ? seconds : 0 };
    return setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, sizeof(linger)) < 0 ? -errno : 0;
}

int lean_get_linger(int fd, int *seconds)
{
    struct linger linger = { 0, 0 };
    socklen_t length = sizeof(linger);
    if (getsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, &length) < 0)
        return -errno;
    *seconds = linger.l_onoff ? linger.l_linger : -1;
    return 0;
}

int lean_poller_create(void)
{
    int epfd = epoll_create1(EPOLL_CLOEXEC);
    return epfd < 0 ? -errno : epfd;
}

static int poller_ctl(int epfd, int op, int fd, struct epoll_event *event)
{
    return epoll_ctl(epfd, op, fd, event) < 0 ? -errno : 0;
}

int lean_poller_arm(int epfd, int fd, int events)
{
    struct epoll_event event = { .events = EPOLLONESHOT | (uint32_t)events, .data.fd = fd };
    int err = poller_ctl(epfd, EPOLL_CTL_MOD, fd, &event);
    if (err != -ENOENT)
        return err;
    err = poller_ctl(epfd, EPOLL_CTL_ADD, fd, &event);
    /* Another thread added it between the two: it is there now, so this MOD takes. */
    return err == -EEXIST ? poller_ctl(epfd, EPOLL_CTL_MOD, fd, &event) : err;
}

int lean_poller_wait(int epfd, int *fds, int capacity, int timeout_ms)
{
    if (capacity <= 0)
        return -EINVAL;
    if (capacity > LEAN_POLLER_MAX_EVENTS)
        capacity = LEAN_POLLER_MAX_EVENTS;
    struct epoll_event events[LEAN_POLLER_MAX_EVENTS];
    int n = epoll_wait(epfd, events, capacity, timeout_ms);
    if (n < 0)
        return -errno;
    for (int i = 0; i < n; i++)
        fds[i] = events[i].data.fd;
    return n;
}
