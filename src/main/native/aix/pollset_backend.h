/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

/*
 * The pollset backend (AIX; ns_pollset_ops, as ns_backend.h describes every backend): the whole story.
 *
 *   open     pollset_create(-1), a non-blocking close-on-exec pipe for wakeups whose
 *            read end is in the set for POLLIN under NS_WAKEUP_TOKEN, and a private
 *            struct pollfd array for pollset_poll of `capacity` entries, or of the
 *            descriptor limit (RLIMIT_NOFILE) when that is lower: no poll can report
 *            more descriptors than the process may have open. When any of
 *            it fails (the pipe cannot join the set, say), everything is released
 *            and the errno returned: a backend is never open without its wakeup.
 *   apply    turns a batch into one array of struct poll_ctl and hands it to the
 *            kernel in one pollset_ctl. Returns the number of pollset_ctl calls made:
 *            1, plus one for each element the kernel refused and each call a signal
 *            interrupted (pollset_ctl stops there, so the rest of the array is
 *            submitted again).
 *   poll     one pollset_poll into the private array, converted into ns_ready records.
 *            The wakeup pipe, when seen, is drained here and reported as a record with
 *            NS_WAKEUP_TOKEN. Returns the number of records, or -EINTR.
 *   wakeup   writes a byte to the pipe; a full pipe (EAGAIN) already means "awake".
 *   close    pollset_destroy, then closes the pipe and frees the backend.
 *
 * What pollset makes the backend do, and where AIX differs from epoll:
 *
 *   - No user data travels with a registration: poll results carry only the fd. The backend keeps
 *     a table indexed by fd holding each member's token and events, and reports the token. The
 *     table mirrors the kernel's set exactly (it changes only when pollset_ctl accepted an
 *     element), so each change is planned from what the kernel really holds, whatever op the
 *     batch names: events to watch on an fd not in the set is PS_ADD; events no longer wanted
 *     is PS_DELETE; more events is PS_MOD, which ORs bits in; fewer events is PS_DELETE then
 *     PS_ADD, because PS_MOD can never remove a bit. (PS_REPLACE would do it in one element,
 *     but not every AIX level has it, and only DELETE + ADD is tested.) The same events again
 *     only updates the token.
 *   - A refused element: pollset_ctl returns its index (or -1 for the first) with the earlier
 *     elements applied. Its change gets the errno; the elements of later changes are submitted
 *     again. When the DELETE of a DELETE + ADD pair is refused, its ADD is skipped. errno is
 *     cleared before each call, as AIX may set none for an element after the first: a refusal
 *     that leaves it 0 still fails its change, with EINVAL. EINTR refuses nothing: the call is
 *     made again from the element it stopped at.
 *   - An fd stays in the set after close(2): a reused number would be polled under the old
 *     registration, and a closed one reports POLLNVAL. Callers remove an fd (NS_OP_DEL, which
 *     works on a closed fd) before they let it be closed.
 *   - POLLHUP and POLLERR are reported whether asked for or not.
 *   - AIX's POLL* values differ from Linux's; events are translated from and to NS_* here.
 *   - 64-bit builds only (an #error stops a 32-bit one): there AIX's <sys/poll.h> renames struct
 *     pollfd's events and revents by macro, and the macros would rename ns_records.h's fields.
 *   - pollset_ctl blocks while another thread is inside pollset_poll on the same set. Callers
 *     never apply a batch while a poll is in progress: a flush from another thread is handed to
 *     the polling thread (ChangeQueue.java).
 *
 * Callers serialise apply, poll and close; wakeup may be called from any thread before close.
 * Every function returns 0 or a count on success and -errno on failure.
 */
#ifndef NS_POLLSET_BACKEND_H
#define NS_POLLSET_BACKEND_H

#include "ns_backend.h"

extern const struct ns_backend_ops ns_pollset_ops;

#endif
