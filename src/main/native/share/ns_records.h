/*
 * The records the Java selector and every backend exchange through off-heap memory.
 *
 * A batch is an array of struct ns_change written by Java (ChangeBatch.java) and applied
 * by a backend in one JNI call. A poll fills an array of struct ns_ready that Java reads
 * back (ReadyArray.java). Both layouts are fixed here and mirrored, offset by offset, on
 * the Java side; the static assertions below keep the C side from drifting.
 *
 * Event bits are Linux poll(2) values on every platform: a backend whose kernel uses
 * other values translates at its own edge, so the Java side has one set of constants.
 */
#ifndef NS_BATCH_H
#define NS_BATCH_H

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

/* One registration change; 24 bytes. */
struct ns_change {
    uint64_t token;  /* slot | generation << 32, bit 63 clear (free for a backend's own
                        requests): comes back in ns_ready.token */
    int32_t fd;
    uint32_t events; /* NS_IN | NS_OUT, for ADD and MOD */
    int32_t op;      /* enum ns_change_op */
    int32_t error;   /* written by the backend: 0, or the errno the kernel gave */
};

/* One ready channel; 16 bytes. */
struct ns_ready {
    uint64_t token;  /* as registered, or NS_WAKEUP_TOKEN */
    uint32_t events; /* NS_* bits that occurred */
    uint32_t reserved;
};

/* The token of the wakeup event: a slot no key can have. */
#define NS_WAKEUP_TOKEN UINT64_MAX

_Static_assert(sizeof(struct ns_change) == 24, "ChangeBatch.RECORD_SIZE");
_Static_assert(__builtin_offsetof(struct ns_change, fd) == 8, "ChangeBatch.FD");
_Static_assert(__builtin_offsetof(struct ns_change, events) == 12, "ChangeBatch.EVENTS");
_Static_assert(__builtin_offsetof(struct ns_change, op) == 16, "ChangeBatch.OP");
_Static_assert(__builtin_offsetof(struct ns_change, error) == 20, "ChangeBatch.ERROR");
_Static_assert(sizeof(struct ns_ready) == 16, "ReadyArray.RECORD_SIZE");
_Static_assert(__builtin_offsetof(struct ns_ready, events) == 8, "ReadyArray.EVENTS");

#endif
