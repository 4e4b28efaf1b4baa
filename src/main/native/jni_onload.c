/* Every native method of the library, one table per Java class. */
#include "ns_jni.h"

#include <stddef.h>

#define PACKAGE "io/github/nativeselector/internal/"

static const JNINativeMethod jdk_channels_methods[] = {
    { "builtInProvider", "()Ljava/nio/channels/spi/SelectorProvider;", (void *)ns_jdk_builtin_provider },
    { "fd", "(Ljava/lang/Object;)I", (void *)ns_jdk_fd },
    { "kill", "(Ljava/lang/Object;)V", (void *)ns_jdk_kill },
    { "providerFieldFound", "()Z", (void *)ns_jdk_provider_field_found },
    { "setProvider",
      "(Ljava/nio/channels/spi/AbstractSelectableChannel;Ljava/nio/channels/spi/SelectorProvider;)V",
      (void *)ns_jdk_set_provider },
};

static const JNINativeMethod off_heap_methods[] = {
    { "address", "(Ljava/nio/ByteBuffer;)J", (void *)ns_buffer_address },
};

static const JNINativeMethod errno_methods[] = {
    { "describe", "(I)Ljava/lang/String;", (void *)ns_errno_describe },
};

#ifdef __linux__
static const JNINativeMethod epoll_methods[] = {
    { "create", "(I)J", (void *)ns_epoll_jni_open },
    { "apply", "(JJIZ)I", (void *)ns_epoll_jni_apply },
    { "poll", "(JJII)I", (void *)ns_epoll_jni_poll },
    { "wakeup", "(J)V", (void *)ns_epoll_jni_wakeup },
    { "close", "(J)V", (void *)ns_epoll_jni_close },
};

static const JNINativeMethod uring_methods[] = {
    { "create", "(I)J", (void *)ns_uring_jni_open },
    { "apply", "(JJIZ)I", (void *)ns_uring_jni_apply },
    { "poll", "(JJII)I", (void *)ns_uring_jni_poll },
    { "wakeup", "(J)V", (void *)ns_uring_jni_wakeup },
    { "close", "(J)V", (void *)ns_uring_jni_close },
};
#endif

static const JNINativeMethod pollset_methods[] = {
    { "create", "(I)J", (void *)ns_pollset_jni_open },
    { "apply", "(JJIZ)I", (void *)ns_pollset_jni_apply },
    { "poll", "(JJII)I", (void *)ns_pollset_jni_poll },
    { "wakeup", "(J)V", (void *)ns_pollset_jni_wakeup },
    { "close", "(J)V", (void *)ns_pollset_jni_close },
};

static int register_table(JNIEnv *env, const char *class_name, const JNINativeMethod *methods,
                          int count)
{
    jclass cls = (*env)->FindClass(env, class_name);
    if (cls == NULL)
        return JNI_ERR;
    return (*env)->RegisterNatives(env, cls, methods, count);
}

#define REGISTER(env, name, table) \
    register_table(env, PACKAGE name, table, (int)(sizeof(table) / sizeof(table[0])))

JNIEXPORT jint JNICALL JNI_OnLoad(JavaVM *vm, void *reserved)
{
    (void)reserved;
    JNIEnv *env;
    if ((*vm)->GetEnv(vm, (void **)&env, JNI_VERSION_1_8) != JNI_OK)
        return JNI_ERR;
    if (ns_jdk_channels_init(env) != JNI_OK
        || REGISTER(env, "JdkChannels", jdk_channels_methods) != JNI_OK
        || REGISTER(env, "OffHeap", off_heap_methods) != JNI_OK
        || REGISTER(env, "Errno", errno_methods) != JNI_OK
        || REGISTER(env, "PollsetBackend", pollset_methods) != JNI_OK)
        return JNI_ERR;
#ifdef __linux__
    if (REGISTER(env, "EpollBackend", epoll_methods) != JNI_OK
        || REGISTER(env, "UringBackend", uring_methods) != JNI_OK)
        return JNI_ERR;
#endif
    return JNI_VERSION_1_8;
}
