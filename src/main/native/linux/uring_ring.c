/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

#include "uring_ring.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

int ring_enter(struct uring_ring *ring, unsigned to_submit, unsigned min_complete, unsigned flags,
               const struct __kernel_timespec *timeout)
{
    struct io_uring_getevents_arg arg = { .ts = (uint64_t)(uintptr_t)timeout };
    if (timeout != NULL)
        flags |= IORING_ENTER_EXT_ARG;
    long n = syscall(__NR_io_uring_enter, ring->fd, to_submit, min_complete, flags,
                     timeout != NULL ? (void *)&arg : NULL, timeout != NULL ? sizeof(arg) : 0);
    return n < 0 ? -errno : (int)n;
}

struct io_uring_sqe *ring_get_sqe(struct uring_ring *ring)
{
    if (ring_unsubmitted(ring) == ring->sq_entries)
        return NULL;
    unsigned index = ring->sq_tail_local & *ring->sq_mask;
    struct io_uring_sqe *sqe = &ring->sqes[index];
    memset(sqe, 0, sizeof(*sqe));
    ring->sq_array[index] = index;
    ring->sq_tail_local++;
    return sqe;
}

int ring_next_sqe(struct uring_ring *ring, int *calls, struct io_uring_sqe **out)
{
    struct io_uring_sqe *sqe = ring_get_sqe(ring);
    if (sqe == NULL) {
        ring_publish(ring);
        int n = ring_enter(ring, ring->sq_entries, 0, 0, NULL);
        (*calls)++;
        if (n < 0)
            return n;
        sqe = ring_get_sqe(ring);
        if (sqe == NULL)
            return -EBUSY;
    }
    *out = sqe;
    return 0;
}

static int probe_opcodes(int ring_fd, const struct ring_needs *needs)
{
    size_t size = sizeof(struct io_uring_probe) + 256 * sizeof(struct io_uring_probe_op);
    struct io_uring_probe *probe = calloc(1, size);
    if (probe == NULL)
        return -ENOMEM;
    int err = 0;
    if (syscall(__NR_io_uring_register, ring_fd, IORING_REGISTER_PROBE, probe, 256) < 0) {
        err = -errno;
    } else {
        for (size_t i = 0; i < needs->opcode_count; i++) {
            unsigned op = needs->opcodes[i];
            if (op > probe->last_op || !(probe->ops[op].flags & IO_URING_OP_SUPPORTED))
                err = -EOPNOTSUPP;
        }
    }
    free(probe);
    return err;
}

/* A region of the ring's fd, shared with the kernel and populated at once; MAP_FAILED on failure. */
static void *map_region(int ring_fd, size_t size, off_t offset)
{
    return mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring_fd, offset);
}

static int map_rings(struct uring_ring *ring, const struct io_uring_params *p)
{
    size_t sq_size = p->sq_off.array + p->sq_entries * sizeof(unsigned);
    size_t cq_size = p->cq_off.cqes + p->cq_entries * sizeof(struct io_uring_cqe);
    size_t map_size = sq_size > cq_size ? sq_size : cq_size;
    void *map = map_region(ring->fd, map_size, IORING_OFF_SQ_RING);
    if (map == MAP_FAILED)
        return -errno;
    /* Only mappings that exist are recorded: ring_unmap() unmaps what is recorded. */
    ring->map = map;
    ring->map_size = map_size;
    size_t sqes_size = p->sq_entries * sizeof(struct io_uring_sqe);
    void *sqes = map_region(ring->fd, sqes_size, IORING_OFF_SQES);
    if (sqes == MAP_FAILED)
        return -errno;
    ring->sqes = sqes;
    ring->sqes_size = sqes_size;
    char *base = ring->map;
    ring->sq_head = (unsigned *)(base + p->sq_off.head);
    ring->sq_tail = (unsigned *)(base + p->sq_off.tail);
    ring->sq_mask = (unsigned *)(base + p->sq_off.ring_mask);
    ring->sq_flags = (unsigned *)(base + p->sq_off.flags);
    ring->sq_array = (unsigned *)(base + p->sq_off.array);
    ring->sq_entries = p->sq_entries;
    ring->sq_tail_local = *ring->sq_tail;
    ring->cq_head = (unsigned *)(base + p->cq_off.head);
    ring->cq_tail = (unsigned *)(base + p->cq_off.tail);
    ring->cq_mask = (unsigned *)(base + p->cq_off.ring_mask);
    ring->cqes = (struct io_uring_cqe *)(base + p->cq_off.cqes);
    return 0;
}

int ring_setup(struct uring_ring *ring, unsigned sq_entries, unsigned cq_entries,
               const struct ring_needs *needs)
{
    struct io_uring_params p;
    memset(&p, 0, sizeof(p));
    p.flags = IORING_SETUP_CQSIZE | IORING_SETUP_CLAMP;
    p.cq_entries = cq_entries;
    ring->fd = (int)syscall(__NR_io_uring_setup, sq_entries, &p);
    if (ring->fd < 0)
        return -errno;
    const unsigned needed = IORING_FEAT_SINGLE_MMAP | needs->features;
    if ((p.features & needed) != needed)
        return -EOPNOTSUPP;
    int err = probe_opcodes(ring->fd, needs);
    return err < 0 ? err : map_rings(ring, &p);
}

void ring_unmap(struct uring_ring *ring)
{
    if (ring->sqes != NULL)
        munmap(ring->sqes, ring->sqes_size);
    if (ring->map != NULL)
        munmap(ring->map, ring->map_size);
}

void ring_close(struct uring_ring *ring)
{
    /* close(2) of this private fd leaves nothing to undo: the number is released. */
    if (ring->fd >= 0)
        close(ring->fd);
}
