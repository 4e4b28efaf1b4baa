/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

/*
 * The face of OffHeap.java: where a direct buffer's memory is, for Java to pass back to C.
 *
 * A buffer that views a memory segment (MemorySegment.asByteBuffer) has no address to give: its
 * arena may free the memory at any time, and the JDK's channels keep the arena open around their
 * I/O through internals that JNI code cannot use. Such a buffer has a non-null field
 * java.nio.Buffer.segment: a java.lang.foreign.MemorySegment since Java 19, a
 * jdk.internal.access.foreign.MemorySegmentProxy on 17 and 18 (jdk.incubator.foreign). The field
 * is looked up once; on a JDK without it, of either type, every direct buffer has its address.
 * Reading it costs one field load per call, next to GetDirectBufferAddress's.
 */
#include "ns_jni.h"

#include <stddef.h>
#include <stdint.h>

static const char *const segment_types[] = {
    "Ljava/lang/foreign/MemorySegment;", "Ljdk/internal/access/foreign/MemorySegmentProxy;",
};
#define SEGMENT_TYPES (sizeof(segment_types) / sizeof(segment_types[0]))
static jfieldID buffer_segment; /* java.nio.Buffer.segment, or NULL if absent */

static jint find_buffer_segment_field(JNIEnv *env)
{
    jclass cls = (*env)->FindClass(env, "java/nio/Buffer");
    if (cls == NULL)
        return JNI_ERR;
    for (size_t i = 0; i < SEGMENT_TYPES && buffer_segment == NULL; i++) {
        buffer_segment = (*env)->GetFieldID(env, cls, "segment", segment_types[i]);
        if (buffer_segment == NULL) {
            /* NoSuchFieldError: not this type, or no such field on this JDK. */
            (*env)->ExceptionClear(env);
        }
    }
    return JNI_OK;
}

void *ns_direct_memory(JNIEnv *env, jobject buffer, jlong *capacity)
{
    void *address = buffer != NULL ? (*env)->GetDirectBufferAddress(env, buffer) : NULL;
    if (address == NULL) {
        ns_throw(env, "java/lang/IllegalArgumentException", "not a direct buffer");
        return NULL;
    }
    if (buffer_segment != NULL) {
        jobject segment = (*env)->GetObjectField(env, buffer, buffer_segment);
        if (segment != NULL) {
            (*env)->DeleteLocalRef(env, segment);
            return NULL;
        }
    }
    *capacity = (*env)->GetDirectBufferCapacity(env, buffer);
    return address;
}

static jlong JNICALL off_heap_address(JNIEnv *env, jclass cls, jobject buffer)
{
    (void)cls;
    jlong capacity;
    return (jlong)(intptr_t)ns_direct_memory(env, buffer, &capacity);
}

static const JNINativeMethod off_heap_methods[] = {
    { "address", "(Ljava/nio/ByteBuffer;)J", (void *)off_heap_address },
};

jint ns_off_heap_register(JNIEnv *env, const char *package)
{
    if (find_buffer_segment_field(env) != JNI_OK)
        return JNI_ERR;
    return NS_REGISTER(env, package, "OffHeap", off_heap_methods);
}
