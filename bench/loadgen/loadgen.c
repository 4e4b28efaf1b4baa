/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

/*
 * loadgen: a closed-loop TCP load generator on epoll, speaking the protocol of common.h.
 *
 * Two modes:
 *   rr   long-lived connections; each sends a request, waits for the whole reply, thinks, and
 *        sends the next (TCP_RR).
 *   crr  each request on a new connection: connect, send, read the reply, close, think, again
 *        (TCP_CRR). Latency runs from the connect to the end of the reply.
 * Besides the active connections it can hold idle ones open that never send anything, so a
 * server's cost can be measured against the number of connections it merely watches.
 *
 * After the warm-up it prints "measuring" on stdout; after the measured window one "result ..."
 * line covering that window only; then it closes every connection and exits 0. A failing system
 * call ends it with a message on stderr and exit status 1.
 */
#define _GNU_SOURCE
#include "common.h"

#include <arpa/inet.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAX_EVENTS 1024
#define CONNECT_TIMEOUT_S 20.0
/* Connects in flight at once while setting up: a larger burst than the server's accept backlog
 * would leave SYNs dropped and retried a second later. */
#define CONNECT_WAVE 256
#define MAX_CONNECTIONS 1000000
#define MAX_SECONDS 3600.0
#define MAX_THINK_US 10000000L
#define MAX_ERROR_MESSAGES 10
/* A connect-request-response-close slot whose attempt failed waits at least this long before
 * the next, so a refusing server is not hammered in a tight loop. */
#define CRR_RETRY_NS 1000000u
/* The client closes each crr connection, so every one leaves a TIME_WAIT socket holding its
 * local port for a second or more: one source address would cap the load at about 15,000
 * connections/s on the default port range, whatever the server. Against a loopback server the
 * crr connections therefore come from 127.0.0.2 to 127.0.0.(1 + this), in turn. */
#define CRR_SOURCE_ADDRESSES 250u

/* ---- latency histogram --------------------------------------------------------------------
 * Log-linear buckets over nanoseconds: values below 128 have a bucket each; above, every power
 * of two is split into 64 equal buckets, so a bucket is at most ~1.6% wide relative to its
 * values. 58 octaves cover the whole uint64_t range; nothing overflows.
 */
#define SUB_BITS 6
#define SUB_COUNT (1u << SUB_BITS)
#define BUCKETS ((64 - SUB_BITS + 1) * SUB_COUNT)

static uint64_t histogram[BUCKETS];
static uint64_t histogram_count;

static unsigned bucket_of(uint64_t v) {
    if (v < 2 * SUB_COUNT) {
        return (unsigned)v;
    }
    unsigned msb = 63u - (unsigned)__builtin_clzll(v);
    unsigned shift = msb - SUB_BITS;
    return (shift + 1) * SUB_COUNT + (unsigned)((v >> shift) - SUB_COUNT);
}

/* The middle of a bucket's range of values. */
static double bucket_value(unsigned index) {
    if (index < 2 * SUB_COUNT) {
        return (double)index;
    }
    unsigned shift = index / SUB_COUNT - 1;
    double low = (double)((uint64_t)(SUB_COUNT + index % SUB_COUNT) << shift);
    return low + (double)((uint64_t)1 << shift) / 2.0;
}

static void histogram_record(uint64_t ns) {
    histogram[bucket_of(ns)]++;
    histogram_count++;
}

/* The latency (ns) at quantile q: the value of the ceil(q * count)-th smallest sample. */
static double histogram_quantile(double q) {
    if (histogram_count == 0) {
        return 0.0;
    }
    uint64_t rank = (uint64_t)ceil(q * (double)histogram_count);
    if (rank < 1) {
        rank = 1;
    }
    uint64_t seen = 0;
    for (unsigned i = 0; i < BUCKETS; i++) {
        seen += histogram[i];
        if (seen >= rank) {
            return bucket_value(i);
        }
    }
    return bucket_value(BUCKETS - 1);
}

/* ---- options ----------------------------------------------------------------------------- */

enum mode { MODE_RR, MODE_CRR };

struct options {
    const char *host;
    int port;
    long connections;
    long idle;
    long size;
    long reply; /* 0: the same as size (an echo) */
    long think_us;
    enum mode mode;
    double warmup;
    double seconds;
};

static void usage(FILE *out) {
    fputs("usage: loadgen --port P [--host 127.0.0.1] [--mode rr|crr] [--connections 1000]\n"
          "               [--idle 0] [--size 64] [--reply SIZE] [--think-us 0] [--warmup 2]\n"
          "               [--seconds 8]\n"
          "\n"
          "Closed-loop load. --connections active connections (crr: concurrent connection\n"
          "slots) each send a --size byte request, wait for the --reply byte reply (default: the\n"
          "same size, an echo), wait --think-us and repeat; rr keeps each connection, crr opens a\n"
          "new one per request and closes it after the reply. --idle more connections are opened\n"
          "first and never used. Prints 'measuring' when the warm-up (seconds) ends, then after\n"
          "--seconds one line:\n"
          "  result requests=<n> seconds=<s> p50_us=<x> p99_us=<y> errors=<n> total_requests=<n>\n"
          "requests, seconds and latencies cover the measured window; errors (connections lost,\n"
          "refused or replies that did not match) and total_requests cover the whole run.\n",
          out);
}

static long parse_long(const char *name, const char *text, long min, long max) {
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || v < min || v > max) {
        die("--%s %s: expected an integer from %ld to %ld", name, text, min, max);
    }
    return v;
}

static double parse_seconds(const char *name, const char *text, double min) {
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (errno != 0 || end == text || *end != '\0' || !(v >= min) || v > MAX_SECONDS) {
        die("--%s %s: expected a number of seconds from %g to %g", name, text, min, MAX_SECONDS);
    }
    return v;
}

static struct options parse_options(int argc, char **argv) {
    struct options o = {"127.0.0.1", 0, 1000, 0, 64, 0, 0, MODE_RR, 2.0, 8.0};
    static const struct option longopts[] = {
        {"host", required_argument, NULL, 'h'},      {"port", required_argument, NULL, 'p'},
        {"mode", required_argument, NULL, 'm'},      {"connections", required_argument, NULL, 'c'},
        {"idle", required_argument, NULL, 'i'},      {"size", required_argument, NULL, 'b'},
        {"reply", required_argument, NULL, 'r'},     {"think-us", required_argument, NULL, 't'},
        {"warmup", required_argument, NULL, 'w'},    {"seconds", required_argument, NULL, 's'},
        {"help", no_argument, NULL, 'H'},            {NULL, 0, NULL, 0},
    };
    int opt;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (opt) {
        case 'h': o.host = optarg; break;
        case 'p': o.port = (int)parse_long("port", optarg, 1, 65535); break;
        case 'm':
            if (strcmp(optarg, "rr") == 0) {
                o.mode = MODE_RR;
            } else if (strcmp(optarg, "crr") == 0) {
                o.mode = MODE_CRR;
            } else {
                die("--mode %s: expected rr or crr", optarg);
            }
            break;
        case 'c': o.connections = parse_long("connections", optarg, 1, MAX_CONNECTIONS); break;
        case 'i': o.idle = parse_long("idle", optarg, 0, MAX_CONNECTIONS); break;
        case 'b': o.size = parse_long("size", optarg, PROTOCOL_HEADER_BYTES, PROTOCOL_MAX_BYTES); break;
        case 'r': o.reply = parse_long("reply", optarg, 1, PROTOCOL_MAX_BYTES); break;
        case 't': o.think_us = parse_long("think-us", optarg, 0, MAX_THINK_US); break;
        case 'w': o.warmup = parse_seconds("warmup", optarg, 0.0); break;
        case 's': o.seconds = parse_seconds("seconds", optarg, 0.001); break;
        case 'H':
            usage(stdout);
            exit(0);
        default:
            usage(stderr);
            die("unknown or incomplete option: %s", argv[optind - 1]);
        }
    }
    if (optind < argc) {
        usage(stderr);
        die("unexpected argument: %s", argv[optind]);
    }
    if (o.port == 0) {
        usage(stderr);
        die("--port is required");
    }
    if (o.reply == 0) {
        o.reply = o.size;
    }
    return o;
}

/* ---- connections ------------------------------------------------------------------------- */

enum state {
    CONNECTING, /* connect in progress */
    SENDING,    /* part of the request sent; waiting for room to send the rest */
    RECEIVING,  /* request sent; reading the reply */
    THINKING,   /* between requests (rr: connection open; crr: closed) */
    IDLE,       /* one of the idle connections */
};

struct conn {
    int fd;            /* -1 while a crr slot has no connection */
    enum state state;
    uint32_t sent;     /* bytes of the request sent */
    uint32_t received; /* bytes of the reply received */
    uint64_t start_ns; /* rr: when the request was started; crr: when the connect began */
    uint64_t seq;      /* requests started on this slot */
    unsigned char *tx; /* the current request (active connections only) */
};

static struct options opt;
static struct sockaddr_in server;
static int spread_sources; /* crr on loopback: bind each connection to the next source address */
static uint32_t next_source;
static int epfd = -1;
static struct conn *conns; /* the idle connections first, then the active ones */
static long active_alive;
static uint64_t errors;
static int measuring;
static uint64_t measured_requests;
static uint64_t total_requests; /* warm-up included */
static unsigned char *requests; /* every active connection's request, one after another */
static unsigned char scratch[PROTOCOL_MAX_BYTES];

/* Active connections waiting out their think time, in the order they become due (all wait the
 * same time, so first in is first due). */
static struct {
    long *slot;
    uint64_t *due;
    long head;
    long count;
} thinking;

static void think(struct conn *c, uint64_t due) {
    long tail = (thinking.head + thinking.count) % opt.connections;
    thinking.slot[tail] = (long)(c - conns);
    thinking.due[tail] = due;
    thinking.count++;
    c->state = THINKING;
}

static int is_active(const struct conn *c) {
    return c - conns >= opt.idle;
}

static void close_fd(struct conn *c) {
    if (close(c->fd) != 0) {
        DIE_ERRNO("close(fd %d)", c->fd);
    }
    c->fd = -1;
}

/* A connection that failed: counted, reported (a few times) and closed. An rr connection is
 * lost for good; a crr slot tries again shortly. */
static void conn_failed(struct conn *c, const char *what, int err, uint64_t now) {
    errors++;
    if (errors <= MAX_ERROR_MESSAGES) {
        fprintf(stderr, "loadgen: connection %ld: %s%s%s\n", (long)(c - conns), what, err ? ": " : "",
                err ? strerror(err) : "");
    }
    if (c->fd >= 0) {
        close_fd(c);
    }
    if (opt.mode == MODE_CRR && is_active(c)) {
        think(c, now + CRR_RETRY_NS + (uint64_t)opt.think_us * 1000u);
        return;
    }
    c->state = IDLE;
    if (is_active(c) && --active_alive == 0) {
        die("every active connection failed (%llu errors)", (unsigned long long)errors);
    }
}

/* A non-blocking socket, registered edge-triggered for everything it will need, connecting.
 * Returns 0, or connect's errno when it failed at once (the socket is then closed). */
static int open_connection(struct conn *c) {
    c->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (c->fd < 0) {
        DIE_ERRNO("socket (connection %ld)", (long)(c - conns));
    }
    int one = 1;
    if (setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) != 0) {
        DIE_ERRNO("setsockopt(TCP_NODELAY)");
    }
    /* Edge-triggered: one registration serves connect, sends and replies, with no epoll_ctl
     * per request, which keeps the generator's own cost down. */
    struct epoll_event ev = {.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET, .data = {.ptr = c}};
    if (epoll_ctl(epfd, EPOLL_CTL_ADD, c->fd, &ev) != 0) {
        DIE_ERRNO("epoll_ctl(ADD, fd %d)", c->fd);
    }
    if (spread_sources && is_active(c)) {
        /* IP_BIND_ADDRESS_NO_PORT: the port is chosen at connect, for the whole 4-tuple. */
        if (setsockopt(c->fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof one) != 0) {
            DIE_ERRNO("setsockopt(IP_BIND_ADDRESS_NO_PORT)");
        }
        struct sockaddr_in source = {.sin_family = AF_INET, .sin_port = 0};
        source.sin_addr.s_addr = htonl(INADDR_LOOPBACK + 1 + next_source);
        next_source = (next_source + 1) % CRR_SOURCE_ADDRESSES;
        if (bind(c->fd, (struct sockaddr *)&source, sizeof source) != 0) {
            DIE_ERRNO("bind to a loopback source address");
        }
    }
    c->state = CONNECTING;
    if (connect(c->fd, (struct sockaddr *)&server, sizeof server) != 0 && errno != EINPROGRESS) {
        int err = errno;
        close_fd(c);
        return err;
    }
    return 0;
}

/* 0 once the connect has succeeded, else its errno. */
static int connect_result(struct conn *c) {
    int err = 0;
    socklen_t len = sizeof err;
    if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0) {
        DIE_ERRNO("getsockopt(SO_ERROR)");
    }
    return err;
}

/* Sends what is left of the request; on a full send buffer the next EPOLLOUT edge resumes. */
static void send_rest(struct conn *c, uint64_t now) {
    while (c->sent < (uint32_t)opt.size) {
        ssize_t n = send(c->fd, c->tx + c->sent, (size_t)opt.size - c->sent, MSG_NOSIGNAL);
        if (n > 0) {
            c->sent += (uint32_t)n;
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            c->state = SENDING;
            return;
        } else {
            conn_failed(c, "send", n < 0 ? errno : 0, now);
            return;
        }
    }
    c->state = RECEIVING;
}

static void send_request(struct conn *c, uint64_t now) {
    c->seq++;
    /* After the header, the request carries its slot and sequence number, so a misplaced
     * reply shows. */
    uint64_t stamp[2] = {(uint64_t)(c - conns), c->seq};
    size_t room = (size_t)opt.size - PROTOCOL_HEADER_BYTES;
    memcpy(c->tx + PROTOCOL_HEADER_BYTES, stamp, sizeof stamp < room ? sizeof stamp : room);
    c->sent = 0;
    c->received = 0;
    if (opt.mode == MODE_RR) {
        c->start_ns = now;
    }
    send_rest(c, now);
}

/* rr: send the next request now; crr: start connecting, the request follows the connect. */
static void begin_request(struct conn *c, uint64_t now) {
    if (opt.mode == MODE_CRR) {
        c->start_ns = now;
        int err = open_connection(c);
        if (err != 0) {
            conn_failed(c, "connect", err, now);
        }
    } else {
        send_request(c, now);
    }
}

static void request_done(struct conn *c, uint64_t now) {
    total_requests++;
    if (measuring) {
        histogram_record(now - c->start_ns);
        measured_requests++;
    }
    if (opt.mode == MODE_CRR) {
        close_fd(c);
    }
    if (opt.think_us > 0) {
        think(c, now + (uint64_t)opt.think_us * 1000u);
    } else {
        begin_request(c, now);
    }
}

/* Reads the reply as far as it has come; checks it; when complete, finishes the request. */
static void receive(struct conn *c, uint64_t now) {
    for (;;) {
        /* Never read past the reply: extra bytes must show up as unexpected data. */
        size_t want = (size_t)opt.reply - c->received;
        ssize_t n = recv(c->fd, scratch, want, 0);
        if (n > 0) {
            if (!protocol_reply_matches(c->tx, (uint32_t)opt.size, c->received, scratch, (size_t)n)) {
                conn_failed(c, "the reply differs from what the request asks for", 0, now);
                return;
            }
            c->received += (uint32_t)n;
            if (c->received == (uint32_t)opt.reply) {
                request_done(c, now_ns());
                return;
            }
        } else if (n == 0) {
            conn_failed(c, "the server closed the connection", 0, now);
            return;
        } else if (errno == EINTR) {
            continue;
        } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
            return;
        } else {
            conn_failed(c, "recv", errno, now);
            return;
        }
    }
}

/* An event on a connection that expects nothing (idle, or thinking on rr). Edge-triggered
 * epoll may report data that was already read, so look before calling it a failure. */
static void check_quiet(struct conn *c, uint64_t now) {
    unsigned char byte;
    ssize_t n = recv(c->fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
    if (n > 0) {
        conn_failed(c, "the server sent bytes nobody asked for", 0, now);
    } else if (n == 0) {
        conn_failed(c, "the server closed the connection", 0, now);
    } else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
        conn_failed(c, "recv", errno, now);
    }
}

static void handle_event(struct conn *c, uint32_t events, uint64_t now) {
    if (c->fd < 0) {
        return;
    }
    switch (c->state) {
    case CONNECTING: {
        if (!(events & (EPOLLOUT | EPOLLERR | EPOLLHUP))) {
            break; /* still connecting */
        }
        int err = connect_result(c);
        if (err != 0) {
            conn_failed(c, "connect", err, now);
        } else {
            send_request(c, now);
        }
        break;
    }
    case SENDING:
        send_rest(c, now);
        if (c->state == RECEIVING && (events & (EPOLLIN | EPOLLRDHUP | EPOLLERR | EPOLLHUP))) {
            receive(c, now);
        }
        break;
    case RECEIVING:
        if (events & (EPOLLIN | EPOLLRDHUP | EPOLLERR | EPOLLHUP)) {
            receive(c, now);
        }
        break;
    case THINKING:
    case IDLE:
        if (events & (EPOLLIN | EPOLLRDHUP | EPOLLERR | EPOLLHUP)) {
            check_quiet(c, now);
        }
        break;
    }
}

/* The time from now until deadline, for epoll_pwait2 (think times are finer than a millisecond). */
static struct timespec until(uint64_t now, uint64_t deadline) {
    uint64_t ns = deadline > now ? deadline - now : 0;
    struct timespec ts = {.tv_sec = (time_t)(ns / 1000000000u), .tv_nsec = (long)(ns % 1000000000u)};
    return ts;
}

static int wait_events(struct epoll_event *events, uint64_t now, uint64_t deadline) {
    struct timespec timeout = until(now, deadline);
    int n = epoll_pwait2(epfd, events, MAX_EVENTS, &timeout, NULL);
    if (n < 0 && errno != EINTR) {
        DIE_ERRNO("epoll_pwait2");
    }
    return n < 0 ? 0 : n;
}

/* Opens connections [first, first + count) at most CONNECT_WAVE at a time; any refusal, or
 * not all up in time, ends the run. They end in state `then`. */
static void establish(long first, long count, enum state then) {
    uint64_t deadline = now_ns() + (uint64_t)(CONNECT_TIMEOUT_S * 1e9);
    long next = first;
    long end = first + count;
    long pending = 0;
    struct epoll_event events[MAX_EVENTS];
    while (next < end || pending > 0) {
        while (next < end && pending < CONNECT_WAVE) {
            int err = open_connection(&conns[next]);
            if (err != 0) {
                die("connect to %s:%d (connection %ld): %s", opt.host, opt.port, next, strerror(err));
            }
            next++;
            pending++;
        }
        uint64_t now = now_ns();
        if (now >= deadline) {
            die("%ld of %ld connections to %s:%d not established after %.0f s", end - next + pending, count,
                opt.host, opt.port, CONNECT_TIMEOUT_S);
        }
        int n = wait_events(events, now, deadline);
        for (int i = 0; i < n; i++) {
            struct conn *c = events[i].data.ptr;
            if (c->state != CONNECTING || !(events[i].events & (EPOLLOUT | EPOLLERR | EPOLLHUP))) {
                continue;
            }
            int err = connect_result(c);
            if (err != 0) {
                die("connect to %s:%d (connection %ld): %s", opt.host, opt.port, (long)(c - conns), strerror(err));
            }
            c->state = then;
            pending--;
        }
    }
}

static void raise_fd_limit(long needed) {
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0) {
        DIE_ERRNO("getrlimit(RLIMIT_NOFILE)");
    }
    if (rl.rlim_cur != rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &rl) != 0) {
            DIE_ERRNO("setrlimit(RLIMIT_NOFILE, %llu)", (unsigned long long)rl.rlim_max);
        }
    }
    if (rl.rlim_cur != RLIM_INFINITY && (rlim_t)needed > rl.rlim_cur) {
        die("%ld connections need about %ld file descriptors but RLIMIT_NOFILE is %llu "
            "(raise the hard limit, e.g. ulimit -Hn)",
            opt.connections + opt.idle, needed, (unsigned long long)rl.rlim_cur);
    }
}

static void print_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void print_line(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int r = vprintf(fmt, ap);
    va_end(ap);
    if (r < 0 || fflush(stdout) != 0) {
        DIE_ERRNO("writing to stdout");
    }
}

static void set_up(void) {
    long total = opt.idle + opt.connections;
    raise_fd_limit(total + 16);
    conns = calloc((size_t)total, sizeof *conns);
    requests = calloc((size_t)opt.connections, (size_t)opt.size);
    thinking.slot = calloc((size_t)opt.connections, sizeof *thinking.slot);
    thinking.due = calloc((size_t)opt.connections, sizeof *thinking.due);
    if (conns == NULL || requests == NULL || thinking.slot == NULL || thinking.due == NULL) {
        die("out of memory for %ld connections", total);
    }
    for (long i = 0; i < total; i++) {
        conns[i].fd = -1;
        conns[i].state = IDLE;
    }
    for (long i = 0; i < opt.connections; i++) {
        struct conn *c = &conns[opt.idle + i];
        c->tx = requests + (size_t)i * (size_t)opt.size;
        for (long j = PROTOCOL_HEADER_BYTES; j < opt.size; j++) {
            c->tx[j] = (unsigned char)('a' + (i + j) % 26);
        }
        put_be32(c->tx, (uint32_t)opt.size);
        put_be32(c->tx + 4, (uint32_t)opt.reply);
    }
    memset(&server, 0, sizeof server);
    server.sin_family = AF_INET;
    server.sin_port = htons((uint16_t)opt.port);
    if (inet_pton(AF_INET, opt.host, &server.sin_addr) != 1) {
        die("--host %s: not an IPv4 address", opt.host);
    }
    spread_sources = opt.mode == MODE_CRR && (ntohl(server.sin_addr.s_addr) >> 24) == 127;
    epfd = epoll_create1(EPOLL_CLOEXEC);
    if (epfd < 0) {
        DIE_ERRNO("epoll_create1");
    }
}

static void tear_down(void) {
    for (long i = 0; i < opt.idle + opt.connections; i++) {
        if (conns[i].fd >= 0) {
            close_fd(&conns[i]);
        }
    }
    if (close(epfd) != 0) {
        DIE_ERRNO("close(epoll fd)");
    }
}

int main(int argc, char **argv) {
    opt = parse_options(argc, argv);
    if (signal(SIGPIPE, SIG_IGN) == SIG_ERR) {
        DIE_ERRNO("signal(SIGPIPE)");
    }
    set_up();

    uint64_t started = now_ns();
    establish(0, opt.idle, IDLE);
    if (opt.mode == MODE_RR) {
        establish(opt.idle, opt.connections, THINKING);
    }
    fprintf(stderr, "loadgen: %ld idle and %ld active connections to %s:%d up in %.3f s\n", opt.idle,
            opt.mode == MODE_RR ? opt.connections : 0, opt.host, opt.port, (double)(now_ns() - started) / 1e9);
    active_alive = opt.connections;

    uint64_t start = now_ns();
    uint64_t warmup_end = start + (uint64_t)(opt.warmup * 1e9);
    uint64_t end = warmup_end + (uint64_t)(opt.seconds * 1e9);
    uint64_t measure_start = 0;
    uint64_t measure_end = 0;
    for (long i = 0; i < opt.connections; i++) {
        begin_request(&conns[opt.idle + i], start);
    }

    struct epoll_event events[MAX_EVENTS];
    for (;;) {
        uint64_t now = now_ns();
        if (!measuring && now >= warmup_end) {
            measuring = 1;
            measure_start = now;
            print_line("measuring\n");
        }
        if (now >= end) {
            measure_end = now;
            break;
        }
        while (thinking.count > 0 && thinking.due[thinking.head] <= now) {
            struct conn *c = &conns[thinking.slot[thinking.head]];
            thinking.head = (thinking.head + 1) % opt.connections;
            thinking.count--;
            begin_request(c, now);
        }
        uint64_t deadline = measuring ? end : warmup_end;
        if (thinking.count > 0 && thinking.due[thinking.head] < deadline) {
            deadline = thinking.due[thinking.head];
        }
        int n = wait_events(events, now, deadline);
        if (n > 0) {
            now = now_ns();
        }
        for (int i = 0; i < n; i++) {
            handle_event(events[i].data.ptr, events[i].events, now);
        }
    }

    double seconds = (double)(measure_end - measure_start) / 1e9;
    print_line("result requests=%llu seconds=%.3f p50_us=%.1f p99_us=%.1f errors=%llu total_requests=%llu\n",
               (unsigned long long)measured_requests, seconds, histogram_quantile(0.50) / 1e3,
               histogram_quantile(0.99) / 1e3, (unsigned long long)errors, (unsigned long long)total_requests);
    tear_down();
    free(thinking.slot);
    free(thinking.due);
    free(requests);
    free(conns);
    return 0;
}
