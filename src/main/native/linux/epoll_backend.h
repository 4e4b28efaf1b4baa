/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

/*
 * The epoll backend (ns_epoll_ops, as ns_backend.h describes every backend): the whole story.
 *
 *   open     epoll_create1(EPOLL_CLOEXEC) plus a non-blocking eventfd for wakeups,
 *            watched level-triggered under NS_WAKEUP_TOKEN, and a private
 *            epoll_event array of `capacity` entries for epoll_wait.
 *   apply    one epoll_ctl per change of a batch, in order. ADD of an fd already
 *            present becomes MOD and MOD of an absent fd becomes ADD (both mean the
 *            kernel and the batch disagree about history, never about intent); DEL
 *            of an absent or closed fd succeeds. Each change's errno lands in
 *            change->error. Returns the number of epoll_ctl calls made.
 *   poll     one epoll_wait into the private array, converted into ns_ready records.
 *            The wakeup eventfd, when seen, is drained here and reported as a record
 *            with NS_WAKEUP_TOKEN, so the caller can reset its wakeup latch.
 *            Returns the number of records, or -EINTR; the caller re-computes the
 *            timeout and calls again.
 *   wakeup   adds 1 to the eventfd; EAGAIN (counter saturated) already means "awake".
 *   close    closes both fds and frees the backend. Closing the epoll fd drops every
 *            registration at once.
 *
 * Level-triggered, no EPOLLET, no EPOLLRDHUP: readiness is reported on every wait until it
 * is consumed, as java.nio.channels.Selector promises. Callers serialise apply against close,
 * and poll against close; apply may run on any thread while another thread polls.
 *
 * Every function returns 0 or a count on success and -errno on failure.
 */
#ifndef NS_EPOLL_BACKEND_H
#define NS_EPOLL_BACKEND_H

#include "ns_backend.h"

extern const struct ns_backend_ops ns_epoll_ops;

#endif
