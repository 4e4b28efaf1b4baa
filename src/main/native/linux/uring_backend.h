/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

/*
 * The io_uring backend (ns_uring_ops, as ns_backend.h describes every backend): the whole story.
 *
 * Readiness comes from one-shot IORING_OP_POLL_ADD requests, one per registered fd, whose
 * user_data is the key's token. A poll that completes is re-armed by the next poll call while
 * the fd is still registered, so a channel that stays ready is reported by every select:
 * level-triggered, as java.nio.channels.Selector promises. (Multishot poll is edge-triggered on
 * the kernels measured, and IORING_POLL_ADD_LEVEL is refused; IORING_OP_EPOLL_CTL leaves the
 * wait to epoll, and is how the epoll backend batches its changes: bench/uring-mechanisms has the
 * figures.)
 *
 *   open    io_uring_setup with a submission ring of 256 entries and a completion ring of 4096
 *           (IORING_SETUP_CQSIZE, clamped to the kernel's maximum), checking what the
 *           backend needs: IORING_FEAT_SINGLE_MMAP, IORING_FEAT_NODROP, IORING_FEAT_EXT_ARG
 *           (timed waits), Linux 5.13 or later (IORING_FEAT_RSRC_TAGS marks it), and the
 *           POLL_ADD/POLL_REMOVE opcodes (IORING_REGISTER_PROBE); then both rings are
 *           mapped and a non-blocking eventfd made for wakeups. Records go straight into
 *           the caller's array, so `capacity` only has to be at least 1 (-EINVAL). -EPERM,
 *           -ENOSYS, -EINVAL and -EOPNOTSUPP mean io_uring is unavailable here (seccomp,
 *           kernel.io_uring_disabled, an old kernel); -ENOMEM means the ring could not be
 *           allocated (memory, or the cgroup's limit; RLIMIT_MEMLOCK counts rings only
 *           before Linux 5.12, older than this backend runs on).
 *   apply   A key's slot is the low 32 bits of its token. ADD and MOD arm a poll; for a slot
 *           whose poll is armed, they remove it and the new events go with the arm that
 *           follows its end, as they do while a poll is being removed or waits to be armed
 *           again (never IORING_POLL_UPDATE_EVENTS: Linux 6.0 to the fix of December 2025
 *           lose the completion of a poll that an update makes ready at once). DEL removes
 *           the poll (IORING_OP_POLL_REMOVE), and so do ADD and MOD to no events: a poll
 *           for none would still complete on every hang-up. A removal the kernel
 *           refuses with EALREADY (the poll was being woken on the thread that armed it) is
 *           asked again, of that poll, even once its slot has gone to a new key (whose poll
 *           is armed when the old one ends). A change whose request cannot be queued (the
 *           io_uring_enter that makes room in a full submission ring fails) gets that errno
 *           and leaves its registration as it was; EBUSY or ENOMEM (the slot table could
 *           not grow) ends the batch there, and apply returns that error. ADD or MOD of a
 *           token whose slot another registered key holds gets EEXIST; of a token with bit
 *           63 set, EINVAL: that bit marks the backend's own requests. With `sync`, the
 *           changes are submitted before returning, and the cancelled polls' completions
 *           are awaited (for up to 50 ms in all): a pending poll holds a reference to the
 *           file, so a socket closed while it is armed would send no FIN until it
 *           completes. Without `sync`, the entries wait in the submission ring for the
 *           next io_uring_enter, usually the next poll's, which submits them and waits in
 *           one call. Returns the number of io_uring_enter calls made.
 *   poll    takes what completed before this call (set aside by an apply, or still in the
 *           ring), arms those polls again, and the wakeup's, then submits and waits in one
 *           io_uring_enter, harvesting completions into ns_ready records. A completion
 *           that was already there when the poll began says what its fd was ready for
 *           then, not now: it is not reported, its poll is armed again at once, and what
 *           that poll completes with in this call is reported (a poll armed on a ready fd
 *           completes immediately). So a select reports readiness as it is when the select
 *           runs, as epoll does, whatever its timeout: once the timeout has passed, the
 *           polls armed again are still submitted and what they complete with at once is
 *           reported. A poll the kernel ends with an error is reported once (NS_NVAL for
 *           EBADF, NS_ERR otherwise) and not armed again; one cancelled (-ECANCELED) is
 *           armed again and not reported. A poll that cannot be armed again (its
 *           io_uring_enter fails) stays queued for the next call; this one returns its
 *           records, or the error when it has none. Returns the count, with
 *           NS_POLLED_WITHOUT_SYSCALL set when no system call was made (records found,
 *           or a timeout of 0, with nothing to submit and no overflow), -EINTR, or
 *           -errno (-EBADR: see below).
 *   wakeup  adds 1 to the eventfd, watched by its own one-shot poll (NS_WAKEUP_TOKEN);
 *           EAGAIN (the counter is full) already means "awake".
 *   close   first removes every armed poll and waits, for up to 50 ms, for the removals to
 *           complete, because a pending poll keeps its file open; then unmaps the rings
 *           and closes the eventfd and the ring fd. What is still pending then (the
 *           wakeup's poll, a removal that could not be queued or did not complete in time)
 *           is cancelled by the kernel with the ring.
 *
 * Threads: apply may run on any thread (callers serialise applies) while another thread polls;
 * one mutex guards the submission ring, the completion ring's head, the registration table and
 * the completions set aside. It is held across the removal wait of a sync apply or close (at most
 * 50 ms), never across a poll's wait for readiness. The ring is therefore not set up with
 * IORING_SETUP_SINGLE_ISSUER. A poll waits for completions in the ring, so a sync apply that
 * finds completions set aside while a poll waits (or is about to) also submits a no-op
 * (IORING_OP_NOP), whose completion ends the wait.
 *
 * Completion-ring overflow: with IORING_FEAT_NODROP the kernel keeps overflowing completions and
 * hands them over when io_uring_enter is called with IORING_ENTER_GETEVENTS, which every poll
 * does when the ring says IORING_SQ_CQ_OVERFLOW; completions that do not fit the caller's ready
 * array stay in the ring for the next poll. Only a kernel out of memory for overflow entries
 * drops completions (EBADR): poll then fails with -EBADR rather than lose readiness
 * silently.
 *
 * Threads that submit polls own them: when such a thread exits, the kernel cancels its polls
 * (-ECANCELED), and a registered fd's cancelled poll is armed again by the next poll call.
 *
 * The code: uring_backend.c holds the ops table and these five operations; uring_ring.c the
 * ring's mechanics; uring_registrations.c the registration state machine; uring_readiness.c what
 * a poll reports. uring_internal.h says which file owns which fields.
 *
 * Every operation but close returns 0 or a count on success and -errno on failure.
 */
#ifndef NS_URING_BACKEND_H
#define NS_URING_BACKEND_H

#include "ns_backend.h"

extern const struct ns_backend_ops ns_uring_ops;

#endif
