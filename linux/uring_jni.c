/* The face of UringBackend.java: each function calls the backend once and maps its errno. */
#include "ns_jni.h"
#include "uring_backend.h"

#include <errno.h>
#include <stdint.h>

static struct ns_uring *backend(jlong handle)
{
    return (struct ns_uring *)(intptr_t)handle;
}

/* Why io_uring could not start, in words a user can act on. */
static const char *setup_failure(int err)
{
    switch (err) {
    case EPERM:
        return "io_uring is unavailable: io_uring_setup was refused (a seccomp profile, as container "
               "runtimes install by default, or sysctl kernel.io_uring_disabled)";
    case ENOSYS:
        return "io_uring is unavailable: this kernel has no io_uring_setup";
    case EINVAL:
    case EOPNOTSUPP:
        return "io_uring is unavailable: this kernel's io_uring lacks what the backend needs (Linux 5.13 or later)";
    case ENOMEM:
        return "io_uring ring could not be allocated: raise the locked-memory limit (ulimit -l, "
               "RLIMIT_MEMLOCK), which rings count against before Linux 5.12";
    default:
        return "io_uring backend: open";
    }
}

jlong JNICALL ns_uring_jni_open(JNIEnv *env, jclass cls, jint capacity)
{
    (void)cls;
    struct ns_uring *ring;
    int err = ns_uring_open(capacity, &ring);
    if (err < 0) {
        ns_throw_io(env, -err, setup_failure(-err));
        return 0;
    }
    return (jlong)(intptr_t)ring;
}

jint JNICALL ns_uring_jni_apply(JNIEnv *env, jclass cls, jlong handle, jlong changes, jint count,
                                jboolean sync)
{
    (void)cls;
    int calls = ns_uring_apply(backend(handle), (struct ns_change *)(intptr_t)changes, count, sync);
    if (calls < 0) {
        ns_throw_io(env, -calls, "io_uring: submitting registration changes");
        return 0;
    }
    return calls;
}

jint JNICALL ns_uring_jni_poll(JNIEnv *env, jclass cls, jlong handle, jlong ready, jint capacity,
                               jint timeout_ms)
{
    (void)cls;
    int n = ns_uring_poll(backend(handle), (struct ns_ready *)(intptr_t)ready, capacity, timeout_ms);
    if (n == -EINTR)
        return -1;
    if (n < 0) {
        ns_throw_io(env, -n, n == -EBADR ? "io_uring: the kernel dropped completions" : "io_uring_enter");
        return 0;
    }
    return n;
}

void JNICALL ns_uring_jni_wakeup(JNIEnv *env, jclass cls, jlong handle)
{
    (void)cls;
    int err = ns_uring_wakeup(backend(handle));
    if (err < 0)
        ns_throw_io(env, -err, "io_uring backend: wakeup");
}

void JNICALL ns_uring_jni_close(JNIEnv *env, jclass cls, jlong handle)
{
    (void)env;
    (void)cls;
    ns_uring_close(backend(handle));
}
