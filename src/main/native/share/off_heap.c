/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

/* The face of OffHeap.java: where a direct buffer's memory is, for Java to pass back to C. */
#include "ns_jni.h"

#include <stdint.h>

static jlong JNICALL off_heap_address(JNIEnv *env, jclass cls, jobject buffer)
{
    (void)cls;
    void *address = (*env)->GetDirectBufferAddress(env, buffer);
    if (address == NULL)
        ns_throw(env, "java/lang/IllegalArgumentException", "not a direct buffer");
    return (jlong)(intptr_t)address;
}

static const JNINativeMethod off_heap_methods[] = {
    { "address", "(Ljava/nio/ByteBuffer;)J", (void *)off_heap_address },
};

jint ns_off_heap_register(JNIEnv *env, const char *package)
{
    return NS_REGISTER(env, package, "OffHeap", off_heap_methods);
}
