/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

/*
 * The io_uring system calls, as a C test linked with --wrap=syscall (CMakeLists.txt) sees them.
 * The ring (uring_ring.c) makes its three calls through syscall(2); __wrap_syscall reads their
 * arguments as the ring passes them and hands io_uring_enter and io_uring_setup to the test's
 * on_io_uring_enter and on_io_uring_setup, which decide what happens (__real_syscall makes the
 * call for real). io_uring_register goes through; any other number aborts the test, as the seam
 * would not know its arguments. Included by one file of a program.
 */
#ifndef NS_URING_SYSCALL_SEAM_H
#define NS_URING_SYSCALL_SEAM_H

#include <linux/io_uring.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>

long __real_syscall(long number, ...);
long __wrap_syscall(long number, ...);

static long on_io_uring_enter(int fd, unsigned to_submit, unsigned min_complete, unsigned flags, void *arg,
                              size_t size);
static long on_io_uring_setup(unsigned entries, struct io_uring_params *params);

long __wrap_syscall(long number, ...)
{
    va_list args;
    va_start(args, number);
    long result;
    if (number == __NR_io_uring_enter) {
        int fd = va_arg(args, int);
        unsigned to_submit = va_arg(args, unsigned);
        unsigned min_complete = va_arg(args, unsigned);
        unsigned flags = va_arg(args, unsigned);
        void *arg = va_arg(args, void *);
        size_t size = va_arg(args, size_t);
        result = on_io_uring_enter(fd, to_submit, min_complete, flags, arg, size);
    } else if (number == __NR_io_uring_setup) {
        unsigned entries = va_arg(args, unsigned);
        struct io_uring_params *params = va_arg(args, struct io_uring_params *);
        result = on_io_uring_setup(entries, params);
    } else if (number == __NR_io_uring_register) {
        int fd = va_arg(args, int);
        unsigned opcode = va_arg(args, unsigned);
        void *arg = va_arg(args, void *);
        unsigned count = va_arg(args, unsigned);
        result = __real_syscall(number, fd, opcode, arg, count);
    } else {
        fprintf(stderr, "syscall %ld: unknown to the test's seam\n", number);
        abort();
    }
    va_end(args);
    return result;
}

#endif
