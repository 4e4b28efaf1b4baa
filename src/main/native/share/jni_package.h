/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

/*
 * The internal package ("a/b/c/") of the library file `file_name`: jni_package.c says how the
 * name carries it. Returns 0, or -1 when the name carries none or `size` is too small.
 */
#ifndef NS_JNI_PACKAGE_H
#define NS_JNI_PACKAGE_H

#include <stddef.h>

int ns_jni_package(const char *file_name, char *out, size_t size);

#endif
