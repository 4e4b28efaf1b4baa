/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

/*
 * What pollset.c offers beyond AIX's API, for its own tests. It stays out of include/ so that
 * code written for AIX cannot come to depend on it.
 */
#ifndef NS_POLLSET_ON_LINUX_H
#define NS_POLLSET_ON_LINUX_H

#include <sys/pollset.h>

/*
 * How many pollset_poll calls on ps have counted themselves among the polls pollset_ctl waits
 * for, ever (it never decreases, so that a poll that has already ended is not missed), or -1
 * with EINVAL when ps is no set.
 */
int pollset_polls_begun(pollset_t ps);

#endif
