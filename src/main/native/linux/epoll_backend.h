/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

/*
 * The epoll backend (ns_epoll_ops, as ns_backend.h describes every backend): the whole story.
 *
 *   open     epoll_create1(EPOLL_CLOEXEC) plus a non-blocking eventfd for wakeups,
 *            watched level-triggered under NS_WAKEUP_TOKEN, and a private
 *            epoll_event array of `capacity` entries for epoll_wait. Then, when io_uring
 *            allows, a ring of NS_EPOLL_RING_ENTRIES submission entries (uring_ring.h) whose
 *            kernel has IORING_OP_EPOLL_CTL (IORING_REGISTER_PROBE, Linux 5.6). Whatever
 *            refuses it (EPERM from seccomp or kernel.io_uring_disabled, ENOSYS, EINVAL or
 *            EOPNOTSUPP from an old kernel, ENOMEM from RLIMIT_MEMLOCK before Linux 5.12,
 *            EMFILE), open goes on without a ring: never fails because of io_uring. Nor does
 *            it try, under NS_OPEN_WITHOUT_RING. ring_status says which it got.
 *   apply    the changes of a batch, in order. ADD of an fd already present becomes MOD and
 *            MOD of an absent fd becomes ADD (both mean the kernel and the batch disagree
 *            about history, never about intent); DEL of an absent or closed fd succeeds;
 *            ADD or MOD to no events parks the fd: it stays in the set with EPOLLET alone,
 *            so the error or hang-up epoll reports whatever the mask wakes one wait, not
 *            every wait, and watching it again is a MOD (about half an ADD after a DEL,
 *            bench/uring-mechanisms S3 against S5). Each change's errno lands in change->error. Without a ring, or for a batch of
 *            fewer than NS_EPOLL_RING_MIN_CHANGES, one epoll_ctl per change. Otherwise the
 *            batch is cut into chunks of at most NS_EPOLL_RING_ENTRIES changes, a chunk
 *            ending before a second change of an fd it holds; a chunk of at least
 *            NS_EPOLL_RING_MIN_CHANGES is one io_uring_enter of IORING_OP_EPOLL_CTL entries
 *            (fd = the epoll fd, off = the change's fd, len = the op, addr = an epoll_event
 *            of the backend's, user_data = the change's index) that submits them all and
 *            waits for all their completions; a shorter chunk goes by epoll_ctl. An ADD or
 *            MOD the kernel answered EEXIST or ENOENT is then redone by epoll_ctl as above.
 *            Returns the system calls made: io_uring_enter and epoll_ctl alike.
 *   poll     one epoll_wait into the private array, converted into ns_ready records.
 *            The wakeup eventfd, when seen, is drained here and reported as a record
 *            with NS_WAKEUP_TOKEN, so the caller can reset its wakeup latch.
 *            Returns the number of records, or -EINTR; the caller re-computes the
 *            timeout and calls again.
 *   wakeup   adds 1 to the eventfd; EAGAIN (counter saturated) already means "awake".
 *   close    unmaps and closes the ring, closes both fds and frees the backend. Closing
 *            the epoll fd drops every registration at once. The kernel's exit work for the
 *            ring then signals each thread that set it up or entered it (task work,
 *            TWA_SIGNAL): an epoll_wait on such a thread at that moment, of any epoll, ends
 *            with EINTR, which callers already treat as a signal's (poll returns -EINTR;
 *            the Java side waits again for the time left).
 *
 * Order. The kernel runs an EPOLL_CTL entry at once unless the epoll's mutex is busy (another
 * thread's epoll_wait copying events out, say): then it hands the entry to a worker thread and
 * runs the next ones first, so two changes of one fd in one submission could land in either
 * order. A chunk therefore holds each fd once, and the next chunk is submitted only when every
 * completion of this one is in: a batch's changes of one fd are applied in batch order, and the
 * EEXIST/ENOENT redo of a change comes before the next change of its fd. libuv (1.45) met this
 * reordering; chaining the entries with IOSQE_IO_HARDLINK would also prevent it, but a linked
 * entry is issued only when the one before it completes (task work, one at a time), which made
 * a chunk dearer than epoll_ctl at every size measured (below).
 *
 * Failures on the ring path. io_uring_enter interrupted (EINTR) before it took anything is
 * entered again; one that took the chunk but whose wait was interrupted is entered again with
 * nothing to submit, until every completion of what the kernel took has been read: an entry the
 * kernel took always completes, and no completion is left in the ring for a later apply. A
 * refusal that takes nothing (EBUSY, EAGAIN, ENOMEM), or a submission the kernel cut short, ends
 * the submitting: the entries it did not take are taken back from the ring (ring_take_back) and
 * their changes applied with epoll_ctl.
 *
 * The figures (bench/uring-mechanisms, `taskset -c 1 mechanisms -k -r 11 -t 100`, Linux 6.18,
 * two shared vCPUs, spreads within 2%; ns per change, median of 11 repetitions run side by side;
 * M1 one epoll_ctl per change, M3 one io_uring_enter of EPOLL_CTL entries per apply, M3+links
 * the same chained with IOSQE_IO_HARDLINK):
 *
 *   changes per apply               1      2      4      8     16     64
 *   MOD, M1                       185    186    185    185    183    189
 *   MOD, M3 / M1                 1.54   1.14   0.95   0.86   0.87   0.79
 *   MOD, M3+links / M1           1.54   1.47   1.42   1.37   1.39   1.35
 *   ADD then DEL, M1              368    369    373    365    363    365
 *   ADD then DEL, M3 / M1        1.31   1.11   1.00   0.96   0.93   0.89
 *   ADD then DEL, M3+links / M1  1.31   1.29   1.26   1.25   1.25   1.21
 *
 * An io_uring_enter costs about three quarters of an epoll_ctl on top of its entries, and each
 * entry about three quarters of one: the ring breaks even at about 4 changes (within 5% there on
 * two runs) and is 4-21% cheaper from 8 on, hence NS_EPOLL_RING_MIN_CHANGES 8, for a batch and
 * for each chunk (a chunk cut short by a repeated fd goes by epoll_ctl when it is shorter).
 * NS_EPOLL_RING_ENTRIES 64 is the Java side's default batch threshold, so a default batch is one
 * io_uring_enter; the ring takes two pages (64 entries of 64 bytes; the rings and 128 completions).
 *
 * Not done: the wait. IORING_OP_EPOLL_WAIT (Linux 6.15) could put a select's changes and its
 * wait in one io_uring_enter, but the same benchmark (M4) made each select 1.38x dearer than
 * epoll_wait, and a server selects far more often than it changes registrations; it also
 * leaves a wait armed in the kernel across selects. poll is a plain epoll_wait and never
 * touches the ring. Nor does the ring take IORING_SETUP_SINGLE_ISSUER or DEFER_TASKRUN: apply
 * runs on whichever thread reaches the batch threshold.
 *
 * Level-triggered, no EPOLLET, no EPOLLRDHUP: readiness is reported on every wait until it
 * is consumed, as java.nio.channels.Selector promises.
 *
 * Threads: callers serialise apply against close, poll against close, and applies against one
 * another (the ring, its events and the chunk's fd set are apply's alone); apply may run on any
 * thread while another thread polls, as poll touches neither the ring nor those.
 *
 * Every function returns 0 or a count on success and -errno on failure.
 */
#ifndef NS_EPOLL_BACKEND_H
#define NS_EPOLL_BACKEND_H

#include "ns_backend.h"

/* Submission entries of the ring, and so the most changes one io_uring_enter carries. */
#define NS_EPOLL_RING_ENTRIES 64

/* The fewest changes a batch or chunk needs to go through the ring (the figures above). A test
   build compiles the backend again with 1, so that every batch goes through the ring. */
#ifndef NS_EPOLL_RING_MIN_CHANGES
#define NS_EPOLL_RING_MIN_CHANGES 8
#endif

extern const struct ns_backend_ops ns_epoll_ops;

#endif
