/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

/*
 * The system calls of the lean socket channels (linux/lean_sockets.h) on loopback: sockets made
 * non-blocking and close-on-exec, listening, accepting and connecting over IPv4, IPv6 and IPv4 on
 * a dual-stack socket; addresses both ways; reads and writes, scattered and gathered, to the end
 * of the stream and to a peer that has gone; the errnos a caller turns into its return codes and
 * exceptions; reads and writes that a signal interrupts (on blocking fds, where one can), which
 * call again; options, linger, shutdown, poll, available, urgent data; the one-shot poller; and
 * -EBADF for fds that are not open. Prints "N passed, M failed" (tests, not checks) and exits
 * non-zero on failure. Where this machine has no ::1, the IPv6 tests say so and check nothing.
 */
#include "lean_sockets.h"
#include "test_support.h"

#include <limits.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

static const uint8_t LOOPBACK4[4] = { 127, 0, 0, 1 };
static const uint8_t LOOPBACK6[16] = { [15] = 1 };
static const uint8_t MAPPED_LOOPBACK4[16] = { [10] = 0xff, [11] = 0xff, 127, 0, 0, 1 };

/* Long enough for loopback, short enough that a hang fails the test rather than the run. */
#define WAIT_MS 5000

/* Whether ::1 can be bound here (main decides, once). */
static bool has_ipv6;

/* Whether an INET6 socket can be made here. */
static bool inet6_sockets(void)
{
    int fd = lean_socket(true);
    if (fd < 0)
        return false;
    lean_close(fd);
    return true;
}

static int bind_to(int fd, bool inet6_socket, const uint8_t *address, int length, int port)
{
    union lean_sockaddr sockaddr;
    socklen_t sockaddr_length;
    int err = lean_sockaddr(inet6_socket, address, length, port, 0, &sockaddr, &sockaddr_length);
    return err < 0 ? err : lean_bind(fd, &sockaddr, sockaddr_length);
}

static int connect_to(int fd, bool inet6_socket, const uint8_t *address, int length, int port)
{
    union lean_sockaddr sockaddr;
    socklen_t sockaddr_length;
    int err = lean_sockaddr(inet6_socket, address, length, port, 0, &sockaddr, &sockaddr_length);
    return err < 0 ? err : lean_connect(fd, &sockaddr, sockaddr_length);
}

static int local_port(int fd)
{
    struct lean_address address;
    CHECK(lean_local_address(fd, &address) == 0);
    return address.port;
}

/* A socket listening on `address` port 0; its port into *port. */
static int listening(bool inet6_socket, const uint8_t *address, int length, int *port)
{
    int fd = lean_socket(inet6_socket);
    CHECK(fd >= 0);
    CHECK(bind_to(fd, inet6_socket, address, length, 0) == 0);
    CHECK(lean_listen(fd, 16) == 0);
    *port = local_port(fd);
    CHECK(*port > 0);
    return fd;
}

static bool ready(int fd, int events)
{
    return (lean_poll(fd, events, WAIT_MS) & events) != 0;
}

/* The peer's address lean_accept gave for the connection connect_pair made last. */
static struct lean_address accepted_peer;

/* A connection to `listener` from a new socket of the family asked: its two ends. */
static void connect_pair(int listener, bool inet6_client, const uint8_t *address, int length, int port,
                         int *client, int *server)
{
    *client = lean_socket(inet6_client);
    CHECK(*client >= 0);
    int n = connect_to(*client, inet6_client, address, length, port);
    CHECK(n == 1 || n == -EINPROGRESS);
    if (n == -EINPROGRESS) {
        CHECK(ready(*client, POLLOUT));
        CHECK(lean_finish_connect(*client) == 1);
    }
    CHECK(ready(listener, POLLIN));
    *server = lean_accept(listener, &accepted_peer);
    CHECK(*server >= 0);
}

/* A connected IPv4 pair on 127.0.0.1; the listener is closed again. */
static void loopback_pair(int *client, int *server)
{
    int port;
    int listener = listening(false, LOOPBACK4, 4, &port);
    connect_pair(listener, false, LOOPBACK4, 4, port, client, server);
    CHECK(lean_close(listener) == 0);
}

static void close_both(int a, int b)
{
    CHECK(lean_close(a) == 0);
    CHECK(lean_close(b) == 0);
}

static void check_nonblocking_cloexec(int fd)
{
    CHECK((fcntl(fd, F_GETFL) & O_NONBLOCK) != 0);
    CHECK((fcntl(fd, F_GETFD) & FD_CLOEXEC) != 0);
}

static void check_address(const struct lean_address *address, int family, const uint8_t *bytes, int port)
{
    static const uint8_t zeros[16];
    CHECK(address->family == family);
    CHECK(memcmp(address->bytes, bytes, family == 4 ? 4 : 16) == 0);
    if (family == 4)
        CHECK(memcmp(address->bytes + 4, zeros, 12) == 0);
    CHECK(address->port == port);
    CHECK(address->scope_id == 0);
}

static void test_sockets_are_nonblocking_and_close_on_exec(void)
{
    int v4 = lean_socket(false);
    CHECK(v4 >= 0);
    check_nonblocking_cloexec(v4);
    CHECK(lean_close(v4) == 0);
    if (!inet6_sockets())
        return;
    int v6 = lean_socket(true);
    CHECK(v6 >= 0);
    check_nonblocking_cloexec(v6);
    int v6only = -1;
    CHECK(lean_get_int_option(v6, IPPROTO_IPV6, IPV6_V6ONLY, &v6only) == 0);
    CHECK(v6only == 0);
    CHECK(lean_close(v6) == 0);
}

static void test_v4_connects_accepts_and_reports_addresses(void)
{
    int port, client, server;
    int listener = listening(false, LOOPBACK4, 4, &port);
    connect_pair(listener, false, LOOPBACK4, 4, port, &client, &server);
    check_nonblocking_cloexec(server);
    struct lean_address address;
    CHECK(lean_local_address(listener, &address) == 0);
    check_address(&address, 4, LOOPBACK4, port);
    check_address(&accepted_peer, 4, LOOPBACK4, local_port(client));
    CHECK(lean_local_address(server, &address) == 0);
    check_address(&address, 4, LOOPBACK4, port);
    close_both(client, server);
    CHECK(lean_close(listener) == 0);
}

static void test_accept_with_none_waiting_is_eagain(void)
{
    int port;
    int listener = listening(false, LOOPBACK4, 4, &port);
    struct lean_address peer;
    CHECK(lean_accept(listener, &peer) == -EAGAIN);
    CHECK(lean_close(listener) == 0);
}

static void test_v6_connects_and_reports_addresses(void)
{
    if (!has_ipv6)
        return;
    int port, client, server;
    int listener = listening(true, LOOPBACK6, 16, &port);
    connect_pair(listener, true, LOOPBACK6, 16, port, &client, &server);
    check_address(&accepted_peer, 6, LOOPBACK6, local_port(client));
    close_both(client, server);
    CHECK(lean_close(listener) == 0);
}

/* 4 bytes on an INET6 socket are ::ffff:a.b.c.d, and come back as family 4. */
static void test_dual_stack_takes_and_reports_v4(void)
{
    if (!inet6_sockets())
        return;
    int port, client, server;
    int listener = listening(true, LOOPBACK4, 4, &port);
    struct lean_address address;
    CHECK(lean_local_address(listener, &address) == 0);
    check_address(&address, 4, LOOPBACK4, port);
    connect_pair(listener, false, LOOPBACK4, 4, port, &client, &server);
    check_address(&accepted_peer, 4, LOOPBACK4, local_port(client));
    close_both(client, server);
    /* And an INET6 client to an IPv4 address. */
    connect_pair(listener, true, LOOPBACK4, 4, port, &client, &server);
    check_address(&accepted_peer, 4, LOOPBACK4, local_port(client));
    close_both(client, server);
    CHECK(lean_close(listener) == 0);
}

static void test_sockaddr_conversions(void)
{
    union lean_sockaddr sockaddr;
    socklen_t length;
    CHECK(lean_sockaddr(false, MAPPED_LOOPBACK4, 16, 80, 7, &sockaddr, &length) == 0);
    CHECK(sockaddr.sa.sa_family == AF_INET && length == sizeof(struct sockaddr_in));
    CHECK(sockaddr.v4.sin_addr.s_addr == htonl(INADDR_LOOPBACK) && sockaddr.v4.sin_port == htons(80));
    CHECK(lean_sockaddr(true, LOOPBACK4, 4, 81, 7, &sockaddr, &length) == 0);
    CHECK(sockaddr.sa.sa_family == AF_INET6 && length == sizeof(struct sockaddr_in6));
    CHECK(memcmp(&sockaddr.v6.sin6_addr, MAPPED_LOOPBACK4, 16) == 0 && sockaddr.v6.sin6_scope_id == 0);
    CHECK(lean_sockaddr(true, LOOPBACK6, 16, 65535, 7, &sockaddr, &length) == 0);
    CHECK(sockaddr.v6.sin6_scope_id == 7 && sockaddr.v6.sin6_port == htons(65535));
    static const uint8_t any4[4];
    CHECK(lean_sockaddr(true, any4, 4, 82, 0, &sockaddr, &length) == 0);
    CHECK(memcmp(&sockaddr.v6.sin6_addr, &in6addr_any, 16) == 0 && sockaddr.v6.sin6_port == htons(82));
    CHECK(lean_sockaddr(false, LOOPBACK6, 16, 80, 0, &sockaddr, &length) == -EAFNOSUPPORT);
    CHECK(lean_sockaddr(false, LOOPBACK4, 5, 80, 0, &sockaddr, &length) == -EINVAL);
    CHECK(lean_sockaddr(false, LOOPBACK4, 4, -1, 0, &sockaddr, &length) == -EINVAL);
    CHECK(lean_sockaddr(false, LOOPBACK4, 4, 65536, 0, &sockaddr, &length) == -EINVAL);
}

/* A port bound but not listening refuses, at once or by the time the connect finishes. */
static void test_connection_refused(void)
{
    int holder = lean_socket(false);
    CHECK(holder >= 0);
    CHECK(bind_to(holder, false, LOOPBACK4, 4, 0) == 0);
    int client = lean_socket(false);
    CHECK(client >= 0);
    int n = connect_to(client, false, LOOPBACK4, 4, local_port(holder));
    if (n == -EINPROGRESS) {
        CHECK(ready(client, POLLOUT));
        n = lean_finish_connect(client);
    }
    CHECK(n == -ECONNREFUSED);
    close_both(client, holder);
}

static void test_finish_connect_without_connect_is_enotconn(void)
{
    int fd = lean_socket(false);
    CHECK(fd >= 0);
    CHECK(lean_finish_connect(fd) == -ENOTCONN);
    CHECK(lean_close(fd) == 0);
}

static void test_read_write_eagain_and_eof(void)
{
    int client, server;
    loopback_pair(&client, &server);
    char buffer[16];
    CHECK(lean_read(server, buffer, sizeof(buffer)) == -EAGAIN);
    CHECK(lean_write(client, "hello", 5) == 5);
    CHECK(ready(server, POLLIN));
    CHECK(lean_read(server, buffer, sizeof(buffer)) == 5 && memcmp(buffer, "hello", 5) == 0);
    CHECK(lean_read(server, buffer, 0) == 0);
    CHECK(lean_read(server, buffer, -1) == -EINVAL);
    CHECK(lean_write(client, buffer, -1) == -EINVAL);
    CHECK(lean_shutdown(client, SHUT_WR) == 0);
    CHECK(ready(server, POLLIN));
    CHECK(lean_read(server, buffer, sizeof(buffer)) == 0);
    close_both(client, server);
}

static void test_readv_and_writev(void)
{
    int client, server;
    loopback_pair(&client, &server);
    char a[] = "scatter", b[] = "gather";
    struct iovec out[2] = { { a, 7 }, { b, 6 } };
    CHECK(lean_writev(client, out, 2) == 13);
    CHECK(ready(server, POLLIN));
    char c[4], d[16];
    struct iovec in[2] = { { c, sizeof(c) }, { d, sizeof(d) } };
    CHECK(lean_readv(server, in, 2) == 13);
    CHECK(memcmp(c, "scat", 4) == 0 && memcmp(d, "tergather", 9) == 0);
    CHECK(lean_readv(server, in, 2) == -EAGAIN);
    CHECK(lean_writev(client, out, -1) == -EINVAL);
    CHECK(lean_readv(server, in, IOV_MAX + 1) == -EINVAL);
    CHECK(lean_shutdown(client, SHUT_WR) == 0);
    CHECK(ready(server, POLLIN));
    CHECK(lean_readv(server, in, 2) == 0);
    close_both(client, server);
}

/* A peer gone: -EPIPE or -ECONNRESET, never SIGPIPE (which would end this program). */
static void test_write_to_a_closed_peer_fails_without_sigpipe(void)
{
    int client, server;
    loopback_pair(&client, &server);
    CHECK(lean_set_linger(server, 0) == 0); /* closing sends RST */
    CHECK(lean_close(server) == 0);
    CHECK(ready(client, POLLIN));
    char byte = 'x';
    int n = lean_write(client, &byte, 1);
    CHECK(n == -EPIPE || n == -ECONNRESET);
    struct iovec iov = { &byte, 1 };
    CHECK(lean_writev(client, &iov, 1) == -EPIPE);
    CHECK(lean_close(client) == 0);
}

static void test_reset_read_is_econnreset(void)
{
    int client, server;
    loopback_pair(&client, &server);
    CHECK(lean_set_linger(server, 0) == 0);
    CHECK(lean_close(server) == 0);
    CHECK(ready(client, POLLIN));
    char byte;
    CHECK(lean_read(client, &byte, 1) == -ECONNRESET);
    CHECK(lean_close(client) == 0);
}

/* Signals caught by the handler that test_calls_again_after_a_signal installs. */
static volatile sig_atomic_t signals_caught;

static void count_signal(int signal)
{
    (void)signal;
    signals_caught++;
}

/* What interrupt_then_unblock needs: the blocked thread, and the other end of its fd. */
struct blocked_call {
    pthread_t thread;
    int peer;
    bool writing;
};

/*
 * Signals the blocked thread every 5 ms for 100 ms (each signal ends a blocked system call with
 * EINTR, the handler having no SA_RESTART), then unblocks it: a byte for a reader, or the peer's
 * buffer drained for a writer.
 */
static void *interrupt_then_unblock(void *arg)
{
    const struct blocked_call *call = arg;
    for (int i = 0; i < 20; i++) {
        sleep_ms(5);
        pthread_kill(call->thread, SIGUSR1);
    }
    if (!call->writing) {
        CHECK(write(call->peer, "x", 1) == 1);
        return NULL;
    }
    char drained[4096];
    while (read(call->peer, drained, sizeof(drained)) > 0) {
    }
    return NULL;
}

static int64_t read_one(int fd)
{
    char byte;
    return lean_read(fd, &byte, 1);
}

static int64_t readv_one(int fd)
{
    char byte;
    struct iovec iov = { &byte, 1 };
    return lean_readv(fd, &iov, 1);
}

static int64_t write_one(int fd)
{
    return lean_write(fd, "y", 1);
}

static int64_t writev_one(int fd)
{
    struct iovec iov = { "y", 1 };
    return lean_writev(fd, &iov, 1);
}

/* Fills fd's send buffer (and its peer's receive buffer), so that the next blocking send waits. */
static void fill_send_buffer(int fd, int peer)
{
    CHECK(fcntl(fd, F_SETFL, O_NONBLOCK) == 0);
    char chunk[4096] = { 0 };
    while (send(fd, chunk, sizeof(chunk), MSG_NOSIGNAL) > 0) {
    }
    CHECK(errno == EAGAIN);
    CHECK(fcntl(fd, F_SETFL, 0) == 0);
    CHECK(fcntl(peer, F_SETFL, O_NONBLOCK) == 0); /* drained to EAGAIN */
}

/*
 * The reads and writes on a blocking fd (the lean channels' fds never block, so there a signal
 * could not interrupt them; these calls do not care) are interrupted by signals while they wait,
 * and call again: the byte arrives, no -EINTR comes back. Were the machine so slow that the
 * signals all came before the call, it would pass without having been interrupted, never fail.
 */
static void test_calls_again_after_a_signal(void)
{
    int64_t (*const calls[])(int) = { read_one, readv_one, write_one, writev_one };
    struct sigaction handler = { .sa_handler = count_signal }, previous;
    CHECK(sigaction(SIGUSR1, &handler, &previous) == 0);
    for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
        bool writing = i >= 2;
        int pair[2];
        CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) == 0);
        if (writing)
            fill_send_buffer(pair[0], pair[1]);
        signals_caught = 0;
        struct blocked_call call = { pthread_self(), pair[1], writing };
        pthread_t interrupter;
        CHECK(pthread_create(&interrupter, NULL, interrupt_then_unblock, &call) == 0);
        CHECK(calls[i](pair[0]) == 1);
        CHECK(pthread_join(interrupter, NULL) == 0);
        CHECK(signals_caught > 0);
        close_both(pair[0], pair[1]);
    }
    CHECK(sigaction(SIGUSR1, &previous, NULL) == 0);
}

static void test_int_options(void)
{
    int client, server;
    loopback_pair(&client, &server);
    int value = -1;
    CHECK(lean_get_int_option(client, IPPROTO_TCP, TCP_NODELAY, &value) == 0 && value == 0);
    CHECK(lean_set_int_option(client, IPPROTO_TCP, TCP_NODELAY, 1) == 0);
    CHECK(lean_get_int_option(client, IPPROTO_TCP, TCP_NODELAY, &value) == 0 && value != 0);
    CHECK(lean_set_int_option(client, SOL_SOCKET, SO_KEEPALIVE, 1) == 0);
    CHECK(lean_get_int_option(client, SOL_SOCKET, SO_KEEPALIVE, &value) == 0 && value == 1);
    CHECK(lean_set_int_option(client, IPPROTO_TCP, TCP_KEEPIDLE, 30) == 0);
    CHECK(lean_get_int_option(client, IPPROTO_TCP, TCP_KEEPIDLE, &value) == 0 && value == 30);
    CHECK(lean_set_int_option(client, SOL_SOCKET, SO_RCVBUF, 65536) == 0);
    CHECK(lean_get_int_option(client, SOL_SOCKET, SO_RCVBUF, &value) == 0 && value >= 65536);
    CHECK(lean_set_int_option(client, IPPROTO_IP, IP_TOS, 0x10) == 0);
    CHECK(lean_get_int_option(client, IPPROTO_IP, IP_TOS, &value) == 0 && value == 0x10);
    CHECK(lean_get_int_option(client, SOL_SOCKET, -1, &value) == -ENOPROTOOPT);
    CHECK(lean_set_int_option(client, IPPROTO_TCP, -1, 1) == -ENOPROTOOPT);
    close_both(client, server);
}

static void test_linger(void)
{
    int fd = lean_socket(false);
    CHECK(fd >= 0);
    int seconds = 0;
    CHECK(lean_get_linger(fd, &seconds) == 0 && seconds == -1);
    CHECK(lean_set_linger(fd, 5) == 0);
    CHECK(lean_get_linger(fd, &seconds) == 0 && seconds == 5);
    CHECK(lean_set_linger(fd, 0) == 0);
    CHECK(lean_get_linger(fd, &seconds) == 0 && seconds == 0);
    CHECK(lean_set_linger(fd, -1) == 0);
    CHECK(lean_get_linger(fd, &seconds) == 0 && seconds == -1);
    CHECK(lean_close(fd) == 0);
}

static void test_shutdown(void)
{
    int fd = lean_socket(false);
    CHECK(fd >= 0);
    CHECK(lean_shutdown(fd, SHUT_RDWR) == 0); /* never connected: ENOTCONN is no error */
    CHECK(lean_shutdown(fd, 7) == -EINVAL);
    CHECK(lean_close(fd) == 0);
    int client, server;
    loopback_pair(&client, &server);
    CHECK(lean_shutdown(server, SHUT_RD) == 0);
    char byte;
    CHECK(lean_read(server, &byte, 1) == 0);
    close_both(client, server);
}

static void test_poll_times_out_and_reports(void)
{
    int client, server;
    loopback_pair(&client, &server);
    long start = now_ms();
    CHECK(lean_poll(server, POLLIN, 50) == 0);
    CHECK(now_ms() - start >= 40);
    CHECK(lean_poll(server, POLLOUT, 0) == POLLOUT);
    CHECK(lean_write(client, "x", 1) == 1);
    CHECK(lean_poll(server, POLLIN, WAIT_MS) == POLLIN);
    CHECK(lean_close(client) == 0);
    CHECK((lean_poll(server, POLLIN, WAIT_MS) & POLLIN) != 0);
    CHECK(lean_close(server) == 0);
    CHECK(lean_poll(server, POLLIN, WAIT_MS) == POLLNVAL);
}

/* shutdown(SHUT_RDWR) wakes a thread in poll: how a close reaches a blocked thread. */
static void test_shutdown_ends_a_poll(void)
{
    int client, server;
    loopback_pair(&client, &server);
    CHECK(lean_shutdown(server, SHUT_RDWR) == 0);
    CHECK((lean_poll(server, POLLIN, WAIT_MS) & (POLLIN | POLLHUP)) != 0);
    close_both(client, server);
}

static void test_available(void)
{
    int client, server;
    loopback_pair(&client, &server);
    CHECK(lean_available(server) == 0);
    CHECK(lean_write(client, "abc", 3) == 3);
    CHECK(ready(server, POLLIN));
    CHECK(lean_available(server) == 3);
    close_both(client, server);
}

static void test_urgent_data(void)
{
    int client, server;
    loopback_pair(&client, &server);
    CHECK(lean_set_int_option(server, SOL_SOCKET, SO_OOBINLINE, 1) == 0);
    CHECK(lean_send_urgent(client, 0x1ff) == 0);
    CHECK(ready(server, POLLIN));
    char byte = 0;
    CHECK(lean_read(server, &byte, 1) == 1 && (uint8_t)byte == 0xff);
    close_both(client, server);
}

static void test_poller_reports_once_until_armed_again(void)
{
    int client, server;
    loopback_pair(&client, &server);
    int epfd = lean_poller_create();
    CHECK(epfd >= 0);
    CHECK((fcntl(epfd, F_GETFD) & FD_CLOEXEC) != 0);
    int fds[LEAN_POLLER_MAX_EVENTS + 8];
    CHECK(lean_poller_arm(epfd, server, POLLIN) == 0); /* ADD */
    CHECK(lean_poller_wait(epfd, fds, 1, 0) == 0);
    CHECK(lean_write(client, "x", 1) == 1);
    CHECK(lean_poller_wait(epfd, fds, 1, WAIT_MS) == 1 && fds[0] == server);
    CHECK(lean_poller_wait(epfd, fds, 1, 0) == 0); /* one shot */
    CHECK(lean_poller_arm(epfd, server, POLLIN) == 0); /* MOD */
    CHECK(lean_poller_wait(epfd, fds, (int)(sizeof(fds) / sizeof(fds[0])), WAIT_MS) == 1 && fds[0] == server);
    CHECK(lean_poller_arm(epfd, client, POLLIN | POLLOUT) == 0);
    CHECK(lean_poller_wait(epfd, fds, 4, WAIT_MS) == 1 && fds[0] == client);
    CHECK(lean_poller_arm(epfd, server, POLLIN) == 0); /* MOD of a registration that fired */
    CHECK(lean_poller_wait(epfd, fds, 1, WAIT_MS) == 1 && fds[0] == server);
    CHECK(lean_poller_wait(epfd, fds, 0, 0) == -EINVAL);
    close_both(client, server);
    CHECK(lean_poller_wait(epfd, fds, 1, 20) == 0); /* closed: the kernel dropped both */
    CHECK(lean_close(epfd) == 0);
}

/* A shutdown reaches a thread waiting in the poller too: the fd reports a hang-up. */
static void test_poller_sees_shutdown(void)
{
    int client, server;
    loopback_pair(&client, &server);
    int epfd = lean_poller_create();
    CHECK(epfd >= 0);
    CHECK(lean_poller_arm(epfd, server, POLLIN) == 0);
    CHECK(lean_shutdown(server, SHUT_RDWR) == 0);
    int fd = -1;
    CHECK(lean_poller_wait(epfd, &fd, 1, WAIT_MS) == 1 && fd == server);
    close_both(client, server);
    CHECK(lean_close(epfd) == 0);
}

static void check_all_ebadf(int fd)
{
    union lean_sockaddr sockaddr;
    socklen_t length;
    CHECK(lean_sockaddr(false, LOOPBACK4, 4, 1, 0, &sockaddr, &length) == 0);
    struct lean_address address;
    char byte = 0;
    struct iovec iov = { &byte, 1 };
    int value, fds[1];
    CHECK(lean_bind(fd, &sockaddr, length) == -EBADF);
    CHECK(lean_listen(fd, 1) == -EBADF);
    CHECK(lean_accept(fd, &address) == -EBADF);
    CHECK(lean_connect(fd, &sockaddr, length) == -EBADF);
    CHECK(lean_finish_connect(fd) == -EBADF);
    CHECK(lean_local_address(fd, &address) == -EBADF);
    CHECK(lean_read(fd, &byte, 1) == -EBADF);
    CHECK(lean_write(fd, &byte, 1) == -EBADF);
    CHECK(lean_readv(fd, &iov, 1) == -EBADF);
    CHECK(lean_writev(fd, &iov, 1) == -EBADF);
    CHECK(lean_shutdown(fd, SHUT_RDWR) == -EBADF);
    CHECK(lean_close(fd) == -EBADF);
    CHECK(lean_available(fd) == -EBADF);
    CHECK(lean_send_urgent(fd, 1) == -EBADF);
    CHECK(lean_set_int_option(fd, SOL_SOCKET, SO_KEEPALIVE, 1) == -EBADF);
    CHECK(lean_get_int_option(fd, SOL_SOCKET, SO_KEEPALIVE, &value) == -EBADF);
    CHECK(lean_set_linger(fd, 1) == -EBADF);
    CHECK(lean_get_linger(fd, &value) == -EBADF);
    CHECK(lean_poller_arm(fd, 0, POLLIN) == -EBADF);
    CHECK(lean_poller_wait(fd, fds, 1, 0) == -EBADF);
}

static void test_bad_fds_are_ebadf(void)
{
    check_all_ebadf(closed_fd());
    check_all_ebadf(-1);
    CHECK(lean_poll(-1, POLLIN, WAIT_MS) == -EBADF); /* at once, not after the timeout */
    int epfd = lean_poller_create();
    CHECK(epfd >= 0);
    CHECK(lean_poller_arm(epfd, closed_fd(), POLLIN) == -EBADF);
    CHECK(lean_poller_arm(epfd, -1, POLLIN) == -EBADF);
    CHECK(lean_close(epfd) == 0);
}

static const struct test tests[] = {
    T(test_sockets_are_nonblocking_and_close_on_exec),
    T(test_v4_connects_accepts_and_reports_addresses),
    T(test_accept_with_none_waiting_is_eagain),
    T(test_v6_connects_and_reports_addresses),
    T(test_dual_stack_takes_and_reports_v4),
    T(test_sockaddr_conversions),
    T(test_connection_refused),
    T(test_finish_connect_without_connect_is_enotconn),
    T(test_read_write_eagain_and_eof),
    T(test_readv_and_writev),
    T(test_write_to_a_closed_peer_fails_without_sigpipe),
    T(test_reset_read_is_econnreset),
    T(test_calls_again_after_a_signal),
    T(test_int_options),
    T(test_linger),
    T(test_shutdown),
    T(test_poll_times_out_and_reports),
    T(test_shutdown_ends_a_poll),
    T(test_available),
    T(test_urgent_data),
    T(test_poller_reports_once_until_armed_again),
    T(test_poller_sees_shutdown),
    T(test_bad_fds_are_ebadf),
#undef T
};

/* Whether ::1 can be bound: a container may have IPv6 sockets but no IPv6 loopback address. */
static bool ipv6_loopback(void)
{
    int fd = lean_socket(true);
    bool bound = fd >= 0 && bind_to(fd, true, LOOPBACK6, 16, 0) == 0;
    if (fd >= 0)
        lean_close(fd);
    return bound;
}

int main(void)
{
    alarm(60); /* a hung poll kills the run instead of stalling it */
    has_ipv6 = ipv6_loopback();
    if (!has_ipv6)
        printf("no ::1 here: the IPv6 tests check nothing\n");
    return run_tests(tests, sizeof(tests) / sizeof(tests[0]));
}
