/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

/*
 * library_load_test LIBRARY: the JNI library links and loads on this system as the JVM loads it
 * (dlopen, every symbol bound now), exports JNI_OnLoad, and keeps the backends' functions hidden.
 * Its point is the cross-built library: under qemu-user it is loaded by the target's C library.
 */
#include "test_support.h"

#include <dlfcn.h>

static const char *library;
static void *handle;

static void test_loads_with_every_symbol_bound(void)
{
    handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL)
        fprintf(stderr, "dlopen: %s\n", dlerror());
    CHECK(handle != NULL);
}

static void test_exports_jni_onload(void)
{
    CHECK(handle != NULL && dlsym(handle, "JNI_OnLoad") != NULL);
}

static void test_hides_the_backends(void)
{
    CHECK(handle != NULL && dlsym(handle, "ns_epoll_ops") == NULL);
    CHECK(handle != NULL && dlsym(handle, "ns_backends") == NULL);
}

static const struct test tests[] = {
    T(test_loads_with_every_symbol_bound),
    T(test_exports_jni_onload),
    T(test_hides_the_backends),
#undef T
};

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: library_load_test LIBRARY\n");
        return 2;
    }
    library = argv[1];
    int status = run_tests(tests, sizeof(tests) / sizeof(tests[0]));
    if (handle != NULL && dlclose(handle) != 0) {
        fprintf(stderr, "dlclose: %s\n", dlerror());
        status = 1;
    }
    return status;
}
