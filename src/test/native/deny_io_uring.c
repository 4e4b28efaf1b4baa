/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

/*
 * deny_io_uring PROGRAM [ARGS...]: runs PROGRAM as a container's default seccomp profile would,
 * as far as io_uring goes: io_uring_setup, io_uring_enter and io_uring_register fail with EPERM,
 * every other system call is allowed. The filter is inherited across execve and by every thread
 * and child of PROGRAM.
 *
 * Raw seccomp, no libseccomp: prctl(PR_SET_NO_NEW_PRIVS) (so that an unprivileged process may
 * install a filter), then prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER) with a classic BPF program.
 * Exit status 127 when it cannot set up or cannot run PROGRAM; otherwise PROGRAM's.
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#define NATIVE_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define NATIVE_AUDIT_ARCH AUDIT_ARCH_AARCH64
#elif defined(__i386__)
#define NATIVE_AUDIT_ARCH AUDIT_ARCH_I386
#elif defined(__riscv) && __riscv_xlen == 64
#define NATIVE_AUDIT_ARCH AUDIT_ARCH_RISCV64
#elif defined(__powerpc64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define NATIVE_AUDIT_ARCH AUDIT_ARCH_PPC64LE
#elif defined(__s390x__)
#define NATIVE_AUDIT_ARCH AUDIT_ARCH_S390X
#else
#error "deny_io_uring: unknown architecture, add its AUDIT_ARCH_* value"
#endif

#ifndef __NR_io_uring_setup
#error "deny_io_uring: <sys/syscall.h> has no io_uring_setup"
#endif

/* x86-64's other ABIs: i386 (int $0x80) numbers io_uring's calls as x86-64 does (425..427 are
   common to every architecture's table), and x32 sets this bit in the number. */
#ifdef __x86_64__
#define X32_SYSCALL_BIT 0x40000000u
_Static_assert(__NR_io_uring_setup == 425 && __NR_io_uring_enter == 426 && __NR_io_uring_register == 427,
               "io_uring's system call numbers are the same on i386");
#endif

#define LOAD(field) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, field))
/* A jump at index `at` to index `to` when the accumulator equals k, else to the next one:
   classic BPF offsets count the instructions skipped. */
#define JUMP_IF_EQ(at, k, to) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (k), (to) - (at) - 1, 0)
#define NOP BPF_JUMP(BPF_JMP | BPF_JA, 0, 0, 0)

enum {
    I_LOAD_ARCH,
    I_ARCH_NATIVE,
    I_ARCH_COMPAT,
    I_KILL_FOREIGN,
    I_LOAD_NR,
    I_STRIP_X32,
    I_SETUP,
    I_ENTER,
    I_REGISTER,
    I_ALLOW,
    I_DENY,
    I_COUNT
};

static struct sock_filter filter[I_COUNT] = {
    [I_LOAD_ARCH] = LOAD(arch),
    [I_ARCH_NATIVE] = JUMP_IF_EQ(I_ARCH_NATIVE, NATIVE_AUDIT_ARCH, I_LOAD_NR),
#ifdef __x86_64__
    [I_ARCH_COMPAT] = JUMP_IF_EQ(I_ARCH_COMPAT, AUDIT_ARCH_I386, I_LOAD_NR),
#else
    [I_ARCH_COMPAT] = NOP,
#endif
    /* An ABI whose numbers this filter does not know: refusing the process is safer than letting
       io_uring through (the kernel offers no such ABI to an x86-64 or other listed process). */
    [I_KILL_FOREIGN] = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
    [I_LOAD_NR] = LOAD(nr),
#ifdef __x86_64__
    [I_STRIP_X32] = BPF_STMT(BPF_ALU | BPF_AND | BPF_K, ~X32_SYSCALL_BIT),
#else
    [I_STRIP_X32] = NOP,
#endif
    [I_SETUP] = JUMP_IF_EQ(I_SETUP, __NR_io_uring_setup, I_DENY),
    [I_ENTER] = JUMP_IF_EQ(I_ENTER, __NR_io_uring_enter, I_DENY),
    [I_REGISTER] = JUMP_IF_EQ(I_REGISTER, __NR_io_uring_register, I_DENY),
    [I_ALLOW] = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    [I_DENY] = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)),
};

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s PROGRAM [ARGS...]\n"
                        "runs PROGRAM with io_uring_setup, io_uring_enter and io_uring_register "
                        "failing with EPERM (seccomp)\n", argv[0]);
        return 127;
    }

    struct sock_fprog prog = { .len = I_COUNT, .filter = filter };
    if (prctl(PR_SET_NO_NEW_PRIVS, 1L, 0L, 0L, 0L) != 0) {
        fprintf(stderr, "deny_io_uring: prctl(PR_SET_NO_NEW_PRIVS): %s\n", strerror(errno));
        return 127;
    }
    if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0L, 0L) != 0) {
        fprintf(stderr, "deny_io_uring: prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER): %s\n", strerror(errno));
        return 127;
    }
    execvp(argv[1], argv + 1);
    fprintf(stderr, "deny_io_uring: cannot run %s: %s\n", argv[1], strerror(errno));
    return 127;
}
