/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

/*
 * The io_uring instance itself: the submission and completion rings the kernel shares with this
 * process, and the system calls that set them up and move entries through them. Nothing here
 * knows what a request means: the io_uring backend's other files build on these calls, and the
 * epoll backend submits its epoll_ctl requests through a ring of its own.
 *
 *   ring_setup      io_uring_setup, then what the caller cannot work without (struct ring_needs:
 *                   features, opcodes by IORING_REGISTER_PROBE) and IORING_FEAT_SINGLE_MMAP,
 *                   which the mapping relies on; -EOPNOTSUPP when one is missing. Then both rings
 *                   are mapped. What it has set up is recorded even when it fails, for ring_unmap
 *                   and ring_close to release.
 *   ring_unmap      unmaps what ring_setup mapped.
 *   ring_close      closes the ring's fd, if ring_setup opened one (fd is -1 before).
 *   ring_get_sqe    a cleared submission entry at the tail, or NULL when the ring is full.
 *   ring_next_sqe   a cleared submission entry at the tail; when the ring is full, what it holds
 *                   is submitted first (io_uring_enter, counted in *calls). The entry reaches the
 *                   kernel once ring_publish has made it visible and io_uring_enter submits it.
 *   ring_enter      io_uring_enter, with a timeout (IORING_ENTER_EXT_ARG) when one is given.
 *   ring_take_back  takes back the entries the kernel did not consume (a submission it cut short).
 *
 * Threads: nothing here locks. The caller serialises every call on one ring but ring_enter, which
 * reads only the fd.
 *
 * ring_setup, ring_next_sqe and ring_enter return 0 or a count on success and -errno on failure.
 */
#ifndef NS_URING_RING_H
#define NS_URING_RING_H

#include <linux/io_uring.h>
#include <stddef.h>

struct uring_ring {
    int fd;
    unsigned *sq_head, *sq_tail, *sq_mask, *sq_array, *sq_flags;
    unsigned sq_entries;
    unsigned sq_tail_local; /* entries up to here are filled in, up to *sq_tail published */
    struct io_uring_sqe *sqes;
    unsigned *cq_head, *cq_tail, *cq_mask;
    struct io_uring_cqe *cqes;
    void *map;
    size_t map_size;
    size_t sqes_size;
};

/* What a ring's user cannot work without, checked by ring_setup. */
struct ring_needs {
    unsigned features;        /* IORING_FEAT_* bits */
    const unsigned *opcodes;  /* IORING_OP_* values the kernel must support */
    size_t opcode_count;
};

int ring_setup(struct uring_ring *ring, unsigned sq_entries, unsigned cq_entries,
               const struct ring_needs *needs);
void ring_unmap(struct uring_ring *ring);
void ring_close(struct uring_ring *ring);
struct io_uring_sqe *ring_get_sqe(struct uring_ring *ring);
int ring_next_sqe(struct uring_ring *ring, int *calls, struct io_uring_sqe **out);
int ring_enter(struct uring_ring *ring, unsigned to_submit, unsigned min_complete, unsigned flags,
               const struct __kernel_timespec *timeout);

/* Entries filled in that the kernel has not consumed yet. */
static inline unsigned ring_unsubmitted(const struct uring_ring *ring)
{
    return ring->sq_tail_local - __atomic_load_n(ring->sq_head, __ATOMIC_ACQUIRE);
}

/* Makes the entries filled in visible to the kernel's next submission. */
static inline void ring_publish(struct uring_ring *ring)
{
    __atomic_store_n(ring->sq_tail, ring->sq_tail_local, __ATOMIC_RELEASE);
}

/* Takes back the entries the kernel has not consumed, so that no later io_uring_enter submits
   them; returns how many. Without IORING_SETUP_SQPOLL (never set here) the kernel reads the
   submission ring only inside io_uring_enter, so moving the tail back is safe in between. */
static inline unsigned ring_take_back(struct uring_ring *ring)
{
    unsigned head = __atomic_load_n(ring->sq_head, __ATOMIC_ACQUIRE);
    unsigned taken_back = ring->sq_tail_local - head;
    ring->sq_tail_local = head;
    ring_publish(ring);
    return taken_back;
}

/* Whether the kernel holds completions that did not fit the completion ring. */
static inline int ring_cq_overflow(const struct uring_ring *ring)
{
    return __atomic_load_n(ring->sq_flags, __ATOMIC_ACQUIRE) & IORING_SQ_CQ_OVERFLOW;
}

/* The completions to read run from ring_cq_head to ring_cq_tail; ring_cq_advance hands the ones
   read back to the kernel. */
static inline unsigned ring_cq_head(const struct uring_ring *ring)
{
    return *ring->cq_head;
}

static inline unsigned ring_cq_tail(const struct uring_ring *ring)
{
    return __atomic_load_n(ring->cq_tail, __ATOMIC_ACQUIRE);
}

static inline const struct io_uring_cqe *ring_cqe(const struct uring_ring *ring, unsigned index)
{
    return &ring->cqes[index & *ring->cq_mask];
}

static inline void ring_cq_advance(struct uring_ring *ring, unsigned head)
{
    __atomic_store_n(ring->cq_head, head, __ATOMIC_RELEASE);
}

#endif
