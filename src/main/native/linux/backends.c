/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

/*
 * The backends of a Linux build. The test build (NS_POLLSET_ON_LINUX, CMakeLists.txt) adds AIX's
 * pollset over its poll(2) emulation, so that the Java suite runs the AIX backend here; the
 * shipped library names it only to say where it is.
 */
#include "epoll_backend.h"
#include "uring_backend.h"
#ifdef NS_POLLSET_ON_LINUX
#include "pollset_backend.h"
#endif

#include <stddef.h>

const struct ns_backend_ops *const ns_backends[] = {
    &ns_epoll_ops,
    &ns_uring_ops,
#ifdef NS_POLLSET_ON_LINUX
    &ns_pollset_ops,
#endif
    NULL,
};

const struct ns_backend_absence ns_absent_backends[] = {
#ifndef NS_POLLSET_ON_LINUX
    { "pollset", "pollset is AIX's; on Linux it exists only in the test build "
                 "(AIX's API emulated over poll(2))" },
#endif
    { NULL, NULL },
};
