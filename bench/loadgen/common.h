/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

/*
 * What the load generator and the C server share: the request/reply protocol, errors, time.
 *
 * The protocol, spoken by every server the harness measures:
 *
 *   A request is R bytes. Bytes 0-3 hold R and bytes 4-7 the reply length P, both unsigned
 *   big-endian; the other R - 8 bytes are anything. The reply is P bytes, the request repeated:
 *   reply[i] = request[i % R]. 8 <= R <= 64 KiB and 1 <= P <= 64 KiB.
 *
 * An echo is the case P == R, so any plain echo server answers it. The connect-request-
 * response-close load sends 64-byte requests for 8 KiB replies. Each reply depends on the bytes
 * of its own request, so the client can check that a reply is the one it asked for.
 */
#ifndef BENCH_COMMON_H
#define BENCH_COMMON_H

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PROTOCOL_HEADER_BYTES 8u
#define PROTOCOL_MAX_BYTES 65536u

/* ---- errors ------------------------------------------------------------------------------ */

__attribute__((noreturn, format(printf, 1, 2), unused)) static void die(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", program_invocation_short_name);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

/* A failed system call: the message names the call and errno. */
#define DIE_ERRNO(what, ...) die(what ": %s", ##__VA_ARGS__, strerror(errno))

/* ---- time -------------------------------------------------------------------------------- */

__attribute__((unused)) static uint64_t now_ns(void) {
    struct timespec ts;
    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0) {
        DIE_ERRNO("clock_gettime(CLOCK_MONOTONIC)");
    }
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- the protocol ------------------------------------------------------------------------ */

static inline uint32_t get_be32(const unsigned char *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static inline void put_be32(unsigned char *p, uint32_t v) {
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

/* Whether a request header's two lengths are within the protocol's bounds. */
static inline int protocol_lengths_valid(uint32_t request_len, uint32_t reply_len) {
    return request_len >= PROTOCOL_HEADER_BYTES && request_len <= PROTOCOL_MAX_BYTES && reply_len >= 1 &&
           reply_len <= PROTOCOL_MAX_BYTES;
}

/* Writes the reply to a request: reply_len bytes of the request repeated. */
static inline void protocol_fill_reply(unsigned char *reply, uint32_t reply_len, const unsigned char *request,
                                       uint32_t request_len) {
    for (uint32_t done = 0; done < reply_len; done += request_len) {
        uint32_t n = reply_len - done < request_len ? reply_len - done : request_len;
        memcpy(reply + done, request, n);
    }
}

/* Whether n bytes received at offset `at` of a reply are what the request asks for. */
static inline int protocol_reply_matches(const unsigned char *request, uint32_t request_len, uint32_t at,
                                         const unsigned char *got, size_t n) {
    while (n > 0) {
        uint32_t in_request = at % request_len;
        size_t run = request_len - in_request < n ? request_len - in_request : n;
        if (memcmp(got, request + in_request, run) != 0) {
            return 0;
        }
        got += run;
        at += (uint32_t)run;
        n -= run;
    }
    return 1;
}

#endif
