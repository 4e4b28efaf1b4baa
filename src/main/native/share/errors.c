/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

#include "ns_jni.h"

#include <stdio.h>
#include <string.h>

void ns_throw(JNIEnv *env, const char *class_name, const char *message)
{
    jclass cls = (*env)->FindClass(env, class_name);
    /* A failed FindClass has already left NoClassDefFoundError pending: that is thrown instead. */
    if (cls != NULL)
        (*env)->ThrowNew(env, cls, message);
}

/* The text of err. GNU's strerror_r returns it, in buffer or in static storage; POSIX's (AIX)
 * fills buffer and returns 0. */
static const char *describe(int err, char *buffer, size_t size)
{
#ifdef __GLIBC__
    return strerror_r(err, buffer, size);
#else
    if (strerror_r(err, buffer, size) != 0)
        snprintf(buffer, size, "unknown error %d", err);
    return buffer;
#endif
}

void ns_throw_errno(JNIEnv *env, const char *class_name, int err)
{
    char text[256];
    ns_throw(env, class_name, describe(err, text, sizeof(text)));
}

void ns_throw_io(JNIEnv *env, int err, const char *what)
{
    char text[256];
    char message[512];
    snprintf(message, sizeof(message), "%s: %s (errno %d)", what, describe(err, text, sizeof(text)), err);
    ns_throw(env, "java/io/IOException", message);
}

static jstring JNICALL errno_describe(JNIEnv *env, jclass cls, jint err)
{
    (void)cls;
    char text[256];
    return (*env)->NewStringUTF(env, describe(err, text, sizeof(text)));
}

static const JNINativeMethod errno_methods[] = {
    { "describe", "(I)Ljava/lang/String;", (void *)errno_describe },
};

jint ns_errno_register(JNIEnv *env, const char *package)
{
    return NS_REGISTER(env, package, "Errno", errno_methods);
}
