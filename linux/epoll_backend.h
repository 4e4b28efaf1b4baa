/*
 * The epoll backend: the whole story.
 *
 *   ns_epoll_open     epoll_create1(EPOLL_CLOEXEC) plus a non-blocking eventfd for wakeups,
 *                     watched level-triggered under NS_WAKEUP_TOKEN, and a private
 *                     epoll_event array of `capacity` entries for epoll_wait.
 *   ns_epoll_apply    one epoll_ctl per change of a batch, in order. ADD of an fd already
 *                     present becomes MOD and MOD of an absent fd becomes ADD (both mean the
 *                     kernel and the batch disagree about history, never about intent); DEL
 *                     of an absent or closed fd succeeds. Each change's errno lands in
 *                     change->error. Returns the number of epoll_ctl calls made.
 *   ns_epoll_poll     one epoll_wait into the private array, converted into ns_ready records.
 *                     The wakeup eventfd, when seen, is drained here and reported as a record
 *                     with NS_WAKEUP_TOKEN, so the caller can reset its wakeup latch.
 *                     Returns the number of records, or -EINTR; the caller re-computes the
 *                     timeout and calls again.
 *   ns_epoll_wakeup   adds 1 to the eventfd; EAGAIN (counter saturated) already means "awake".
 *   ns_epoll_close    closes both fds and frees the backend. Closing the epoll fd drops every
 *                     registration at once.
 *
 * Level-triggered, no EPOLLET, no EPOLLRDHUP: readiness is reported on every wait until it
 * is consumed, as java.nio.channels.Selector promises. Callers serialise apply against close,
 * and poll against close; apply may run on any thread while another thread polls.
 *
 * Every function returns 0 or a count on success and -errno on failure.
 */
#ifndef NS_EPOLL_BACKEND_H
#define NS_EPOLL_BACKEND_H

#include "ns_batch.h"

struct ns_epoll;

int ns_epoll_open(int capacity, struct ns_epoll **out);
int ns_epoll_apply(struct ns_epoll *ep, struct ns_change *changes, int count);
int ns_epoll_poll(struct ns_epoll *ep, struct ns_ready *ready, int capacity, int timeout_ms);
int ns_epoll_wakeup(struct ns_epoll *ep);
void ns_epoll_close(struct ns_epoll *ep);

#endif
