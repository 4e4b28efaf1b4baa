/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

/*
 * A libnativeselector.so left over from another build whose JNI_OnLoad succeeds and registers
 * nothing: the natives the classes call are missing, an UnsatisfiedLinkError at the first.
 */
#include <jni.h>

JNIEXPORT jint JNICALL JNI_OnLoad(JavaVM *vm, void *reserved)
{
    (void)vm;
    (void)reserved;
    return JNI_VERSION_1_8;
}
