/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

/*
 * Forced ahead of the C tests that also build on AIX (-include, CMakeLists.txt), when they are
 * built on Linux: names the C library has here and AIX's has not become errors at their first use,
 * so such a slip shows on Linux and not first on an AIX machine. glibc declares MSG_DONTWAIT as an
 * enum constant and a macro of the same name, so -UMSG_DONTWAIT cannot remove it; poisoning the
 * name after glibc's own use of it can.
 *
 *   MSG_DONTWAIT  AIX's <sys/socket.h> calls it MSG_NONBLOCK
 *   pipe2         not on every AIX level
 */
#ifndef NS_NOT_ON_AIX_H
#define NS_NOT_ON_AIX_H

#include <sys/socket.h>
#include <unistd.h>

#undef MSG_DONTWAIT
#pragma GCC poison MSG_DONTWAIT pipe2

#endif
