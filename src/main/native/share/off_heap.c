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
 * The address itself is read from the buffer's fields where this JDK has them (one field load
 * each), else asked of GetDirectBufferAddress.
 */
#include "ns_jni.h"

#include <stddef.h>
#include <stdint.h>

static const char *const segment_types[] = {
    "Ljava/lang/foreign/MemorySegment;", "Ljdk/internal/access/foreign/MemorySegmentProxy;",
};
#define SEGMENT_TYPES (sizeof(segment_types) / sizeof(segment_types[0]))
static jfieldID buffer_segment; /* java.nio.Buffer.segment, or NULL if absent */
/* java.nio.Buffer.address and java.nio.ByteBuffer.hb: both, or both NULL. */
static jfieldID buffer_address, byte_buffer_array;

/* The fields a direct buffer's memory is read from; a JDK without one of them leaves both NULL. */
static jint find_buffer_memory_fields(JNIEnv *env, jclass buffer)
{
    jclass byte_buffer = (*env)->FindClass(env, "java/nio/ByteBuffer");
    if (byte_buffer == NULL)
        return JNI_ERR;
    buffer_address = (*env)->GetFieldID(env, buffer, "address", "J");
    byte_buffer_array = buffer_address != NULL ? (*env)->GetFieldID(env, byte_buffer, "hb", "[B") : NULL;
    if (byte_buffer_array == NULL) {
        (*env)->ExceptionClear(env);
        buffer_address = NULL;
    }
    return JNI_OK;
}

static jint find_buffer_fields(JNIEnv *env)
{
    jclass cls = (*env)->FindClass(env, "java/nio/Buffer");
    if (cls == NULL)
        return JNI_ERR;
    if (find_buffer_memory_fields(env, cls) != JNI_OK)
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

/*
 * The buffer's memory from its fields, as the JDK's own Java code reads it: GetDirectBufferAddress
 * checks the buffer's class first, which costs more. Only a ByteBuffer without a backing array is
 * direct.
 */
static void *direct_memory_of(JNIEnv *env, jobject buffer)
{
    if (buffer_address == NULL)
        return (*env)->GetDirectBufferAddress(env, buffer);
    jobject array = (*env)->GetObjectField(env, buffer, byte_buffer_array);
    if (array != NULL) {
        (*env)->DeleteLocalRef(env, array);
        return NULL;
    }
    return (void *)(intptr_t)(*env)->GetLongField(env, buffer, buffer_address);
}

/*
 * OffHeap.address: a direct buffer's memory; 0 with no exception pending for a buffer that views a
 * memory segment, and 0 with IllegalArgumentException for a null or heap buffer.
 */
static jlong JNICALL off_heap_address(JNIEnv *env, jclass cls, jobject buffer)
{
    (void)cls;
    void *address = buffer != NULL ? direct_memory_of(env, buffer) : NULL;
    if (address == NULL) {
        ns_throw(env, "java/lang/IllegalArgumentException", "not a direct buffer");
        return 0;
    }
    if (buffer_segment != NULL) {
        jobject segment = (*env)->GetObjectField(env, buffer, buffer_segment);
        if (segment != NULL) {
            (*env)->DeleteLocalRef(env, segment);
            return 0;
        }
    }
    return (jlong)(intptr_t)address;
}

static const JNINativeMethod off_heap_methods[] = {
    { "address", "(Ljava/nio/ByteBuffer;)J", (void *)off_heap_address },
};

jint ns_off_heap_register(JNIEnv *env, const char *package)
{
    if (find_buffer_fields(env) != JNI_OK)
        return JNI_ERR;
    return NS_REGISTER(env, package, "OffHeap", off_heap_methods);
}
