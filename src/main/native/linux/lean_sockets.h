/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

/*
 * The system calls of the lean socket channels (Linux only): the whole story. Java reaches them
 * through lean_sockets_jni.c (the natives of lean/Sockets.java), which turns their results into
 * Java's return codes and exceptions; this file knows nothing of the JVM, so its C test runs
 * without one.
 *
 * A socket is non-blocking in the kernel for its whole life (SOCK_NONBLOCK at socket and accept4),
 * so no call here ever waits, but for poll and lean_poller_wait, which exist to wait. Blocking
 * mode is Java's: it waits for readiness, then calls again.
 *
 *   lean_socket          socket(SOCK_STREAM|SOCK_NONBLOCK|SOCK_CLOEXEC); an INET6 socket then gets
 *                        IPV6_V6ONLY 0 whatever the system's default, so it takes IPv4 peers too.
 *   lean_sockaddr        no system call: Java's (address bytes, port, scope id) as the sockaddr the
 *                        socket's family takes. 4 bytes on an INET6 socket become ::ffff:a.b.c.d
 *                        (0.0.0.0 becomes ::, every address of both families);
 *                        16 bytes on an INET socket must be IPv4-mapped (else -EAFNOSUPPORT).
 *   lean_bind, lean_listen
 *   lean_accept          accept4, and the peer's address as lean_local_address gives an address:
 *                        the peer is known even once the connection is reset or over, as the
 *                        JDK's accepted channels know it.
 *   lean_connect         1 when connected at once; -EINPROGRESS while the handshake goes on.
 *   lean_finish_connect  poll(POLLOUT, 0), then getsockopt(SO_ERROR) once writable: 1 connected,
 *                        0 still pending (or the poll interrupted), or the connect's -errno; a
 *                        hang-up with no error is -ENOTCONN, as the JDK reports it.
 *   lean_local_address   getsockname as a struct lean_address; an IPv4-mapped IPv6 address
 *                        comes back as family 4, as Java's InetAddress has it.
 *   lean_read, lean_write recvfrom, and sendto with MSG_NOSIGNAL (a closed peer is -EPIPE, never
 *                        SIGPIPE); recvfrom rather than read, which reaches the socket through the
 *                        file layer's checks, and costs more system time for it.
 *   lean_readv, lean_writev recvmsg, and sendmsg with MSG_NOSIGNAL, on an array of at most IOV_MAX
 *                        struct iovec that Java wrote off-heap. 0 bytes read is the end of the stream.
 *   lean_shutdown        -ENOTCONN is 0: a socket that never connected has nothing to shut down.
 *   lean_close           -EINTR is 0: Linux has released the fd before it reports the signal, and
 *                        closing again could close another thread's new fd.
 *   lean_poll            poll of one fd: its revents, or 0 on timeout (-1 waits for ever).
 *   lean_available       ioctl(FIONREAD).
 *   lean_send_urgent     one byte, MSG_OOB|MSG_NOSIGNAL.
 *   lean_set_int_option, lean_get_int_option, lean_set_linger (seconds < 0: off),
 *   lean_get_linger      (-1 when off): setsockopt / getsockopt.
 *
 * The calls a connection or a request makes (lean_accept, the transfers, lean_close) go to the
 * kernel through syscall(2), not through glibc's functions of the same names. Those are
 * cancellation points: in a process with more than one thread, as a JVM always is, each switches
 * the calling thread to asynchronous cancellation and back around the system call, an atomic
 * operation each way. The JVM never cancels a thread. The calls that wait (poll, epoll_wait)
 * keep glibc's functions, whose cost is nothing beside a wait.
 *
 * The transfers (lean_read to lean_writev, and lean_send_urgent) call again after EINTR, which a
 * non-blocking socket should not see (glibc's TEMP_FAILURE_RETRY): never -EINTR, so Java has one
 * result less to handle.
 *
 * The poller, for threads that must not block in poll (virtual threads): one epoll whose entries
 * are EPOLLONESHOT, so an fd reported once stays quiet until it is armed again.
 *
 *   lean_poller_create   epoll_create1(EPOLL_CLOEXEC).
 *   lean_poller_arm      EPOLL_CTL_MOD to EPOLLONESHOT|events, or EPOLL_CTL_ADD when the fd was never
 *                        added (ENOENT): a re-arm, the common case, is one system call.
 *   lean_poller_wait     epoll_wait for up to LEAN_POLLER_MAX_EVENTS fds, copied into `fds`.
 *
 * Nothing takes an fd out: a socket shut down (by a close with threads waiting, or by a shutdown of
 * a direction) reports readiness or a hang-up, which fires its entry and so wakes its waiters, and
 * the kernel drops the entry when the socket is closed.
 *
 * Every function returns >= 0 on success and -errno on failure. A negative fd is -EBADF, as the
 * kernel says (lean_poll and lean_finish_connect check it themselves: poll(2) would skip it and
 * wait out the timeout); a negative length or count is -EINVAL.
 * Threads: none of these keeps state; the kernel orders calls on one fd.
 */
#ifndef NS_LEAN_SOCKETS_H
#define NS_LEAN_SOCKETS_H

#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

/* The most fds one lean_poller_wait reports; Java's array may be longer. */
#define LEAN_POLLER_MAX_EVENTS 256

/* A socket address of either family, as bind and connect take it. */
union lean_sockaddr {
    struct sockaddr sa;
    struct sockaddr_in v4;
    struct sockaddr_in6 v6;
};

/* A socket address as Java holds it (SocketAddresses.java). */
struct lean_address {
    int family;            /* 4 or 6 */
    uint8_t bytes[16];     /* family 4: the first 4, the rest 0 */
    int port;
    uint32_t scope_id;     /* family 6 only; 0 for family 4 */
};

int lean_socket(bool inet6);
int lean_sockaddr(bool inet6_socket, const uint8_t *address, int length, int port, uint32_t scope_id,
                  union lean_sockaddr *out, socklen_t *out_length);
int lean_bind(int fd, const union lean_sockaddr *address, socklen_t length);
int lean_listen(int fd, int backlog);
int lean_accept(int fd, struct lean_address *peer);
int lean_connect(int fd, const union lean_sockaddr *address, socklen_t length);
int lean_finish_connect(int fd);
int lean_local_address(int fd, struct lean_address *out);

int lean_shutdown(int fd, int how);
int lean_close(int fd);
int lean_poll(int fd, int events, int timeout_ms);
int lean_available(int fd);
int lean_send_urgent(int fd, int data);

int lean_set_int_option(int fd, int level, int name, int value);
int lean_get_int_option(int fd, int level, int name, int *value);
int lean_set_linger(int fd, int seconds);
int lean_get_linger(int fd, int *seconds);

int lean_poller_create(void);
int lean_poller_arm(int epfd, int fd, int events);
int lean_poller_wait(int epfd, int *fds, int capacity, int timeout_ms);

/*
 * The transfers, which every request makes, are defined here rather than in lean_sockets.c so
 * that they inline into the natives that call them: the return from the kernel then passes
 * through one C function fewer on its way back to Java, which in profiles of an echo server
 * was 7% of its user time.
 */

static inline int lean_read(int fd, void *buffer, int length)
{
    if (length < 0)
        return -EINVAL;
    /* Nothing asked is nothing read, as read(2) has it; recv would say EAGAIN with nothing there. */
    if (length == 0)
        return 0;
    ssize_t n = TEMP_FAILURE_RETRY(syscall(SYS_recvfrom, fd, buffer, (size_t)length, 0, NULL, NULL));
    return n < 0 ? -errno : (int)n;
}

static inline int lean_write(int fd, const void *buffer, int length)
{
    if (length < 0)
        return -EINVAL;
    ssize_t n = TEMP_FAILURE_RETRY(syscall(SYS_sendto, fd, buffer, (size_t)length, MSG_NOSIGNAL, NULL, 0));
    return n < 0 ? -errno : (int)n;
}

static inline int64_t lean_readv(int fd, const struct iovec *iovecs, int count)
{
    /* recvmsg says EMSGSIZE where readv says EINVAL; Java is given readv's answer. */
    if (count < 0 || count > IOV_MAX)
        return -EINVAL;
    /* The kernel only reads msg_iov. */
    struct msghdr message = { .msg_iov = (struct iovec *)iovecs, .msg_iovlen = (size_t)count };
    ssize_t n = TEMP_FAILURE_RETRY(syscall(SYS_recvmsg, fd, &message, 0));
    return n < 0 ? -errno : (int64_t)n;
}

static inline int64_t lean_writev(int fd, const struct iovec *iovecs, int count)
{
    if (count < 0)
        return -EINVAL;
    /* sendmsg, not writev: only it takes MSG_NOSIGNAL. The kernel only reads msg_iov. */
    struct msghdr message = { .msg_iov = (struct iovec *)iovecs, .msg_iovlen = (size_t)count };
    ssize_t n = TEMP_FAILURE_RETRY(syscall(SYS_sendmsg, fd, &message, MSG_NOSIGNAL));
    return n < 0 ? -errno : (int64_t)n;
}

#endif
