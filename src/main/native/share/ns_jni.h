/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

/*
 * JNI glue shared by every part of the library.
 *
 * Each C file that Java calls keeps its table of native methods beside the functions it names
 * and registers it in its ns_*_register function; JNI_OnLoad (jni_onload.c) calls them all.
 * The functions behind the tables are thin: they call a backend or the JDK once, and turn a
 * negative errno into a java.io.IOException.
 */
#ifndef NS_JNI_H
#define NS_JNI_H

#include <jni.h>

/* Throws IOException("<what>: <strerror(err)> (errno <err>)"); err is a positive errno. */
void ns_throw_io(JNIEnv *env, int err, const char *what);

/* Throws the named exception class with a message, which is decoded as the JDK decodes the C
   library's text (sun.jnu.encoding) where it is not ASCII. */
void ns_throw(JNIEnv *env, const char *class_name, const char *message);

/* Throws the named exception class with strerror(err) as its message, as the JDK words errors. */
void ns_throw_errno(JNIEnv *env, const char *class_name, int err);

/*
 * Registers `count` methods on the class `simple_name` of `package` ("a/b/c/", the internal
 * package as loaded), or of a package below it ("sub/Name"). Returns JNI_OK, or JNI_ERR with an
 * exception pending.
 */
jint ns_register_natives(JNIEnv *env, const char *package, const char *simple_name,
                         const JNINativeMethod *methods, int count);

#define NS_REGISTER(env, package, simple_name, table) \
    ns_register_natives(env, package, simple_name, table, (int)(sizeof(table) / sizeof(table[0])))

/* Each registers the natives of one Java class of `package`. */
jint ns_backend_register(JNIEnv *env, const char *package);      /* backend_jni.c: NativeBackend */
jint ns_jdk_channels_register(JNIEnv *env, const char *package); /* jdk_channels.c: JdkChannels */
jint ns_errno_register(JNIEnv *env, const char *package);        /* errors.c: Errno */
jint ns_off_heap_register(JNIEnv *env, const char *package);     /* off_heap.c: OffHeap */
#ifdef __linux__
jint ns_lean_sockets_register(JNIEnv *env, const char *package); /* linux/lean_sockets_jni.c: lean/Sockets */
#endif

/* Free the global references ns_jdk_channels_register and ns_errno_register took. */
void ns_jdk_channels_release(JNIEnv *env);
void ns_errno_release(JNIEnv *env);

#endif
