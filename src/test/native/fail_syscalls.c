/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

/*
 * fail_syscalls RULE... -- PROGRAM [ARGS...]: runs PROGRAM with the system calls that the rules
 * name failing, as a kernel, a container or a machine short of resources would make them fail,
 * so that tests reach the error paths that loopback never takes.
 *
 *   ERRNO:NAME            every call of NAME fails with ERRNO
 *   ERRNO:NAME:ARG=VALUE  the calls of NAME whose argument ARG (0 to 5) is VALUE fail with ERRNO
 *
 * ERRNO is a name (EPERM, ETIMEDOUT, ...) or a number, or KILL: the call kills the process
 * (SIGSYS), as a filter that denies rather than refuses does (systemd's SystemCallFilter= without
 * SystemCallErrorNumber=); NAME a system call of the table below;
 * VALUE a number (0x for hexadecimal). A container's default seccomp profile, as far as io_uring
 * goes, is "EPERM:io_uring_setup EPERM:io_uring_enter EPERM:io_uring_register".
 *
 * Raw seccomp, no libseccomp: prctl(PR_SET_NO_NEW_PRIVS) (so that an unprivileged process may
 * install a filter), then prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER) with a classic BPF program
 * that checks each rule in turn and allows the call when none matches. The filter is inherited
 * across execve and by every thread and child of PROGRAM. A call made through another ABI than
 * the native one (i386's int $0x80 on x86-64), whose numbers the rules do not know, kills the
 * process rather than slip past them. Exit status 127 when it cannot set up or cannot run
 * PROGRAM; otherwise PROGRAM's.
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
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
#error "fail_syscalls: unknown architecture, add its AUDIT_ARCH_* value"
#endif

/* x32, x86-64's other 64-bit ABI, numbers the same calls with this bit set. */
#ifdef __x86_64__
#define X32_SYSCALL_BIT 0x40000000u
#endif

struct named {
    const char *name;
    long value;
};

#define NAMED(x) { #x, x }
#define SYSCALL(x) { #x, __NR_##x }

/* The calls a socket's life makes, and io_uring's; architectures without one (aarch64 has no
   poll) leave it out. */
static const struct named syscalls[] = {
    SYSCALL(socket), SYSCALL(bind), SYSCALL(listen), SYSCALL(connect), SYSCALL(accept4),
    SYSCALL(getsockname), SYSCALL(getpeername), SYSCALL(setsockopt), SYSCALL(getsockopt),
    SYSCALL(shutdown), SYSCALL(close), SYSCALL(read), SYSCALL(write), SYSCALL(readv), SYSCALL(writev),
    SYSCALL(recvfrom), SYSCALL(sendto), SYSCALL(recvmsg), SYSCALL(sendmsg), SYSCALL(ioctl), SYSCALL(ppoll),
    SYSCALL(epoll_ctl), SYSCALL(epoll_pwait), SYSCALL(io_uring_setup), SYSCALL(io_uring_enter),
    SYSCALL(io_uring_register),
#ifdef __NR_accept
    SYSCALL(accept),
#endif
#ifdef __NR_poll
    SYSCALL(poll),
#endif
#ifdef __NR_epoll_wait
    SYSCALL(epoll_wait),
#endif
};

static const struct named errnos[] = {
    NAMED(EPERM), NAMED(EINTR), NAMED(EIO), NAMED(EBADF), NAMED(ENOMEM), NAMED(EACCES), NAMED(EINVAL),
    NAMED(ENFILE), NAMED(EMFILE), NAMED(EPIPE), NAMED(ENOSPC), NAMED(EPROTO), NAMED(ENOPROTOOPT),
    NAMED(EAFNOSUPPORT), NAMED(EADDRINUSE), NAMED(EADDRNOTAVAIL), NAMED(ENETDOWN), NAMED(ENETUNREACH),
    NAMED(ECONNABORTED), NAMED(ECONNRESET), NAMED(ENOBUFS), NAMED(ENOTCONN), NAMED(ETIMEDOUT),
    NAMED(ECONNREFUSED), NAMED(EHOSTUNREACH),
};

#define COUNT(array) (sizeof(array) / sizeof((array)[0]))
#define MAX_RULES 32
/* The most instructions a rule takes (emit_rule): load the number (and strip x32's bit), compare
   it, load and compare both halves of an argument, return the errno. */
#define RULE_MAX_INSNS 8
#define MAX_INSNS (3 + MAX_RULES * RULE_MAX_INSNS + 1)

struct rule {
    long nr;
    int err; /* KILL_ERR: the call kills the process */
    int arg; /* -1: any call */
    uint64_t value;
};

#define KILL_ERR (-1)

static long lookup(const struct named *table, size_t count, const char *name, const char *what)
{
    for (size_t i = 0; i < count; i++) {
        if (strcmp(table[i].name, name) == 0)
            return table[i].value;
    }
    char *end;
    errno = 0;
    long number = strtol(name, &end, 0);
    if (errno != 0 || *name == '\0' || *end != '\0' || number < 0) {
        fprintf(stderr, "fail_syscalls: unknown %s: %s\n", what, name);
        exit(127);
    }
    return number;
}

/* ERRNO:NAME or ERRNO:NAME:ARG=VALUE. */
static struct rule parse_rule(char *text)
{
    struct rule rule = { .arg = -1 };
    char *name = strchr(text, ':');
    if (name == NULL) {
        fprintf(stderr, "fail_syscalls: a rule is ERRNO:NAME[:ARG=VALUE], not %s\n", text);
        exit(127);
    }
    *name++ = '\0';
    char *condition = strchr(name, ':');
    if (condition != NULL) {
        *condition++ = '\0';
        char *end;
        errno = 0;
        long arg = strtol(condition, &end, 10);
        if (end == condition || *end != '=' || arg < 0 || arg > 5) {
            fprintf(stderr, "fail_syscalls: a condition is ARG=VALUE with ARG 0 to 5, not %s\n", condition);
            exit(127);
        }
        char *value = end + 1;
        rule.value = strtoull(value, &end, 0);
        if (errno != 0 || *value == '\0' || *end != '\0') {
            fprintf(stderr, "fail_syscalls: not a number: %s\n", value);
            exit(127);
        }
        rule.arg = (int)arg;
    }
    long err = strcmp(text, "KILL") == 0 ? KILL_ERR : lookup(errnos, COUNT(errnos), text, "errno");
    rule.nr = lookup(syscalls, COUNT(syscalls), name, "system call");
    if (err != KILL_ERR && (err <= 0 || err > (long)SECCOMP_RET_DATA)) {
        fprintf(stderr, "fail_syscalls: errno out of range: %s\n", text);
        exit(127);
    }
    rule.err = (int)err;
    return rule;
}

static struct sock_filter load(uint32_t offset)
{
    return (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offset);
}

static struct sock_filter give(uint32_t value)
{
    return (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, value);
}

/* A jump when the accumulator is not k, over `skip` instructions. */
static struct sock_filter unless_equal(uint32_t k, int skip)
{
    return (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, k, 0, (uint8_t)skip);
}

/* Where each 32-bit half of argument `arg` sits in struct seccomp_data. */
static uint32_t arg_half(int arg, int high)
{
    uint32_t offset = (uint32_t)(offsetof(struct seccomp_data, args) + 8 * (size_t)arg);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    return offset + (high ? 4 : 0);
#else
    return offset + (high ? 0 : 4);
#endif
}

/* One rule's instructions at `at`: a mismatch jumps past them to the next rule. */
static int emit_rule(struct sock_filter *at, const struct rule *rule)
{
    int length = (rule->arg >= 0 ? 7 : 3);
#ifdef __x86_64__
    length++;
#endif
    int n = 0;
    at[n++] = load(offsetof(struct seccomp_data, nr));
#ifdef __x86_64__
    at[n++] = (struct sock_filter)BPF_STMT(BPF_ALU | BPF_AND | BPF_K, ~X32_SYSCALL_BIT);
#endif
    /* A jump's offset counts the instructions skipped after it. */
    at[n] = unless_equal((uint32_t)rule->nr, length - n - 1);
    n++;
    if (rule->arg >= 0) {
        at[n++] = load(arg_half(rule->arg, 0));
        at[n] = unless_equal((uint32_t)rule->value, length - n - 1);
        n++;
        at[n++] = load(arg_half(rule->arg, 1));
        at[n] = unless_equal((uint32_t)(rule->value >> 32), length - n - 1);
        n++;
    }
    at[n++] = give(rule->err == KILL_ERR ? SECCOMP_RET_KILL_PROCESS
                                         : SECCOMP_RET_ERRNO | ((uint32_t)rule->err & SECCOMP_RET_DATA));
    return n;
}

static int usage(const char *program)
{
    fprintf(stderr, "usage: %s RULE... -- PROGRAM [ARGS...]\n"
                    "runs PROGRAM with the system calls the rules name failing (seccomp); a rule is\n"
                    "ERRNO:NAME (every call) or ERRNO:NAME:ARG=VALUE (the calls whose argument ARG is VALUE);\n"
                    "ERRNO KILL kills the process instead\n",
            program);
    return 127;
}

int main(int argc, char **argv)
{
    static struct sock_filter filter[MAX_INSNS];
    int n = 0;
    filter[n++] = load(offsetof(struct seccomp_data, arch));
    filter[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NATIVE_AUDIT_ARCH, 1, 0);
    filter[n++] = give(SECCOMP_RET_KILL_PROCESS);
    int i = 1;
    int rules = 0;
    for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
        if (++rules > MAX_RULES) {
            fprintf(stderr, "fail_syscalls: more than %d rules\n", MAX_RULES);
            return 127;
        }
        struct rule rule = parse_rule(argv[i]);
        n += emit_rule(filter + n, &rule);
    }
    if (rules == 0 || i + 1 >= argc)
        return usage(argv[0]);
    filter[n++] = give(SECCOMP_RET_ALLOW);

    struct sock_fprog prog = { .len = (unsigned short)n, .filter = filter };
    if (prctl(PR_SET_NO_NEW_PRIVS, 1L, 0L, 0L, 0L) != 0) {
        fprintf(stderr, "fail_syscalls: prctl(PR_SET_NO_NEW_PRIVS): %s\n", strerror(errno));
        return 127;
    }
    if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0L, 0L) != 0) {
        fprintf(stderr, "fail_syscalls: prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER): %s\n", strerror(errno));
        return 127;
    }
    char **program = argv + i + 1;
    execvp(program[0], program);
    fprintf(stderr, "fail_syscalls: cannot run %s: %s\n", program[0], strerror(errno));
    return 127;
}
