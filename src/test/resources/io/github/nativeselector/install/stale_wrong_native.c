/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

/*
 * A libnativeselector.so from an older version: it registers a native method the Java class no
 * longer declares, so RegisterNatives leaves a NoSuchMethodError pending when JNI_OnLoad returns.
 */
#include <jni.h>

static void JNICALL removed(JNIEnv *env, jclass cls)
{
    (void)env;
    (void)cls;
}

JNIEXPORT jint JNICALL JNI_OnLoad(JavaVM *vm, void *reserved)
{
    (void)reserved;
    JNIEnv *env;
    if ((*vm)->GetEnv(vm, (void **)&env, JNI_VERSION_1_8) != JNI_OK)
        return JNI_ERR;
    jclass cls = (*env)->FindClass(env, "io/github/nativeselector/internal/JdkChannels");
    if (cls == NULL)
        return JNI_ERR;
    JNINativeMethod method = { "removedInThisVersion", "()V", (void *)removed };
    (*env)->RegisterNatives(env, cls, &method, 1);
    return JNI_VERSION_1_8;
}
