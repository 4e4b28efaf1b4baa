/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

/* The backends of an AIX build. */
#include "pollset_backend.h"

#include <stddef.h>

const struct ns_backend_ops *const ns_backends[] = { &ns_pollset_ops, NULL };

const struct ns_backend_absence ns_absent_backends[] = { { NULL, NULL } };
