/* Registers every native method of the library when the JVM loads it. */
#include "ns_jni.h"

#include <stdio.h>

#define PACKAGE "io/github/nativeselector/internal/"

jint ns_register_natives(JNIEnv *env, const char *package, const char *simple_name,
                         const JNINativeMethod *methods, int count)
{
    char class_name[512];
    int length = snprintf(class_name, sizeof(class_name), "%s%s", package, simple_name);
    if (length < 0 || (size_t)length >= sizeof(class_name)) {
        ns_throw(env, "java/lang/IllegalArgumentException", "class name too long");
        return JNI_ERR;
    }
    jclass cls = (*env)->FindClass(env, class_name);
    if (cls == NULL)
        return JNI_ERR;
    return (*env)->RegisterNatives(env, cls, methods, count) == 0 ? JNI_OK : JNI_ERR;
}

JNIEXPORT jint JNICALL JNI_OnLoad(JavaVM *vm, void *reserved)
{
    (void)reserved;
    JNIEnv *env;
    if ((*vm)->GetEnv(vm, (void **)&env, JNI_VERSION_1_8) != JNI_OK)
        return JNI_ERR;
    if (ns_jdk_channels_register(env, PACKAGE) != JNI_OK
        || ns_off_heap_register(env, PACKAGE) != JNI_OK
        || ns_errno_register(env, PACKAGE) != JNI_OK
        || ns_backend_register(env, PACKAGE) != JNI_OK)
        return JNI_ERR;
    return JNI_VERSION_1_8;
}
