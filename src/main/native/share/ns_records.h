/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

/*
 * Everything the Java classes and the library must agree on, in one place: the records they
 * exchange through off-heap memory, the op codes and event bits in them, the tokens no key has,
 * and the flag in a poll's result.
 *
 * A batch is an array of struct ns_change written by Java (ChangeBatch.java) and applied by a
 * backend in one JNI call. A poll fills an array of struct ns_ready that Java reads back
 * (ReadyArray.java). Java keeps its own copy of each value below as a constant, for speed, and
 * checks every one against the library once, when it loads it (SharedConstants.java asks
 * backend_jni.c, which lists them): a library from another version is refused, never misread.
 * A value added here that Java relies on goes into both lists.
 *
 * Event bits are Linux poll(2) values on every platform: a backend whose kernel uses other
 * values translates at its own edge, so the Java side has one set of constants.
 */
#ifndef NS_RECORDS_H
#define NS_RECORDS_H

#include <stdint.h>

/* Events, as in Linux <poll.h>. */
#define NS_IN   0x001u
#define NS_OUT  0x004u
#define NS_ERR  0x008u
#define NS_HUP  0x010u
#define NS_NVAL 0x020u

/* What a change asks of the kernel. */
enum ns_change_op {
    NS_OP_ADD = 1, /* start watching fd for events */
    NS_OP_MOD = 2, /* replace the events watched on fd */
    NS_OP_DEL = 3  /* stop watching fd; absent or already closed is not an error */
};

/* One registration change; fixed-width fields, so no padding on any ABI. */
struct ns_change {
    uint64_t token;  /* slot | generation << 32, never with NS_BACKEND_TOKEN_BIT: comes back
                        in ns_ready.token */
    int32_t fd;
    uint32_t events; /* NS_IN | NS_OUT, for ADD and MOD */
    int32_t op;      /* enum ns_change_op */
    int32_t error;   /* written by the backend: 0, or the errno the kernel gave */
};

/* One ready channel. */
struct ns_ready {
    uint64_t token;  /* as registered, or NS_WAKEUP_TOKEN */
    uint32_t events; /* NS_* bits that occurred */
    uint32_t reserved;
};

/* The token of the wakeup event: a slot no key can have. */
#define NS_WAKEUP_TOKEN UINT64_MAX

/* The token bit no key's token has (KeyTable.java), free for a backend's own requests. */
#define NS_BACKEND_TOKEN_BIT (UINT64_C(1) << 63)

/* Set in a poll's result when the records came without a system call. */
#define NS_POLLED_WITHOUT_SYSCALL 0x40000000

#endif
