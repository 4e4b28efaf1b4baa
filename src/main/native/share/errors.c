/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

#include "ns_jni.h"

#include <stdio.h>
#include <string.h>

/* text with every byte outside ASCII made '?', which NewStringUTF takes as it is. */
static jstring ascii_string(JNIEnv *env, const char *text)
{
    char copy[512];
    snprintf(copy, sizeof(copy), "%s", text);
    for (char *c = copy; *c != '\0'; c++) {
        if ((unsigned char)*c >= 0x80)
            *c = '?';
    }
    return (*env)->NewStringUTF(env, copy);
}

/* sun.jnu.encoding as the JVM started with it (a global reference), or NULL where it could not be read. */
static jstring jnu_encoding;

/*
 * text as a Java string, decoded as the JDK decodes the C library's text (strerror's, a file's
 * name): in sun.jnu.encoding, the encoding of the locale, which need not be UTF-8, while
 * NewStringUTF takes modified UTF-8 only. ASCII, all of the library's own messages, is taken as
 * it is; text the encoding cannot be had or used for keeps its ASCII. NULL with an exception
 * pending when the JVM is out of memory.
 */
static jstring platform_string(JNIEnv *env, const char *text)
{
    size_t length = strlen(text);
    size_t ascii = 0;
    while (ascii < length && (unsigned char)text[ascii] < 0x80)
        ascii++;
    if (ascii == length)
        return (*env)->NewStringUTF(env, text);
    jstring decoded = NULL;
    jclass string = jnu_encoding == NULL ? NULL : (*env)->FindClass(env, "java/lang/String");
    jmethodID init = string == NULL ? NULL : (*env)->GetMethodID(env, string, "<init>", "([BLjava/lang/String;)V");
    jbyteArray bytes = init == NULL ? NULL : (*env)->NewByteArray(env, (jsize)length);
    if (bytes != NULL) {
        (*env)->SetByteArrayRegion(env, bytes, 0, (jsize)length, (const jbyte *)text);
        decoded = (*env)->NewObject(env, string, init, bytes, jnu_encoding);
    }
    /* An encoding this JDK cannot decode, or no memory for the steps to it. */
    if ((*env)->ExceptionCheck(env)) {
        (*env)->ExceptionClear(env);
        decoded = NULL;
    }
    (*env)->DeleteLocalRef(env, string);
    (*env)->DeleteLocalRef(env, bytes);
    return decoded != NULL ? decoded : ascii_string(env, text);
}

void ns_throw(JNIEnv *env, const char *class_name, const char *message)
{
    /* Each failure below has left an exception pending (NoClassDefFoundError, OutOfMemoryError):
       that is thrown instead. */
    jclass cls = (*env)->FindClass(env, class_name);
    jmethodID init = cls == NULL ? NULL : (*env)->GetMethodID(env, cls, "<init>", "(Ljava/lang/String;)V");
    jstring java_text = init == NULL ? NULL : platform_string(env, message);
    jobject exception = java_text == NULL ? NULL : (*env)->NewObject(env, cls, init, java_text);
    if (exception != NULL)
        (*env)->Throw(env, (jthrowable)exception);
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
    return platform_string(env, describe(err, text, sizeof(text)));
}

static const JNINativeMethod errno_methods[] = {
    { "describe", "(I)Ljava/lang/String;", (void *)errno_describe },
};

/*
 * Reads sun.jnu.encoding once, as the JDK does: a later System.setProperty does not change how the
 * JDK decodes, and a security manager may deny the read to a later caller. Not being able to read
 * it leaves error texts their ASCII.
 */
static void read_jnu_encoding(JNIEnv *env)
{
    jclass system = (*env)->FindClass(env, "java/lang/System");
    jmethodID get_property = system == NULL ? NULL
        : (*env)->GetStaticMethodID(env, system, "getProperty", "(Ljava/lang/String;)Ljava/lang/String;");
    jstring name = get_property == NULL ? NULL : (*env)->NewStringUTF(env, "sun.jnu.encoding");
    jobject encoding = name == NULL ? NULL : (*env)->CallStaticObjectMethod(env, system, get_property, name);
    if ((*env)->ExceptionCheck(env)) {
        (*env)->ExceptionClear(env);
        encoding = NULL;
    }
    if (encoding != NULL && (jnu_encoding = (*env)->NewGlobalRef(env, encoding)) == NULL)
        (*env)->ExceptionClear(env);
    (*env)->DeleteLocalRef(env, system);
    (*env)->DeleteLocalRef(env, name);
    (*env)->DeleteLocalRef(env, encoding);
}

jint ns_errno_register(JNIEnv *env, const char *package)
{
    read_jnu_encoding(env);
    return NS_REGISTER(env, package, "Errno", errno_methods);
}

void ns_errno_release(JNIEnv *env)
{
    if (jnu_encoding != NULL)
        (*env)->DeleteGlobalRef(env, jnu_encoding);
    jnu_encoding = NULL;
}
