/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

/*
 * Tests of the package a library file's name carries (src/main/native/share/jni_package.h), as
 * NativeLibrary.java names the file: libnativeselector.so, or libnativeselector_<mangled>.so.
 */
#include "jni_package.h"
#include "test_support.h"

#include <string.h>

static char package[256];

static int package_of(const char *file_name)
{
    memset(package, 0, sizeof(package));
    return ns_jni_package(file_name, package, sizeof(package));
}

static void test_plain_name_is_the_original_package(void)
{
    CHECK(package_of("/tmp/nativeselector-123/libnativeselector.so") == 0);
    CHECK(strcmp(package, "io/github/nativeselector/internal/") == 0);
    CHECK(package_of("libnativeselector.so") == 0);
}

static void test_mangled_name_is_the_relocated_package(void)
{
    CHECK(package_of("/x/libnativeselector_com_acme_shaded_io_github_nativeselector_internal.so") == 0);
    CHECK(strcmp(package, "com/acme/shaded/io/github/nativeselector/internal/") == 0);
}

static void test_underscore_in_a_package_is_escaped(void)
{
    CHECK(package_of("libnativeselector_my_1app_internal.so") == 0);
    CHECK(strcmp(package, "my_app/internal/") == 0);
}

/* The file a symbolic link names, which the JVM loads having resolved the link, may be versioned. */
static void test_versioned_name_is_the_same_package(void)
{
    CHECK(package_of("/usr/lib/libnativeselector.so.0.1.0") == 0);
    CHECK(strcmp(package, "io/github/nativeselector/internal/") == 0);
    CHECK(package_of("/x/libnativeselector_com_acme_internal.so.2") == 0);
    CHECK(strcmp(package, "com/acme/internal/") == 0);
}

static void test_other_names_carry_no_package(void)
{
    CHECK(package_of("/x/libother.so") == -1);
    CHECK(package_of("/x/libnativeselector.so.x") == -1);
    CHECK(package_of("/x/libnativeselector.so.") == -1);
    CHECK(package_of("/x/libnativeselector.so.1.") == -1);
    CHECK(package_of("/x/libnativeselector.sox") == -1);
    CHECK(package_of("/x/libnativeselectorx.so") == -1);
    CHECK(package_of("/x/libnativeselector_.so") == -1);
    CHECK(package_of("/x/libnativeselector_a__b.so") == -1);
    CHECK(package_of("/x/libnativeselector_a_.so") == -1);
    CHECK(package_of("/x/libnativeselector_a_00024b.so") == -1);
    CHECK(package_of("/x/libnativeselector_a_2.so") == -1);
}

static void test_too_small_a_buffer_is_refused(void)
{
    char small[8];
    CHECK(ns_jni_package("libnativeselector.so", small, sizeof(small)) == -1);
    CHECK(ns_jni_package("libnativeselector_abcdefgh.so", small, sizeof(small)) == -1);
    CHECK(ns_jni_package("libnativeselector_abcd.so", small, sizeof(small)) == 0);
    CHECK(strcmp(small, "abcd/") == 0);
}

static const struct test tests[] = {
    T(test_plain_name_is_the_original_package),
    T(test_mangled_name_is_the_relocated_package),
    T(test_underscore_in_a_package_is_escaped),
    T(test_versioned_name_is_the_same_package),
    T(test_other_names_carry_no_package),
    T(test_too_small_a_buffer_is_refused),
#undef T
};

int main(void)
{
    return run_tests(tests, sizeof(tests) / sizeof(tests[0]));
}
