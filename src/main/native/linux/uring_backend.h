/*
 * The io_uring backend (ns_uring_ops, as ns_backend.h describes every backend): the whole story.
 *
 * Readiness comes from one-shot IORING_OP_POLL_ADD requests, one per registered fd, whose
 * user_data is the key's token. A poll that completes is re-armed by the next poll call while
 * the fd is still registered, so a channel that stays ready is reported by every select:
 * level-triggered, as java.nio.channels.Selector promises. (Multishot poll is edge-triggered on
 * the kernels measured, and IORING_POLL_ADD_LEVEL is refused; IORING_OP_EPOLL_CTL saves nothing
 * over epoll_ctl: bench/uring-mechanisms has the figures.)
 *
 *   open    io_uring_setup with a completion ring sized for `capacity` registrations,
 *           probing what the backend needs: IORING_FEAT_NODROP, IORING_FEAT_EXT_ARG
 *           (timed waits), poll updates (IORING_FEAT_RSRC_TAGS marks Linux 5.13), and
 *           the POLL_ADD/POLL_REMOVE opcodes. -EPERM, -ENOSYS, -EINVAL and -EOPNOTSUPP
 *           mean io_uring is unavailable here (seccomp, kernel.io_uring_disabled, an old
 *           kernel); -ENOMEM means the ring could not be allocated (RLIMIT_MEMLOCK).
 *   apply   ADD arms a poll, MOD updates the events of an armed poll (or of the next
 *           re-arm), DEL removes the poll. A removal or update the kernel refuses with
 *           EALREADY (the poll was being woken on the thread that armed it) is asked
 *           again, of that poll, even once its slot has gone to a new key (whose poll
 *           is armed when the old one ends). A change whose request cannot be queued
 *           (the io_uring_enter that makes room in a full submission ring fails) gets
 *           that errno and leaves its registration as it was. Tokens with bit 63 set
 *           are refused (EINVAL): that bit marks the backend's own requests. With
 *           `sync`, the changes are submitted before returning, and for every DEL the
 *           cancelled poll's completion is awaited (for up to 50 ms): a pending poll
 *           holds a reference to the file, so a socket closed while it is armed would
 *           send no FIN until it completes. Without `sync`, the entries wait in the
 *           submission ring for the next poll on the same thread, which
 *           submits them and waits in one io_uring_enter. Returns the number of
 *           io_uring_enter calls made.
 *   poll    re-arms the polls that completed last time, then harvests completions into
 *           ns_ready records. A completion that was already in the ring (or set aside
 *           by an apply on another thread) when the poll began says what its fd was
 *           ready for then, not now: it is not reported, its poll is armed again at
 *           once, and what that poll completes with in this call is reported (a poll
 *           armed on a ready fd completes immediately). So a select reports readiness
 *           as it is when the select runs, as epoll does, whatever its timeout: once
 *           the timeout has passed, the polls armed again are still submitted and what
 *           they complete with at once is reported. A poll that cannot be armed again
 *           (its io_uring_enter fails) stays queued for the next call; this one
 *           returns its records, or the error when it has none. Returns the count, with
 *           NS_POLLED_WITHOUT_SYSCALL set when no system call was made (nothing to submit,
 *           nothing to wait for), or -EINTR.
 *   wakeup  adds 1 to an eventfd watched by its own one-shot poll (NS_WAKEUP_TOKEN).
 *   close   unmaps the rings and closes the ring fd and the eventfd: every pending poll
 *           is cancelled by the kernel with the ring.
 *
 * Threads: apply may run on any thread (callers serialise applies) while another thread polls;
 * one mutex guards the submission ring, the completion ring's head, the registration table and
 * the completions set aside; it is never held across a blocking wait for readiness. The ring is
 * therefore not set up with IORING_SETUP_SINGLE_ISSUER. A poll waits for completions in the ring,
 * so a sync apply that sets completions aside while a poll waits (or is about to) also submits a
 * no-op (IORING_OP_NOP), whose completion ends the wait.
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
 * Every function returns 0 or a count on success and -errno on failure.
 */
#ifndef NS_URING_BACKEND_H
#define NS_URING_BACKEND_H

#include "ns_backend.h"

extern const struct ns_backend_ops ns_uring_ops;

#endif
