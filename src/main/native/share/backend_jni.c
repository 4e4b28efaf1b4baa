/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

/*
 * The face of NativeBackend.java: each function calls one operation of a backend (ns_backend.h)
 * and turns its errno into an IOException worded by the backend; one more gives Java the values
 * of ns_records.h to check its own against, and on Linux the system's values that the lean socket
 * channels (lean/Sockets.java) hand to the kernel as they are.
 */
#include "ns_backend.h"
#include "ns_jni.h"

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#ifdef __linux__
#include <limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#endif

/* A value Java mirrors, named by the C expression that gives it. */
struct shared_constant {
    const char *name;
    jlong value;
};

/* Variadic so that offsetof's comma stays inside one argument; # names the value as written. */
#define SHARED(...) { #__VA_ARGS__, (jlong)(__VA_ARGS__) }

/* Every value Java mirrors (SharedConstants.java asks for each by name when it loads the library). */
static const struct shared_constant shared_constants[] = {
    SHARED(sizeof(struct ns_change)),
    SHARED(offsetof(struct ns_change, token)),
    SHARED(offsetof(struct ns_change, fd)),
    SHARED(offsetof(struct ns_change, events)),
    SHARED(offsetof(struct ns_change, op)),
    SHARED(offsetof(struct ns_change, error)),
    SHARED(sizeof(struct ns_ready)),
    SHARED(offsetof(struct ns_ready, token)),
    SHARED(offsetof(struct ns_ready, events)),
    SHARED(NS_OP_ADD),
    SHARED(NS_OP_MOD),
    SHARED(NS_OP_DEL),
    SHARED(NS_IN),
    SHARED(NS_OUT),
    SHARED(NS_ERR),
    SHARED(NS_HUP),
    SHARED(NS_NVAL),
    SHARED(NS_WAKEUP_TOKEN),
    SHARED(NS_BACKEND_TOKEN_BIT),
    SHARED(NS_POLLED_WITHOUT_SYSCALL),
    SHARED(NS_OPEN_WITHOUT_RING),
    SHARED(NS_RING_OFF),
    SHARED(NS_NO_RING),
#ifdef __linux__
    SHARED(sizeof(struct iovec)),
    SHARED(offsetof(struct iovec, iov_base)),
    SHARED(offsetof(struct iovec, iov_len)),
    SHARED(IOV_MAX),
    SHARED(SHUT_RD),
    SHARED(SHUT_WR),
    SHARED(SHUT_RDWR),
    SHARED(POLLIN),
    SHARED(POLLOUT),
    SHARED(POLLERR),
    SHARED(POLLHUP),
    SHARED(POLLNVAL),
    SHARED(SOL_SOCKET),
    SHARED(SO_REUSEADDR),
    SHARED(SO_SNDBUF),
    SHARED(SO_RCVBUF),
    SHARED(SO_KEEPALIVE),
    SHARED(SO_OOBINLINE),
    SHARED(SO_LINGER),
    SHARED(SO_REUSEPORT),
    SHARED(SO_INCOMING_NAPI_ID),
    SHARED(IPPROTO_IP),
    SHARED(IP_TOS),
    SHARED(IPPROTO_TCP),
    SHARED(TCP_NODELAY),
    SHARED(TCP_KEEPIDLE),
    SHARED(TCP_KEEPINTVL),
    SHARED(TCP_KEEPCNT),
    SHARED(TCP_QUICKACK),
    SHARED(IPPROTO_IPV6),
    SHARED(IPV6_TCLASS),
#endif
};

static struct ns_backend *backend(jlong handle)
{
    return (struct ns_backend *)(intptr_t)handle;
}

static const struct ns_backend_ops *named(const char *name)
{
    for (const struct ns_backend_ops *const *ops = ns_backends; *ops != NULL; ops++) {
        if (strcmp((*ops)->name, name) == 0)
            return *ops;
    }
    return NULL;
}

/* Why this build has no backend of that name, in words a user can act on. */
static const char *absence(const char *name)
{
    for (const struct ns_backend_absence *absent = ns_absent_backends; absent->name != NULL; absent++) {
        if (strcmp(absent->name, name) == 0)
            return absent->reason;
    }
    return NULL;
}

static void throw_failure(JNIEnv *env, const struct ns_backend_ops *ops, enum ns_backend_call call, int err)
{
    const char *explained = ops->explain != NULL ? ops->explain(call, err) : NULL;
    ns_throw_io(env, err, explained != NULL ? explained : ops->calls[call]);
}

static jlong JNICALL backend_open(JNIEnv *env, jclass cls, jstring name, jint capacity, jint options)
{
    (void)cls;
    if (name == NULL) {
        ns_throw(env, "java/lang/NullPointerException", "backend name");
        return 0;
    }
    const char *chars = (*env)->GetStringUTFChars(env, name, NULL);
    if (chars == NULL)
        return 0; /* OutOfMemoryError pending */
    const struct ns_backend_ops *ops = named(chars);
    if (ops == NULL) {
        char message[256];
        const char *reason = absence(chars);
        if (reason == NULL) {
            snprintf(message, sizeof(message), "this library has no %s backend", chars);
            reason = message;
        }
        (*env)->ReleaseStringUTFChars(env, name, chars);
        ns_throw(env, "java/io/IOException", reason);
        return 0;
    }
    (*env)->ReleaseStringUTFChars(env, name, chars);
    struct ns_backend *b;
    int err = ops->open(capacity, options, &b);
    if (err < 0) {
        throw_failure(env, ops, NS_CALL_OPEN, -err);
        return 0;
    }
    return (jlong)(intptr_t)b;
}

static jboolean JNICALL backend_applies_during_poll(JNIEnv *env, jclass cls, jlong handle)
{
    (void)env;
    (void)cls;
    return backend(handle)->ops->applies_during_poll ? JNI_TRUE : JNI_FALSE;
}

static jint JNICALL backend_apply(JNIEnv *env, jclass cls, jlong handle, jlong changes, jint count,
                                  jboolean sync)
{
    (void)cls;
    struct ns_backend *b = backend(handle);
    int calls = b->ops->apply(b, (struct ns_change *)(intptr_t)changes, count, sync);
    if (calls < 0) {
        throw_failure(env, b->ops, NS_CALL_APPLY, -calls);
        return 0;
    }
    return calls;
}

static jint JNICALL backend_poll(JNIEnv *env, jclass cls, jlong handle, jlong ready, jint capacity,
                                 jint timeout_ms)
{
    (void)cls;
    struct ns_backend *b = backend(handle);
    int n = b->ops->poll(b, (struct ns_ready *)(intptr_t)ready, capacity, timeout_ms);
    if (n == -EINTR)
        return -1;
    if (n < 0) {
        throw_failure(env, b->ops, NS_CALL_POLL, -n);
        return 0;
    }
    return n;
}

static void JNICALL backend_wakeup(JNIEnv *env, jclass cls, jlong handle)
{
    (void)cls;
    struct ns_backend *b = backend(handle);
    int err = b->ops->wakeup(b);
    if (err < 0)
        throw_failure(env, b->ops, NS_CALL_WAKEUP, -err);
}

/* ring_status (ns_backend.h), or NS_NO_RING for a backend with no ring of its own to go through. */
static jint JNICALL backend_ring_status(JNIEnv *env, jclass cls, jlong handle)
{
    (void)env;
    (void)cls;
    struct ns_backend *b = backend(handle);
    return b->ops->ring_status != NULL ? b->ops->ring_status(b) : NS_NO_RING;
}

static void JNICALL backend_close(JNIEnv *env, jclass cls, jlong handle)
{
    (void)env;
    (void)cls;
    struct ns_backend *b = backend(handle);
    b->ops->close(b);
}

static jlong JNICALL backend_shared_constant(JNIEnv *env, jclass cls, jstring name)
{
    (void)cls;
    if (name == NULL) {
        ns_throw(env, "java/lang/NullPointerException", "constant name");
        return 0;
    }
    const char *chars = (*env)->GetStringUTFChars(env, name, NULL);
    if (chars == NULL)
        return 0; /* OutOfMemoryError pending */
    for (size_t i = 0; i < sizeof(shared_constants) / sizeof(shared_constants[0]); i++) {
        if (strcmp(shared_constants[i].name, chars) == 0) {
            (*env)->ReleaseStringUTFChars(env, name, chars);
            return shared_constants[i].value;
        }
    }
    (*env)->ReleaseStringUTFChars(env, name, chars);
    ns_throw(env, "java/util/NoSuchElementException", "this library does not define that constant");
    return 0;
}

static const JNINativeMethod backend_methods[] = {
    { "open", "(Ljava/lang/String;II)J", (void *)backend_open },
    { "appliesDuringPoll", "(J)Z", (void *)backend_applies_during_poll },
    { "apply", "(JJIZ)I", (void *)backend_apply },
    { "poll", "(JJII)I", (void *)backend_poll },
    { "wakeup", "(J)V", (void *)backend_wakeup },
    { "ringStatus", "(J)I", (void *)backend_ring_status },
    { "close", "(J)V", (void *)backend_close },
    { "sharedConstant", "(Ljava/lang/String;)J", (void *)backend_shared_constant },
};

jint ns_backend_register(JNIEnv *env, const char *package)
{
    return NS_REGISTER(env, package, "NativeBackend", backend_methods);
}
