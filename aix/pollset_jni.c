/* The face of PollsetBackend.java: each function calls the backend once and maps its errno. */
#include "ns_jni.h"
#include "pollset_backend.h"

#include <errno.h>
#include <stdint.h>

static struct ns_pollset *backend(jlong handle)
{
    return (struct ns_pollset *)(intptr_t)handle;
}

jlong JNICALL ns_pollset_jni_open(JNIEnv *env, jclass cls, jint capacity)
{
    (void)cls;
    struct ns_pollset *ps;
    int err = ns_pollset_open(capacity, &ps);
    if (err < 0) {
        ns_throw_io(env, -err, "pollset backend: open");
        return 0;
    }
    return (jlong)(intptr_t)ps;
}

/* pollset_ctl takes effect at once: every apply is synchronous. */
jint JNICALL ns_pollset_jni_apply(JNIEnv *env, jclass cls, jlong handle, jlong changes, jint count,
                                  jboolean sync)
{
    (void)cls;
    (void)sync;
    int calls = ns_pollset_apply(backend(handle), (struct ns_change *)(intptr_t)changes, count);
    if (calls < 0) {
        ns_throw_io(env, -calls, "pollset_ctl");
        return 0;
    }
    return calls;
}

jint JNICALL ns_pollset_jni_poll(JNIEnv *env, jclass cls, jlong handle, jlong ready, jint capacity,
                                 jint timeout_ms)
{
    (void)cls;
    int n = ns_pollset_poll(backend(handle), (struct ns_ready *)(intptr_t)ready, capacity, timeout_ms);
    if (n == -EINTR)
        return -1;
    if (n < 0) {
        ns_throw_io(env, -n, "pollset_poll");
        return 0;
    }
    return n;
}

void JNICALL ns_pollset_jni_wakeup(JNIEnv *env, jclass cls, jlong handle)
{
    (void)cls;
    int err = ns_pollset_wakeup(backend(handle));
    if (err < 0)
        ns_throw_io(env, -err, "pollset backend: wakeup");
}

void JNICALL ns_pollset_jni_close(JNIEnv *env, jclass cls, jlong handle)
{
    (void)env;
    (void)cls;
    ns_pollset_close(backend(handle));
}
