/* The face of EpollBackend.java: each function calls the backend once and maps its errno. */
#include "epoll_backend.h"
#include "ns_jni.h"

#include <errno.h>
#include <stdint.h>

static struct ns_epoll *backend(jlong handle)
{
    return (struct ns_epoll *)(intptr_t)handle;
}

jlong JNICALL ns_epoll_jni_open(JNIEnv *env, jclass cls, jint capacity)
{
    (void)cls;
    struct ns_epoll *ep;
    int err = ns_epoll_open(capacity, &ep);
    if (err < 0) {
        ns_throw_io(env, -err, "epoll backend: open");
        return 0;
    }
    return (jlong)(intptr_t)ep;
}

/* epoll_ctl takes effect at once: every apply is synchronous. */
jint JNICALL ns_epoll_jni_apply(JNIEnv *env, jclass cls, jlong handle, jlong changes, jint count,
                                jboolean sync)
{
    (void)env;
    (void)cls;
    (void)sync;
    return ns_epoll_apply(backend(handle), (struct ns_change *)(intptr_t)changes, count);
}

jint JNICALL ns_epoll_jni_poll(JNIEnv *env, jclass cls, jlong handle, jlong ready, jint capacity,
                               jint timeout_ms)
{
    (void)cls;
    int n = ns_epoll_poll(backend(handle), (struct ns_ready *)(intptr_t)ready, capacity, timeout_ms);
    if (n == -EINTR)
        return -1;
    if (n < 0) {
        ns_throw_io(env, -n, "epoll_wait");
        return 0;
    }
    return n;
}

void JNICALL ns_epoll_jni_wakeup(JNIEnv *env, jclass cls, jlong handle)
{
    (void)cls;
    int err = ns_epoll_wakeup(backend(handle));
    if (err < 0)
        ns_throw_io(env, -err, "epoll backend: wakeup");
}

void JNICALL ns_epoll_jni_close(JNIEnv *env, jclass cls, jlong handle)
{
    (void)env;
    (void)cls;
    ns_epoll_close(backend(handle));
}
