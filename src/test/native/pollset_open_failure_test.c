/*
 * the pollset backend's open (src/main/native/aix/pollset_backend.h) with each allocation it makes refused in turn, on
 * Linux through pollset-on-linux/: the open either fails with ENOMEM and leaves nothing
 * behind (no fd; AddressSanitizer's leak check covers memory), or it succeeds with a wakeup that
 * works. Linked with --wrap for malloc, calloc and realloc (CMakeLists.txt), which puts the test
 * between the backend, the pollset emulation and the C library's allocator: GNU ld only, hence
 * apart from pollset_backend_test, which also runs on AIX. Prints "N passed, M failed".
 */
#include "pollset_backend.h"
#include "test_support.h"

#include <errno.h>
#include <stdlib.h>

/* The allocation after this many more fails; -1: none fails. */
static int allocations_before_failure = -1;

static int refuse_this_allocation(void)
{
    if (allocations_before_failure == 0) {
        allocations_before_failure = -1;
        return 1;
    }
    if (allocations_before_failure > 0)
        allocations_before_failure--;
    return 0;
}

void *__real_malloc(size_t size);
void *__wrap_malloc(size_t size);
void *__wrap_malloc(size_t size)
{
    return refuse_this_allocation() ? NULL : __real_malloc(size);
}

void *__real_calloc(size_t count, size_t size);
void *__wrap_calloc(size_t count, size_t size);
void *__wrap_calloc(size_t count, size_t size)
{
    return refuse_this_allocation() ? NULL : __real_calloc(count, size);
}

void *__real_realloc(void *old, size_t size);
void *__wrap_realloc(void *old, size_t size);
void *__wrap_realloc(void *old, size_t size)
{
    return refuse_this_allocation() ? NULL : __real_realloc(old, size);
}

static void test_open_refused_an_allocation_fails_or_wakes_up(void)
{
    int fds = count_fds();
    int opened = 0;
    for (int allowed = 0; !opened && allowed < 100; allowed++) {
        allocations_before_failure = allowed;
        struct ns_backend *ps = NULL;
        int rc = ns_pollset_ops.open(4, &ps);
        int refused = allocations_before_failure == -1;
        allocations_before_failure = -1;
        if (refused) {
            CHECK(rc == -ENOMEM);
            CHECK(ps == NULL);
            if (rc == 0)
                fprintf(stderr, "  allocation %d refused, and yet the open succeeded\n", allowed + 1);
        } else {
            CHECK(rc == 0);
            opened = 1;
        }
        if (rc == 0) {
            struct ns_ready ready[4];
            CHECK(ns_pollset_ops.wakeup(ps) == 0);
            int n = ns_pollset_ops.poll(ps, ready, 4, 0);
            CHECK(n == 1 && ready[0].token == NS_WAKEUP_TOKEN);
            ns_pollset_ops.close(ps);
        }
        CHECK(count_fds() == fds);
    }
    CHECK(opened);
}

static const struct test tests[] = {
    T(test_open_refused_an_allocation_fails_or_wakes_up),
#undef T
};

int main(void)
{
    return run_tests(tests, sizeof(tests) / sizeof(tests[0]));
}
