/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

/*
 * epoll_server: the protocol of common.h served by one thread on level-triggered epoll, in C:
 * what the Java servers are measured against, the cost of the work without a JVM.
 *
 * It mirrors the Java selector server: one read per readiness event into a shared buffer, the
 * replies built in a shared buffer and written at once; only a connection with half a request
 * or a reply the socket would not take gets buffers of its own, and waits for EPOLLOUT.
 *
 * It speaks the harness's control protocol on stdin/stdout: once listening it prints
 * "ready port=P server=c-epoll selector=epoll backend=c-epoll"; it answers each "stats" line
 * with "stats" (it keeps no counters) and exits 0 on "stop" or at the end of its input.
 */
#define _GNU_SOURCE
#include "common.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <getopt.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAX_EVENTS 1024
#define BACKLOG 4096
#define CONTROL_LINE_MAX 256

struct conn {
    int fd;
    unsigned char *in; /* half a request (or more) carried over; NULL when there is none */
    uint32_t in_len;
    unsigned char *out; /* the part of a reply the socket did not take; NULL when none */
    uint32_t out_len;
    uint32_t out_done;
};

static int epfd = -1;
static int listener = -1;
/* The epoll data of the listener and of stdin: any address that is not a connection. */
static char listener_tag;
static char control_tag;
static unsigned char read_buffer[PROTOCOL_MAX_BYTES];
static unsigned char reply_buffer[PROTOCOL_MAX_BYTES];

static void set_events(struct conn *c, uint32_t events) {
    struct epoll_event ev = {.events = events, .data = {.ptr = c}};
    if (epoll_ctl(epfd, EPOLL_CTL_MOD, c->fd, &ev) != 0) {
        DIE_ERRNO("epoll_ctl(MOD, fd %d)", c->fd);
    }
}

static void conn_close(struct conn *c) {
    /* Closing the descriptor removes it from the epoll set: it is never duplicated. */
    if (close(c->fd) != 0) {
        DIE_ERRNO("close(fd %d)", c->fd);
    }
    free(c->in);
    free(c->out);
    free(c);
}

/* Writes a reply; keeps what the socket did not take. Returns 0 if the connection failed. */
static int write_reply(struct conn *c, const unsigned char *reply, uint32_t len) {
    uint32_t done = 0;
    while (done < len) {
        ssize_t n = send(c->fd, reply + done, len - done, MSG_NOSIGNAL);
        if (n > 0) {
            done += (uint32_t)n;
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            c->out = malloc(len - done);
            if (c->out == NULL) {
                die("out of memory for a pending reply");
            }
            memcpy(c->out, reply + done, len - done);
            c->out_len = len - done;
            c->out_done = 0;
            set_events(c, EPOLLOUT);
            return 1;
        } else {
            return 0; /* the peer reset the connection */
        }
    }
    return 1;
}

/* Answers the complete requests in data[0..len); keeps the rest in c->in. Returns 0 if the
 * connection failed or broke the protocol. */
static int serve(struct conn *c, unsigned char *data, uint32_t len) {
    uint32_t at = 0;
    while (c->out == NULL && len - at >= PROTOCOL_HEADER_BYTES) {
        uint32_t request_len = get_be32(data + at);
        uint32_t reply_len = get_be32(data + at + 4);
        if (!protocol_lengths_valid(request_len, reply_len)) {
            return 0;
        }
        if (len - at < request_len) {
            break;
        }
        protocol_fill_reply(reply_buffer, reply_len, data + at, request_len);
        at += request_len;
        if (!write_reply(c, reply_buffer, reply_len)) {
            return 0;
        }
    }
    uint32_t rest = len - at;
    if (rest == 0) {
        free(c->in);
        c->in = NULL;
    } else if (data == c->in) {
        memmove(c->in, c->in + at, rest);
    } else {
        c->in = malloc(PROTOCOL_MAX_BYTES);
        if (c->in == NULL) {
            die("out of memory for a partial request");
        }
        memcpy(c->in, data + at, rest);
    }
    c->in_len = rest;
    return 1;
}

static void on_readable(struct conn *c) {
    unsigned char *buffer = c->in != NULL ? c->in : read_buffer;
    uint32_t have = c->in != NULL ? c->in_len : 0;
    ssize_t n;
    do {
        n = recv(c->fd, buffer + have, PROTOCOL_MAX_BYTES - have, 0);
    } while (n < 0 && errno == EINTR);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        return;
    }
    if (n <= 0 || !serve(c, buffer, have + (uint32_t)n)) {
        conn_close(c); /* end of stream, reset, or a request outside the protocol */
    }
}

static void on_writable(struct conn *c) {
    while (c->out_done < c->out_len) {
        ssize_t n = send(c->fd, c->out + c->out_done, c->out_len - c->out_done, MSG_NOSIGNAL);
        if (n > 0) {
            c->out_done += (uint32_t)n;
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            return;
        } else {
            conn_close(c);
            return;
        }
    }
    free(c->out);
    c->out = NULL;
    set_events(c, EPOLLIN);
    if (c->in != NULL && !serve(c, c->in, c->in_len)) {
        conn_close(c);
    }
}

static void accept_all(void) {
    for (;;) {
        int fd = accept4(listener, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK) {
                return;
            }
            if (errno == EINTR || errno == ECONNABORTED) {
                continue;
            }
            DIE_ERRNO("accept4");
        }
        int one = 1;
        if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) != 0) {
            DIE_ERRNO("setsockopt(TCP_NODELAY)");
        }
        struct conn *c = calloc(1, sizeof *c);
        if (c == NULL) {
            die("out of memory for a connection");
        }
        c->fd = fd;
        struct epoll_event ev = {.events = EPOLLIN, .data = {.ptr = c}};
        if (epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) != 0) {
            DIE_ERRNO("epoll_ctl(ADD, fd %d)", fd);
        }
    }
}

static void print_line(const char *line) {
    if (puts(line) < 0 || fflush(stdout) != 0) {
        DIE_ERRNO("writing to stdout");
    }
}

/* Reads control lines; returns 0 when told to stop or at the end of input. */
static int on_control(void) {
    static char line[CONTROL_LINE_MAX];
    static size_t have;
    ssize_t n;
    do {
        n = read(STDIN_FILENO, line + have, sizeof line - 1 - have);
    } while (n < 0 && errno == EINTR);
    if (n < 0) {
        DIE_ERRNO("read(stdin)");
    }
    if (n == 0) {
        return 0;
    }
    have += (size_t)n;
    char *newline;
    while ((newline = memchr(line, '\n', have)) != NULL) {
        *newline = '\0';
        if (strcmp(line, "stats") == 0) {
            print_line("stats");
        } else if (strcmp(line, "stop") == 0) {
            return 0;
        } else {
            fprintf(stderr, "epoll_server: unknown control line: %s\n", line);
        }
        size_t used = (size_t)(newline + 1 - line);
        memmove(line, newline + 1, have - used);
        have -= used;
    }
    if (have == sizeof line - 1) {
        die("control line longer than %d bytes", CONTROL_LINE_MAX - 1);
    }
    return 1;
}

static int listen_on(const char *host, int port) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        DIE_ERRNO("socket");
    }
    int one = 1;
    if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0) {
        DIE_ERRNO("setsockopt(SO_REUSEADDR)");
    }
    struct sockaddr_in addr;
    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_port = htons((uint16_t)port);
    if (inet_pton(AF_INET, host, &addr.sin_addr) != 1) {
        die("--host %s: not an IPv4 address", host);
    }
    if (bind(fd, (struct sockaddr *)&addr, sizeof addr) != 0) {
        DIE_ERRNO("bind %s:%d", host, port);
    }
    if (listen(fd, BACKLOG) != 0) {
        DIE_ERRNO("listen");
    }
    return fd;
}

static int bound_port(int fd) {
    struct sockaddr_in addr;
    socklen_t len = sizeof addr;
    if (getsockname(fd, (struct sockaddr *)&addr, &len) != 0) {
        DIE_ERRNO("getsockname");
    }
    return ntohs(addr.sin_port);
}

int main(int argc, char **argv) {
    const char *host = "127.0.0.1";
    int port = 0;
    static const struct option longopts[] = {
        {"host", required_argument, NULL, 'h'},
        {"port", required_argument, NULL, 'p'},
        {NULL, 0, NULL, 0},
    };
    int opt;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (opt) {
        case 'h': host = optarg; break;
        case 'p': {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (*optarg == '\0' || *end != '\0' || v < 0 || v > 65535) {
                die("--port %s: expected 0 (any free port) to 65535", optarg);
            }
            port = (int)v;
            break;
        }
        default:
            die("usage: epoll_server [--host 127.0.0.1] [--port 0]");
        }
    }
    if (signal(SIGPIPE, SIG_IGN) == SIG_ERR) {
        DIE_ERRNO("signal(SIGPIPE)");
    }
    epfd = epoll_create1(EPOLL_CLOEXEC);
    if (epfd < 0) {
        DIE_ERRNO("epoll_create1");
    }
    listener = listen_on(host, port);
    struct epoll_event ev = {.events = EPOLLIN, .data = {.ptr = &listener_tag}};
    if (epoll_ctl(epfd, EPOLL_CTL_ADD, listener, &ev) != 0) {
        DIE_ERRNO("epoll_ctl(ADD, listener)");
    }
    ev.data.ptr = &control_tag;
    if (epoll_ctl(epfd, EPOLL_CTL_ADD, STDIN_FILENO, &ev) != 0) {
        DIE_ERRNO("epoll_ctl(ADD, stdin)");
    }
    char ready[128];
    snprintf(ready, sizeof ready, "ready port=%d server=c-epoll selector=epoll backend=c-epoll", bound_port(listener));
    print_line(ready);

    struct epoll_event events[MAX_EVENTS];
    for (;;) {
        int n = epoll_wait(epfd, events, MAX_EVENTS, -1);
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            DIE_ERRNO("epoll_wait");
        }
        for (int i = 0; i < n; i++) {
            void *tag = events[i].data.ptr;
            if (tag == &listener_tag) {
                accept_all();
            } else if (tag == &control_tag) {
                if (!on_control()) {
                    return 0;
                }
            } else {
                struct conn *c = tag;
                if (c->out != NULL) {
                    on_writable(c);
                } else {
                    on_readable(c);
                }
            }
        }
    }
}
