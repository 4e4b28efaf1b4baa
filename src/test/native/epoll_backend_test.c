/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

/*
 * What only the epoll backend does (linux/epoll_backend.h): the system calls a batch costs, with
 * its io_uring ring (one io_uring_enter per chunk from NS_EPOLL_RING_MIN_CHANGES changes on) and
 * without (one epoll_ctl per change); ADD of a present fd turned into MOD and MOD of an absent one
 * into ADD, on either path; chunks, and the order of two changes of one fd; an io_uring_enter
 * that fails, is interrupted or is cut short; and the private epoll_event array that bounds a
 * poll. What every backend does is tested by backend_contract_test.c. Prints "N passed,
 * M failed" (tests, not checks) and exits non-zero on failure.
 *
 * A machine where the backend gets no ring (io_uring refused, or too old) fails this program with
 * a message saying so, unless NATIVESELECTOR_NO_IO_URING=1: then every test expects the path
 * without the ring, as CMakeLists.txt runs it with io_uring refused (epoll_backend_denied).
 */
#include "epoll_backend.h"
#include "backend_test_support.h"
#include "uring_syscall_seam.h"

#include <sys/mman.h>
#include <unistd.h>

#define K NS_EPOLL_RING_MIN_CHANGES
#define RING NS_EPOLL_RING_ENTRIES

/* Whether the backend has its ring here (main decides, once). */
static int has_ring;

/*
 * ---- seams ----
 * This program is linked with --wrap for syscall and mmap (CMakeLists.txt): the ring's calls come
 * here first, so that the test can see the ring the backend set up last (its offsets, its
 * mappings), make the Nth io_uring_enter fail or stop short, and have the kernel hand every entry
 * to a worker thread (IOSQE_ASYNC), as it does when the epoll's mutex is busy.
 */

/* What the kernel told io_uring_setup's caller, and where the ring is mapped. */
static struct {
    int fd;
    struct io_uring_params params;
    char *rings;                /* IORING_OFF_SQ_RING: both rings (IORING_FEAT_SINGLE_MMAP) */
    struct io_uring_sqe *sqes;  /* IORING_OFF_SQES */
} last_ring = { .fd = -1 };

/* What one io_uring_enter does instead of entering as asked. */
enum enter_fault {
    ENTER,           /* enters as asked */
    FAIL,            /* fails with `err`, taking nothing */
    TAKE_SOME,       /* takes only the first `takes` entries and returns, as a kernel that stopped */
    SUBMIT_NO_WAIT,  /* takes every entry and returns at once, as a kernel whose wait a signal cut */
    ANSWER_FIRST,    /* enters as asked, then the first completion says `err` instead: ECANCELED
                        for work io-wq cancelled, having no worker to run it (a pids limit
                        reached), or another of io_uring's own answers */
};

#define MAX_ENTERS 8
static struct {
    enum enter_fault fault;
    int err;
    unsigned takes;
} plan[MAX_ENTERS + 1]; /* by number, from 1, since the last reset_seams */

/* The io_uring_enter calls since reset_seams, as the backend asked for them. */
static int enters;
static struct enter_args {
    unsigned to_submit, min_complete, flags;
} asked[MAX_ENTERS + 1];

/* Sets IOSQE_ASYNC on every submission entry before each io_uring_enter. */
static int force_async;

static void reset_seams(void)
{
    memset(plan, 0, sizeof(plan));
    memset(asked, 0, sizeof(asked));
    enters = 0;
    force_async = 0;
}

static unsigned ring_word(unsigned offset);

/* Makes the first completion in the last ring's completion queue say -err. */
static void answer_first_completion(int err)
{
    const struct io_uring_params *p = &last_ring.params;
    unsigned head = ring_word(p->cq_off.head);
    if (head != ring_word(p->cq_off.tail)) {
        struct io_uring_cqe *cqes = (struct io_uring_cqe *)(last_ring.rings + p->cq_off.cqes);
        cqes[head & ring_word(p->cq_off.ring_mask)].res = -err;
    }
}

/* io_uring_enter as the plan says (uring_syscall_seam.h). */
static long on_io_uring_enter(int fd, unsigned to_submit, unsigned min_complete, unsigned flags, void *arg,
                              size_t size)
{
    enters++;
    if (enters <= MAX_ENTERS)
        asked[enters] = (struct enter_args){ to_submit, min_complete, flags };
    if (force_async && last_ring.sqes != NULL) {
        for (unsigned i = 0; i < last_ring.params.sq_entries; i++)
            last_ring.sqes[i].flags |= IOSQE_ASYNC;
    }
    enum enter_fault fault = enters <= MAX_ENTERS ? plan[enters].fault : ENTER;
    switch (fault) {
    case FAIL:
        errno = plan[enters].err;
        return -1;
    case TAKE_SOME:
        return __real_syscall(__NR_io_uring_enter, fd, plan[enters].takes, 0u, 0u, NULL, (size_t)0);
    case SUBMIT_NO_WAIT:
        return __real_syscall(__NR_io_uring_enter, fd, to_submit, 0u, 0u, NULL, (size_t)0);
    case ANSWER_FIRST: {
        long result = __real_syscall(__NR_io_uring_enter, fd, to_submit, min_complete, flags, arg, size);
        answer_first_completion(plan[enters].err);
        return result;
    }
    default:
        return __real_syscall(__NR_io_uring_enter, fd, to_submit, min_complete, flags, arg, size);
    }
}

/* io_uring_setup: what the kernel tells the caller is what the test needs to read the ring. */
static long on_io_uring_setup(unsigned entries, struct io_uring_params *params)
{
    long result = __real_syscall(__NR_io_uring_setup, entries, params);
    if (result >= 0) {
        last_ring.fd = (int)result;
        last_ring.params = *params;
        last_ring.rings = NULL;
        last_ring.sqes = NULL;
    }
    return result;
}

void *__real_mmap(void *address, size_t length, int prot, int flags, int fd, off_t offset);
void *__wrap_mmap(void *address, size_t length, int prot, int flags, int fd, off_t offset);
void *__wrap_mmap(void *address, size_t length, int prot, int flags, int fd, off_t offset)
{
    void *mapped = __real_mmap(address, length, prot, flags, fd, offset);
    if (mapped != MAP_FAILED && fd == last_ring.fd) {
        if (offset == (off_t)IORING_OFF_SQ_RING)
            last_ring.rings = mapped;
        else if (offset == (off_t)IORING_OFF_SQES)
            last_ring.sqes = mapped;
    }
    return mapped;
}

static unsigned ring_word(unsigned offset)
{
    return __atomic_load_n((unsigned *)(last_ring.rings + offset), __ATOMIC_ACQUIRE);
}

/* Whether the last ring holds no entry to submit and no completion to read. */
static int ring_idle(void)
{
    const struct io_uring_params *p = &last_ring.params;
    return ring_word(p->sq_off.head) == ring_word(p->sq_off.tail)
           && ring_word(p->cq_off.head) == ring_word(p->cq_off.tail);
}

/* After an apply: nothing left in the ring, nor arriving late (a completion not waited for). */
static void expect_ring_idle(void)
{
    if (!has_ring)
        return;
    CHECK(ring_idle());
    sleep_ms(QUIET_WAIT_MS);
    CHECK(ring_idle());
}

/* ---- fds and batches ---- */

#define MAX_PAIRS 160

static int pairs[MAX_PAIRS][2];

static void make_pairs(int n)
{
    for (int i = 0; i < n; i++)
        make_pair(pairs[i]);
}

static void close_pairs(int n)
{
    for (int i = 0; i < n; i++)
        close_pair(pairs[i]);
}

static uint64_t token_of(int i)
{
    return (UINT64_C(1) << 32) | (uint64_t)i;
}

/* Opens the backend, which has its ring when this machine gives it one (has_ring). */
static struct ns_backend *open_epoll(int capacity)
{
    struct ns_backend *ep = open_backend(&ns_epoll_ops, capacity);
    CHECK((ns_epoll_ops.ring_status(ep) == 0) == has_ring);
    return ep;
}

/* Applies changes[0..n), expecting every error to be 0 and these system calls. */
static void apply_expecting(struct ns_backend *ep, struct ns_change *changes, int n, int calls)
{
    int got = ns_epoll_ops.apply(ep, changes, n, 1);
    CHECK(got == calls);
    if (got != calls)
        fprintf(stderr, "  %d changes took %d system calls, expected %d\n", n, got, calls);
    for (int i = 0; i < n; i++) {
        CHECK(changes[i].error == 0);
        if (changes[i].error != 0)
            fprintf(stderr, "  change %d (op %d, fd %d): %s\n", i, changes[i].op, changes[i].fd,
                    strerror(changes[i].error));
    }
    expect_ring_idle();
}

/* ADD (or another op) of pairs[from..from+n)[0] for IN, token_of(i), into changes. */
static void batch_of(struct ns_change *changes, int op, int from, int n)
{
    for (int i = 0; i < n; i++)
        changes[i] = change_of(op, pairs[from + i][0], NS_IN, token_of(from + i));
}

/* With a byte waiting on pairs[0..n)[0], expects exactly the tokens of the registered ones. */
static void expect_registered(struct ns_backend *ep, int n, const int *registered)
{
    for (int i = 0; i < n; i++)
        put_byte(pairs[i][1]);
    struct ns_ready ready[MAX_PAIRS + 1];
    int got = poll_records(ep, ready, MAX_PAIRS + 1, READY_WAIT_MS, NULL);
    int expected = 0;
    for (int i = 0; i < n; i++) {
        expected += registered[i];
        const struct ns_ready *r = find_token(ready, got, token_of(i));
        CHECK((r != NULL) == registered[i]);
        if ((r != NULL) != registered[i])
            fprintf(stderr, "  fd of pair %d: %s\n", i, registered[i] ? "not reported" : "reported");
    }
    CHECK(got == expected);
    for (int i = 0; i < n; i++)
        drain_socket(pairs[i][0]);
}

static void expect_all_registered(struct ns_backend *ep, int n)
{
    int registered[MAX_PAIRS];
    for (int i = 0; i < n; i++)
        registered[i] = 1;
    expect_registered(ep, n, registered);
}

/* The system calls of a chunk of n changes on distinct fds. */
static int chunk_calls(int n)
{
    return has_ring && n >= K ? 1 : n;
}

/* The system calls of a batch of n changes on distinct fds: a chunk per RING changes. */
static int batch_calls(int n)
{
    return n < K ? n : n / RING * chunk_calls(RING) + chunk_calls(n % RING);
}

/* ---- below NS_EPOLL_RING_MIN_CHANGES: epoll_ctl, ring or not ---- */

/* A change expected to take exactly `calls` epoll_ctl calls and end with `error`. */
static void expect_calls(struct ns_backend *ep, int op, int fd, uint32_t events, uint64_t token, int calls,
                         int error)
{
    int got = -1;
    CHECK(apply1(ep, op, fd, events, token, 1, &got) == calls);
    CHECK(got == error);
}

static void test_one_epoll_ctl_per_change(void)
{
    struct ns_backend *ep = open_epoll(8);
    int sv[2];
    make_pair(sv);
    expect_calls(ep, NS_OP_ADD, sv[0], NS_IN, TOKEN_A, 1, 0);
    put_byte(sv[1]);
    expect_calls(ep, NS_OP_MOD, sv[0], NS_OUT, TOKEN_B, 1, 0);
    expect_one(ep, TOKEN_B, NS_OUT); /* the token is replaced with the events */
    expect_calls(ep, NS_OP_DEL, sv[0], 0, TOKEN_B, 1, 0);
    expect_none(ep);
    expect_calls(ep, NS_OP_DEL, sv[0], 0, TOKEN_B, 1, 0);        /* ENOENT, taken as done */
    expect_calls(ep, NS_OP_DEL, closed_fd(), 0, TOKEN_B, 1, 0);  /* EBADF, taken as done */
    expect_calls(ep, NS_OP_ADD, closed_fd(), NS_IN, TOKEN_A, 1, EBADF);
    expect_calls(ep, 0, sv[0], NS_IN, TOKEN_A, 0, EINVAL); /* refused before any call */
    expect_calls(ep, 99, sv[0], NS_IN, TOKEN_A, 0, EINVAL);
    struct ns_change batch[3] = {
        change_of(NS_OP_ADD, sv[0], NS_IN, TOKEN_A),
        change_of(NS_OP_ADD, closed_fd(), NS_IN, TOKEN_B),
        change_of(NS_OP_ADD, sv[1], NS_IN, TOKEN_C),
    };
    CHECK(ns_epoll_ops.apply(ep, batch, 3, 1) == 3);
    CHECK(batch[0].error == 0 && batch[1].error == EBADF && batch[2].error == 0);
    close_pair(sv);
    ns_epoll_ops.close(ep);
}

static void test_add_present_becomes_mod(void)
{
    struct ns_backend *ep = open_epoll(8);
    int sv[2];
    make_pair(sv);
    expect_calls(ep, NS_OP_ADD, sv[0], NS_IN, TOKEN_A, 1, 0);
    expect_calls(ep, NS_OP_ADD, sv[0], NS_OUT, TOKEN_B, 2, 0); /* EEXIST, then MOD */
    expect_one(ep, TOKEN_B, NS_OUT);
    close_pair(sv);
    ns_epoll_ops.close(ep);
}

static void test_mod_absent_becomes_add(void)
{
    struct ns_backend *ep = open_epoll(8);
    int sv[2];
    make_pair(sv);
    put_byte(sv[1]);
    expect_calls(ep, NS_OP_MOD, sv[0], NS_IN, TOKEN_A, 2, 0); /* ENOENT, then ADD */
    expect_one(ep, TOKEN_A, NS_IN);
    close_pair(sv);
    ns_epoll_ops.close(ep);
}

/* One change short of the ring's threshold: one epoll_ctl each, the ring untouched. */
static void test_batch_below_threshold_is_one_epoll_ctl_each(void)
{
    struct ns_backend *ep = open_epoll(MAX_PAIRS + 1);
    struct ns_change changes[K - 1];
    make_pairs(K - 1);
    batch_of(changes, NS_OP_ADD, 0, K - 1);
    reset_seams();
    apply_expecting(ep, changes, K - 1, K - 1);
    CHECK(enters == 0);
    expect_all_registered(ep, K - 1);
    close_pairs(K - 1);
    ns_epoll_ops.close(ep);
}

/* ---- from NS_EPOLL_RING_MIN_CHANGES on: one io_uring_enter per chunk ---- */

static void test_batch_at_threshold_is_one_enter(void)
{
    struct ns_backend *ep = open_epoll(MAX_PAIRS + 1);
    struct ns_change changes[RING];
    make_pairs(RING);
    for (int n = K; n <= RING; n *= 2) {
        batch_of(changes, NS_OP_ADD, 0, n);
        reset_seams();
        apply_expecting(ep, changes, n, chunk_calls(n));
        CHECK(enters == (has_ring ? 1 : 0));
        if (has_ring) /* everything submitted, every completion awaited, in one call */
            CHECK(asked[1].to_submit == (unsigned)n && asked[1].min_complete == (unsigned)n
                  && asked[1].flags == IORING_ENTER_GETEVENTS);
        expect_all_registered(ep, n);
        batch_of(changes, NS_OP_DEL, 0, n);
        apply_expecting(ep, changes, n, chunk_calls(n));
        expect_none(ep);
    }
    close_pairs(RING);
    ns_epoll_ops.close(ep);
}

/* Opened with NS_OPEN_WITHOUT_RING, it sets up no ring and a full batch is one epoll_ctl each. */
static void test_opened_without_ring_never_enters(void)
{
    reset_seams();
    last_ring.fd = -1; /* io_uring_setup would set it */
    struct ns_backend *ep = NULL;
    CHECK(ns_epoll_ops.open(MAX_PAIRS + 1, NS_OPEN_WITHOUT_RING, &ep) == 0);
    if (ep == NULL)
        return;
    CHECK(ns_epoll_ops.ring_status(ep) == NS_RING_OFF);
    CHECK(last_ring.fd == -1);
    struct ns_change changes[RING];
    make_pairs(RING);
    batch_of(changes, NS_OP_ADD, 0, RING);
    CHECK(ns_epoll_ops.apply(ep, changes, RING, 1) == RING);
    expect_all_registered(ep, RING);
    batch_of(changes, NS_OP_DEL, 0, RING);
    CHECK(ns_epoll_ops.apply(ep, changes, RING, 1) == RING);
    for (int i = 0; i < RING; i++)
        CHECK(changes[i].error == 0);
    CHECK(enters == 0);
    expect_none(ep);
    close_pairs(RING);
    ns_epoll_ops.close(ep);
}

/*
 * Through the ring: ADD of a present fd redone as MOD, MOD of an absent one as ADD (one epoll_ctl
 * each on top of the io_uring_enter), DEL of an absent and of a closed fd taken as done, ADD of a
 * closed fd refused with EBADF, and an unknown op refused without an entry.
 */
static void test_ring_answers_settled_as_epoll_ctl_would(void)
{
    struct ns_backend *ep = open_epoll(MAX_PAIRS + 1);
    enum { N = K + 4 };
    make_pairs(N);
    struct ns_change first = change_of(NS_OP_ADD, pairs[0][0], NS_IN, token_of(0));
    apply_expecting(ep, &first, 1, 1);
    struct ns_change changes[N];
    batch_of(changes, NS_OP_ADD, 0, N);
    changes[0] = change_of(NS_OP_ADD, pairs[0][0], NS_OUT, token_of(0)); /* present: EEXIST */
    changes[1] = change_of(NS_OP_MOD, pairs[1][0], NS_IN, token_of(1));  /* absent: ENOENT */
    changes[2] = change_of(NS_OP_DEL, pairs[2][0], 0, token_of(2));      /* absent: ENOENT */
    changes[3] = change_of(NS_OP_DEL, closed_fd(), 0, token_of(3));      /* closed: EBADF */
    changes[4] = change_of(NS_OP_ADD, 1 << 30, NS_IN, token_of(4));      /* never open: EBADF */
    changes[5] = change_of(0, pairs[5][0], NS_IN, token_of(5));          /* no such op */
    int calls = ns_epoll_ops.apply(ep, changes, N, 1);
    /* N - 1 entries; each redo is one epoll_ctl more */
    CHECK(calls == (has_ring ? 1 + 2 : N - 1 + 2));
    for (int i = 0; i < N; i++)
        CHECK(changes[i].error == (i == 4 ? EBADF : i == 5 ? EINVAL : 0));
    expect_ring_idle();
    int registered[N];
    for (int i = 0; i < N; i++)
        registered[i] = i != 2 && i != 3 && i != 4 && i != 5;
    /* pair 0 watched for OUT now: reported as writable whether or not a byte waits */
    expect_registered(ep, N, registered);
    close_pairs(N);
    ns_epoll_ops.close(ep);
}

/* More changes than the ring has entries: a chunk of RING per io_uring_enter; a last chunk
   shorter than the threshold goes by epoll_ctl. */
static void test_batch_larger_than_the_ring(void)
{
    struct ns_backend *ep = open_epoll(MAX_PAIRS + 1);
    static const int sizes[] = { 2 * RING + K + 2, 2 * RING + K - 1 };
    struct ns_change changes[MAX_PAIRS];
    make_pairs(MAX_PAIRS);
    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
        int n = sizes[s];
        int calls = batch_calls(n);
        batch_of(changes, NS_OP_ADD, 0, n);
        reset_seams();
        apply_expecting(ep, changes, n, calls);
        expect_all_registered(ep, n);
        batch_of(changes, NS_OP_DEL, 0, n);
        apply_expecting(ep, changes, n, calls);
        expect_none(ep);
    }
    close_pairs(MAX_PAIRS);
    ns_epoll_ops.close(ep);
}

/*
 * A batch holding one fd twice: ADD then DEL leaves it unwatched, DEL then ADD watched, and an
 * ADD redone as MOD comes before the DEL of its fd that follows. The second change of the fd
 * starts a new chunk; each chunk here is long enough for the ring.
 */
static void apply_twice_one_fd(struct ns_backend *ep, int punt)
{
    enum { N = 2 * K };
    struct ns_change changes[N + 1];
    int registered[N];
    /* ADD pairs 0..K-1, then DEL pair 0 and ADD pairs K..N-1: pair 0 ends unwatched */
    batch_of(changes, NS_OP_ADD, 0, K);
    changes[K] = change_of(NS_OP_DEL, pairs[0][0], 0, token_of(0));
    batch_of(changes + K + 1, NS_OP_ADD, K, N - K);
    reset_seams();
    force_async = punt;
    apply_expecting(ep, changes, N + 1, chunk_calls(K) + chunk_calls(K + 1));
    for (int i = 0; i < N; i++)
        registered[i] = i != 0;
    expect_registered(ep, N, registered);
    /* DEL pair 1 (and MOD pairs 2..K), then ADD pair 1 anew (and MOD pairs K+1..N-1) */
    batch_of(changes, NS_OP_MOD, 1, K);
    changes[0] = change_of(NS_OP_DEL, pairs[1][0], 0, token_of(1));
    changes[K] = change_of(NS_OP_ADD, pairs[1][0], NS_IN, token_of(1));
    batch_of(changes + K + 1, NS_OP_MOD, K + 1, N - K - 1);
    force_async = punt;
    apply_expecting(ep, changes, N, 2 * chunk_calls(K));
    expect_registered(ep, N, registered);
    /* ADD pair 1 again (EEXIST, redone as MOD), then DEL it: it ends unwatched */
    batch_of(changes, NS_OP_MOD, 1, K);
    changes[0] = change_of(NS_OP_ADD, pairs[1][0], NS_IN, token_of(1));
    changes[K] = change_of(NS_OP_DEL, pairs[1][0], 0, token_of(1));
    batch_of(changes + K + 1, NS_OP_MOD, K + 1, N - K - 1);
    force_async = punt;
    apply_expecting(ep, changes, N, 2 * chunk_calls(K) + 1); /* the redo: one epoll_ctl */
    registered[1] = 0;
    expect_registered(ep, N, registered);
    /* and back as it began: pairs 1..N-1 watched */
    struct ns_change again = change_of(NS_OP_ADD, pairs[1][0], NS_IN, token_of(1));
    apply_expecting(ep, &again, 1, 1);
}

static void test_one_fd_twice_keeps_its_order(void)
{
    struct ns_backend *ep = open_epoll(MAX_PAIRS + 1);
    make_pairs(2 * K);
    apply_twice_one_fd(ep, 0);
    close_pairs(2 * K);
    ns_epoll_ops.close(ep);
}

/* The same with every entry handed to a worker thread (IOSQE_ASYNC), where entries of one chunk
   may complete in any order, a few times over. */
static void test_one_fd_twice_keeps_its_order_when_entries_are_punted(void)
{
    struct ns_backend *ep = open_epoll(MAX_PAIRS + 1);
    make_pairs(2 * K);
    for (int round = 0; round < 10; round++) {
        struct ns_change reset[2 * K];
        batch_of(reset, NS_OP_DEL, 0, 2 * K);
        CHECK(ns_epoll_ops.apply(ep, reset, 2 * K, 1) >= 0);
        apply_twice_one_fd(ep, 1);
    }
    close_pairs(2 * K);
    ns_epoll_ops.close(ep);
}

/* ---- io_uring_enter failing ---- */

/* The io_uring_enter calls of apply_with_faults' faulty apply, as `enters` and `asked` had them. */
static int faulty_enters;
static struct enter_args faulty_asked[MAX_ENTERS + 1];

/* What the io_uring_enter numbered `at` does. */
struct fault {
    int at;
    enum enter_fault fault;
    int err;
    unsigned takes;
};

/*
 * Applies n ADDs (pairs 0..n-1) with one io_uring_enter faulty as `f` says, expecting `calls`
 * system calls, every change applied and nothing left in the ring; then DELs them all.
 */
static void apply_with_faults(int n, int calls, struct fault f)
{
    struct ns_backend *ep = open_epoll(MAX_PAIRS + 1);
    struct ns_change changes[MAX_PAIRS];
    make_pairs(n);
    batch_of(changes, NS_OP_ADD, 0, n);
    reset_seams();
    plan[f.at].fault = f.fault;
    plan[f.at].err = f.err;
    plan[f.at].takes = f.takes;
    apply_expecting(ep, changes, n, calls);
    faulty_enters = enters;
    memcpy(faulty_asked, asked, sizeof(asked));
    expect_all_registered(ep, n);
    reset_seams();
    batch_of(changes, NS_OP_DEL, 0, n);
    apply_expecting(ep, changes, n, batch_calls(n));
    close_pairs(n);
    ns_epoll_ops.close(ep);
}

/* Interrupted before it took anything: entered again, the same entries. */
static void test_enter_interrupted_is_entered_again(void)
{
    if (!has_ring)
        return;
    apply_with_faults(K, 2, (struct fault){ .at = 1, .fault = FAIL, .err = EINTR });
    CHECK(faulty_asked[2].to_submit == K && faulty_asked[2].min_complete == K);
}

/* Refused, nothing taken: the chunk goes by epoll_ctl; the next chunk by the ring again. */
static void test_enter_refused_falls_back_to_epoll_ctl(void)
{
    if (!has_ring)
        return;
    apply_with_faults(K, 1 + K, (struct fault){ .at = 1, .fault = FAIL, .err = EBUSY });
    CHECK(faulty_enters == 1);
    apply_with_faults(2 * RING + K, 1 + (1 + RING) + 1, (struct fault){ .at = 2, .fault = FAIL, .err = ENOMEM });
    CHECK(faulty_enters == 3);
}

/*
 * An entry that io_uring ended with an answer of its own, not epoll's (ECANCELED: io-wq cancelled
 * it; EINTR, EAGAIN), is made again by epoll_ctl, not reported as epoll's refusal: the ADD that
 * the kernel here did make finds its fd present and becomes a MOD.
 */
static void test_entry_io_uring_answered_goes_by_epoll_ctl(void)
{
    if (!has_ring)
        return;
    const int answers[] = { ECANCELED, EINTR, EAGAIN };
    for (size_t i = 0; i < sizeof(answers) / sizeof(answers[0]); i++) {
        apply_with_faults(K, 1 + 2, (struct fault){ .at = 1, .fault = ANSWER_FIRST, .err = answers[i] });
        CHECK(faulty_enters == 1);
    }
}

/* Cut short after 3 entries: their completions read, the rest taken back for epoll_ctl. */
static void test_submission_cut_short_takes_the_rest_back(void)
{
    if (!has_ring)
        return;
    apply_with_faults(K + 2, 1 + (K + 2 - 3), (struct fault){ .at = 1, .fault = TAKE_SOME, .takes = 3 });
    CHECK(faulty_enters == 1);
}

/*
 * The kernel took every entry, handed each to a worker thread, and the wait was cut by a signal:
 * what has not completed is waited for (nothing more to submit), through another EINTR too.
 * Whether the workers finish before the first reap is the kernel's timing, so each round checks
 * what the extra calls were, and the last check that one round at least had to wait again.
 */
static void test_wait_cut_short_waits_again_for_what_the_kernel_took(void)
{
    if (!has_ring)
        return;
    int waited_again = 0;
    for (int round = 0; round < 10; round++) {
        struct ns_backend *ep = open_epoll(MAX_PAIRS + 1);
        struct ns_change changes[RING];
        make_pairs(RING);
        batch_of(changes, NS_OP_ADD, 0, RING);
        reset_seams();
        force_async = 1;
        plan[1].fault = SUBMIT_NO_WAIT;
        if (round % 2 == 1) { /* and the wait after it interrupted too */
            plan[2].fault = FAIL;
            plan[2].err = EINTR;
        }
        int calls = ns_epoll_ops.apply(ep, changes, RING, 1);
        CHECK(calls == enters && calls >= 1 && calls <= 3);
        for (int i = 0; i < RING; i++)
            CHECK(changes[i].error == 0);
        for (int e = 2; e <= enters && e <= MAX_ENTERS; e++)
            CHECK(asked[e].to_submit == 0 && asked[e].min_complete > 0 && asked[e].min_complete <= RING);
        waited_again += enters > 1;
        expect_ring_idle();
        expect_all_registered(ep, RING);
        close_pairs(RING);
        ns_epoll_ops.close(ep);
    }
    CHECK(waited_again > 0);
}

/* ---- poll ---- */

/* epoll_wait fills the backend's own array of the capacity open was given, whatever the caller's. */
static void test_poll_limited_by_open_capacity(void)
{
    struct ns_backend *ep = open_epoll(2);
    int sv[3][2];
    for (int i = 0; i < 3; i++) {
        make_pair(sv[i]);
        apply_ok(ep, NS_OP_ADD, sv[i][0], NS_IN, TOKEN_A + (uint64_t)i);
        put_byte(sv[i][1]);
    }
    struct ns_ready ready[8];
    CHECK(poll_records(ep, ready, 8, 0, NULL) == 2);
    for (int i = 0; i < 3; i++)
        close_pair(sv[i]);
    ns_epoll_ops.close(ep);
}

static const struct test tests[] = {
    T(test_one_epoll_ctl_per_change),
    T(test_add_present_becomes_mod),
    T(test_mod_absent_becomes_add),
    T(test_batch_below_threshold_is_one_epoll_ctl_each),
    T(test_batch_at_threshold_is_one_enter),
    T(test_opened_without_ring_never_enters),
    T(test_ring_answers_settled_as_epoll_ctl_would),
    T(test_batch_larger_than_the_ring),
    T(test_one_fd_twice_keeps_its_order),
    T(test_one_fd_twice_keeps_its_order_when_entries_are_punted),
    T(test_enter_interrupted_is_entered_again),
    T(test_enter_refused_falls_back_to_epoll_ctl),
    T(test_submission_cut_short_takes_the_rest_back),
    T(test_entry_io_uring_answered_goes_by_epoll_ctl),
    T(test_wait_cut_short_waits_again_for_what_the_kernel_took),
    T(test_poll_limited_by_open_capacity),
#undef T
};

/* Whether the backend gets its ring here; without one, whether that is accepted (has_ring 0). */
static int ring_decided(void)
{
    struct ns_backend *ep = open_backend(&ns_epoll_ops, 8);
    int status = ns_epoll_ops.ring_status(ep);
    ns_epoll_ops.close(ep);
    has_ring = status == 0;
    return has_ring || io_uring_refusal_accepted(-status, "epoll is tested without its ring",
                                                 "The epoll backend's ring cannot be tested here");
}

int main(void)
{
    alarm(60); /* a hung poll or io_uring_enter kills the run instead of stalling it */
    if (!ring_decided()) {
        printf("0 passed, 1 failed\n");
        return 1;
    }
    return run_tests(tests, sizeof(tests) / sizeof(tests[0]));
}
