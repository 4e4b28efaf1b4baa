/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

/*
 * The internal package the library registers its natives in, read from the library's own file
 * name, so that a jar whose classes were relocated (shaded) finds its natives.
 *
 * NativeLibrary.java loads the library as libnativeselector.so while its classes sit in their
 * original package, and as libnativeselector_<package>.so once relocated, the package mangled as
 * JNI mangles names ('/' as "_", '_' as "_1"), so every package name has exactly one file name
 * (and a versioned one, ".so.1.2", that a symbolic link of that name may point to).
 */
#include "jni_package.h"

#include <stdio.h>
#include <string.h>

#define ORIGINAL_PACKAGE "io/github/nativeselector/internal/"
#define STEM "libnativeselector"

/* Undoes JNI's mangling of `mangled` (length `length`) into out; -1 on what mangling cannot give. */
static int unmangle(const char *mangled, size_t length, char *out, size_t size)
{
    size_t n = 0;
    for (size_t i = 0; i < length; i++) {
        char c = mangled[i];
        if (c == '_') {
            if (i + 1 < length && mangled[i + 1] == '1') {
                c = '_';
                i++;
            } else if (i + 1 < length && mangled[i + 1] >= '0' && mangled[i + 1] <= '9') {
                return -1; /* _0xxxx, _2, _3: not in a package name NativeLibrary writes */
            } else {
                c = '/';
            }
        }
        if (c == '/' && (n == 0 || out[n - 1] == '/'))
            return -1;
        if (n + 2 >= size)
            return -1;
        out[n++] = c;
    }
    if (n == 0 || out[n - 1] == '/')
        return -1;
    out[n++] = '/';
    out[n] = '\0';
    return 0;
}

/*
 * The ".so" that ends the name, alone or followed by a version (".1", ".0.1.0"): a symbolic link
 * on java.library.path is loaded as the file it names, the JVM having resolved it, and that file
 * is often versioned. NULL when there is none.
 */
static const char *so_suffix(const char *base)
{
    for (const char *so = strstr(base, ".so"); so != NULL; so = strstr(so + 1, ".so")) {
        const char *end = so + 3;
        while (end[0] == '.' && end[1] >= '0' && end[1] <= '9') {
            end++;
            while (*end >= '0' && *end <= '9')
                end++;
        }
        if (*end == '\0')
            return so;
    }
    return NULL;
}

int ns_jni_package(const char *file_name, char *out, size_t size)
{
    const char *base = strrchr(file_name, '/');
    base = base == NULL ? file_name : base + 1;
    const char *suffix = so_suffix(base);
    if (strncmp(base, STEM, strlen(STEM)) != 0 || suffix == NULL)
        return -1;
    const char *rest = base + strlen(STEM);
    if (rest == suffix) {
        int length = snprintf(out, size, "%s", ORIGINAL_PACKAGE);
        return length > 0 && (size_t)length < size ? 0 : -1;
    }
    if (*rest != '_')
        return -1;
    rest++;
    return unmangle(rest, (size_t)(suffix - rest), out, size);
}
