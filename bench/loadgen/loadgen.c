/*
 * loadgen: a closed-loop TCP request/response load generator on epoll.
 *
 * Opens N connections to an echo server, then on every connection sends a B-byte message,
 * waits until the same B bytes have come back, records the round-trip latency and sends the
 * next message at once. After the warm-up it prints "measuring" on stdout; after the measured
 * window it prints one "result ..." line covering that window only, closes every connection
 * and exits 0. Any failing system call ends it with a message on stderr and exit status 1.
 *
 * Build: gcc -O2 -Wall -Wextra -Werror -o loadgen loadgen.c
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_EVENTS 1024
#define CONNECT_TIMEOUT_S 20.0
#define MAX_CONNECTIONS 1000000
#define MAX_SIZE (1 << 20)
#define MAX_SECONDS 3600.0
#define MAX_ERROR_MESSAGES 10

/* ---- errors ------------------------------------------------------------------------------ */

static void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
static void die(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("loadgen: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

/* A failed system call: the message names the call and errno. */
#define DIE_ERRNO(what, ...) die(what ": %s", ##__VA_ARGS__, strerror(errno))

/* ---- time -------------------------------------------------------------------------------- */

static uint64_t now_ns(void) {
    struct timespec ts;
    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0) {
        DIE_ERRNO("clock_gettime(CLOCK_MONOTONIC)");
    }
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Milliseconds from now until deadline, rounded up, for epoll_wait. */
static int ms_until(uint64_t now, uint64_t deadline) {
    if (deadline <= now) {
        return 0;
    }
    uint64_t ms = (deadline - now + 999999u) / 1000000u;
    return ms > INT_MAX ? INT_MAX : (int)ms;
}

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

struct options {
    const char *host;
    int port;
    long connections;
    long size;
    double warmup;
    double seconds;
};

static void usage(FILE *out) {
    fputs("usage: loadgen --port P [--host 127.0.0.1] [--connections 1000] [--size 64]\n"
          "               [--warmup 2] [--seconds 8]\n"
          "\n"
          "Closed-loop TCP echo load: every connection sends --size bytes, waits for the same\n"
          "bytes back, records the round trip and repeats. Prints 'measuring' when the warm-up\n"
          "(seconds) ends, then after --seconds one line:\n"
          "  result requests=<n> seconds=<s> p50_us=<x> p99_us=<y> errors=<n>\n"
          "requests, seconds and latencies cover the measured window; errors (connections lost\n"
          "or echoes that did not match) cover the whole run.\n",
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
    struct options o = {"127.0.0.1", 0, 1000, 64, 2.0, 8.0};
    static const struct option longopts[] = {
        {"host", required_argument, NULL, 'h'},
        {"port", required_argument, NULL, 'p'},
        {"connections", required_argument, NULL, 'c'},
        {"size", required_argument, NULL, 'b'},
        {"warmup", required_argument, NULL, 'w'},
        {"seconds", required_argument, NULL, 's'},
        {"help", no_argument, NULL, 'H'},
        {NULL, 0, NULL, 0},
    };
    int opt;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (opt) {
        case 'h': o.host = optarg; break;
        case 'p': o.port = (int)parse_long("port", optarg, 1, 65535); break;
        case 'c': o.connections = parse_long("connections", optarg, 1, MAX_CONNECTIONS); break;
        case 'b': o.size = parse_long("size", optarg, 1, MAX_SIZE); break;
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
    return o;
}

/* ---- connections ------------------------------------------------------------------------- */

struct conn {
    int fd;              /* -1 once closed */
    int want_out;        /* registered for EPOLLOUT: a send is incomplete */
    uint32_t sent;       /* bytes of the current message sent */
    uint32_t received;   /* bytes of the echo received */
    uint64_t start_ns;   /* when the current message was started */
    uint64_t seq;        /* messages started on this connection */
    unsigned char *tx;   /* the current message */
    unsigned char *rx;   /* the echo being received */
};

static struct options opt;
static int epfd = -1;
static struct conn *conns;
static long alive;
static uint64_t errors;
static int measuring;
static uint64_t measured_requests;

static void set_events(struct conn *c, uint32_t events) {
    struct epoll_event ev = {.events = events, .data = {.ptr = c}};
    if (epoll_ctl(epfd, EPOLL_CTL_MOD, c->fd, &ev) != 0) {
        DIE_ERRNO("epoll_ctl(MOD, fd %d)", c->fd);
    }
}

/* A connection that failed while running: counted, reported (a few times) and closed. */
static void conn_failed(struct conn *c, const char *what, int err) {
    errors++;
    if (errors <= MAX_ERROR_MESSAGES) {
        fprintf(stderr, "loadgen: connection %ld: %s%s%s\n", (long)(c - conns), what,
                err ? ": " : "", err ? strerror(err) : "");
    }
    if (close(c->fd) != 0) {
        DIE_ERRNO("close(fd %d)", c->fd);
    }
    c->fd = -1;
    if (--alive == 0) {
        die("every connection failed (%llu errors)", (unsigned long long)errors);
    }
}

/* Sends what is left of the current message; returns 0 if the connection failed. */
static int send_rest(struct conn *c) {
    while (c->sent < (uint32_t)opt.size) {
        ssize_t n = send(c->fd, c->tx + c->sent, (size_t)opt.size - c->sent, MSG_NOSIGNAL);
        if (n > 0) {
            c->sent += (uint32_t)n;
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            if (!c->want_out) {
                set_events(c, EPOLLIN | EPOLLOUT);
                c->want_out = 1;
            }
            return 1;
        } else {
            conn_failed(c, "send", n < 0 ? errno : 0);
            return 0;
        }
    }
    if (c->want_out) {
        set_events(c, EPOLLIN);
        c->want_out = 0;
    }
    return 1;
}

static void start_message(struct conn *c, uint64_t now) {
    c->seq++;
    /* The message carries its connection and sequence number, so a misplaced echo shows. */
    uint64_t stamp[2] = {(uint64_t)(c - conns), c->seq};
    size_t n = sizeof stamp < (size_t)opt.size ? sizeof stamp : (size_t)opt.size;
    memcpy(c->tx, stamp, n);
    c->sent = 0;
    c->received = 0;
    c->start_ns = now;
    send_rest(c);
}

/* Reads the echo; when it is complete, records it and starts the next message. */
static void receive(struct conn *c) {
    for (;;) {
        ssize_t n = recv(c->fd, c->rx + c->received, (size_t)opt.size - c->received, 0);
        if (n > 0) {
            c->received += (uint32_t)n;
            if (c->received == (uint32_t)opt.size) {
                break;
            }
        } else if (n == 0) {
            conn_failed(c, "the server closed the connection", 0);
            return;
        } else if (errno == EINTR) {
            continue;
        } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
            return;
        } else {
            conn_failed(c, "recv", errno);
            return;
        }
    }
    if (c->received > c->sent || memcmp(c->rx, c->tx, (size_t)opt.size) != 0) {
        conn_failed(c, "the echo differs from the message sent", 0);
        return;
    }
    uint64_t now = now_ns();
    if (measuring) {
        histogram_record(now - c->start_ns);
        measured_requests++;
    }
    start_message(c, now);
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
            opt.connections, needed, (unsigned long long)rl.rlim_cur);
    }
}

/* Opens every connection; fails if any is refused or they are not all up in time. */
static void connect_all(void) {
    struct sockaddr_in addr;
    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_port = htons((uint16_t)opt.port);
    if (inet_pton(AF_INET, opt.host, &addr.sin_addr) != 1) {
        die("--host %s: not an IPv4 address", opt.host);
    }
    uint64_t started = now_ns();
    uint64_t deadline = started + (uint64_t)(CONNECT_TIMEOUT_S * 1e9);
    long pending = 0;
    for (long i = 0; i < opt.connections; i++) {
        struct conn *c = &conns[i];
        c->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (c->fd < 0) {
            DIE_ERRNO("socket (connection %ld)", i);
        }
        int one = 1;
        if (setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) != 0) {
            DIE_ERRNO("setsockopt(TCP_NODELAY)");
        }
        struct epoll_event ev = {.events = EPOLLOUT, .data = {.ptr = c}};
        if (epoll_ctl(epfd, EPOLL_CTL_ADD, c->fd, &ev) != 0) {
            DIE_ERRNO("epoll_ctl(ADD, fd %d)", c->fd);
        }
        if (connect(c->fd, (struct sockaddr *)&addr, sizeof addr) != 0 && errno != EINPROGRESS) {
            DIE_ERRNO("connect to %s:%d (connection %ld)", opt.host, opt.port, i);
        }
        c->want_out = 1; /* here: connect not yet confirmed */
        pending++;
    }
    struct epoll_event events[MAX_EVENTS];
    while (pending > 0) {
        uint64_t now = now_ns();
        if (now >= deadline) {
            die("%ld of %ld connections to %s:%d not established after %.0f s", pending,
                opt.connections, opt.host, opt.port, CONNECT_TIMEOUT_S);
        }
        int n = epoll_wait(epfd, events, MAX_EVENTS, ms_until(now, deadline));
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            DIE_ERRNO("epoll_wait");
        }
        for (int i = 0; i < n; i++) {
            struct conn *c = events[i].data.ptr;
            if (!c->want_out) {
                continue;
            }
            int err = 0;
            socklen_t len = sizeof err;
            if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0) {
                DIE_ERRNO("getsockopt(SO_ERROR)");
            }
            if (err != 0) {
                die("connect to %s:%d (connection %ld): %s", opt.host, opt.port,
                    (long)(c - conns), strerror(err));
            }
            set_events(c, EPOLLIN);
            c->want_out = 0;
            pending--;
        }
    }
    fprintf(stderr, "loadgen: %ld connections to %s:%d up in %.3f s\n", opt.connections, opt.host,
            opt.port, (double)(now_ns() - started) / 1e9);
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

int main(int argc, char **argv) {
    opt = parse_options(argc, argv);
    if (signal(SIGPIPE, SIG_IGN) == SIG_ERR) {
        DIE_ERRNO("signal(SIGPIPE)");
    }
    raise_fd_limit(opt.connections + 16);

    conns = calloc((size_t)opt.connections, sizeof *conns);
    unsigned char *buffers = calloc((size_t)opt.connections, 2 * (size_t)opt.size);
    if (conns == NULL || buffers == NULL) {
        die("out of memory for %ld connections of %ld bytes", opt.connections, opt.size);
    }
    for (long i = 0; i < opt.connections; i++) {
        conns[i].tx = buffers + (size_t)i * 2 * (size_t)opt.size;
        conns[i].rx = conns[i].tx + opt.size;
        for (long j = 0; j < opt.size; j++) {
            conns[i].tx[j] = (unsigned char)('a' + (i + j) % 26);
        }
    }

    epfd = epoll_create1(EPOLL_CLOEXEC);
    if (epfd < 0) {
        DIE_ERRNO("epoll_create1");
    }
    connect_all();
    alive = opt.connections;

    uint64_t start = now_ns();
    uint64_t warmup_end = start + (uint64_t)(opt.warmup * 1e9);
    uint64_t end = warmup_end + (uint64_t)(opt.seconds * 1e9);
    uint64_t measure_start = 0, measure_end = 0;
    for (long i = 0; i < opt.connections; i++) {
        start_message(&conns[i], start);
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
        int n = epoll_wait(epfd, events, MAX_EVENTS, ms_until(now, measuring ? end : warmup_end));
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            DIE_ERRNO("epoll_wait");
        }
        for (int i = 0; i < n; i++) {
            struct conn *c = events[i].data.ptr;
            uint32_t ev = events[i].events;
            if (c->fd < 0) {
                continue;
            }
            if (ev & EPOLLOUT) {
                if (!send_rest(c)) {
                    continue;
                }
            }
            if (ev & (EPOLLIN | EPOLLERR | EPOLLHUP)) {
                /* recv reports an error or end of stream itself. */
                receive(c);
            }
        }
    }

    double seconds = (double)(measure_end - measure_start) / 1e9;
    print_line("result requests=%llu seconds=%.3f p50_us=%.1f p99_us=%.1f errors=%llu\n",
               (unsigned long long)measured_requests, seconds, histogram_quantile(0.50) / 1e3,
               histogram_quantile(0.99) / 1e3, (unsigned long long)errors);

    for (long i = 0; i < opt.connections; i++) {
        if (conns[i].fd >= 0 && close(conns[i].fd) != 0) {
            DIE_ERRNO("close(fd %d)", conns[i].fd);
        }
    }
    if (close(epfd) != 0) {
        DIE_ERRNO("close(epoll fd)");
    }
    free(buffers);
    free(conns);
    return 0;
}
