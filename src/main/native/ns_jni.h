/*
 * JNI glue shared by every backend.
 *
 * JNI_OnLoad (jni_onload.c) registers every native method of the library in one table per
 * Java class. The functions behind the tables are thin: they call the C function of a
 * backend or of the JDK, and turn a negative errno into a java.io.IOException.
 */
#ifndef NS_JNI_H
#define NS_JNI_H

#include <jni.h>

/* Throws IOException("<what>: <strerror(err)>"); err is a positive errno. */
void ns_throw_io(JNIEnv *env, int err, const char *what);

/* Throws the named exception class with a message. */
void ns_throw(JNIEnv *env, const char *class_name, const char *message);

/* jdk_channels.c: the JDK's built-in provider and its channels' internals (sun.nio.ch). */
jint ns_jdk_channels_init(JNIEnv *env);
jobject JNICALL ns_jdk_builtin_provider(JNIEnv *env, jclass cls);
jboolean JNICALL ns_jdk_provider_field_found(JNIEnv *env, jclass cls);
void JNICALL ns_jdk_set_provider(JNIEnv *env, jclass cls, jobject channel, jobject provider);
jint JNICALL ns_jdk_fd(JNIEnv *env, jclass cls, jobject channel);
void JNICALL ns_jdk_kill(JNIEnv *env, jclass cls, jobject channel);

/* linux/epoll_jni.c: the face of EpollBackend.java. */
jlong JNICALL ns_epoll_jni_open(JNIEnv *env, jclass cls, jint capacity);
jint JNICALL ns_epoll_jni_apply(JNIEnv *env, jclass cls, jlong handle, jlong changes, jint count,
                                jboolean sync);
jint JNICALL ns_epoll_jni_poll(JNIEnv *env, jclass cls, jlong handle, jlong ready, jint capacity,
                               jint timeout_ms);
void JNICALL ns_epoll_jni_wakeup(JNIEnv *env, jclass cls, jlong handle);
void JNICALL ns_epoll_jni_close(JNIEnv *env, jclass cls, jlong handle);

/* strerror(errno) as a Java string. */
jstring JNICALL ns_errno_describe(JNIEnv *env, jclass cls, jint err);

/* linux/uring_jni.c: the face of UringBackend.java. */
jlong JNICALL ns_uring_jni_open(JNIEnv *env, jclass cls, jint capacity);
jint JNICALL ns_uring_jni_apply(JNIEnv *env, jclass cls, jlong handle, jlong changes, jint count,
                                jboolean sync);
jint JNICALL ns_uring_jni_poll(JNIEnv *env, jclass cls, jlong handle, jlong ready, jint capacity,
                               jint timeout_ms);
void JNICALL ns_uring_jni_wakeup(JNIEnv *env, jclass cls, jlong handle);
void JNICALL ns_uring_jni_close(JNIEnv *env, jclass cls, jlong handle);

/* aix/pollset_jni.c: the face of PollsetBackend.java (AIX, or Linux through aix/pollset-on-linux). */
jlong JNICALL ns_pollset_jni_open(JNIEnv *env, jclass cls, jint capacity);
jint JNICALL ns_pollset_jni_apply(JNIEnv *env, jclass cls, jlong handle, jlong changes, jint count,
                                  jboolean sync);
jint JNICALL ns_pollset_jni_poll(JNIEnv *env, jclass cls, jlong handle, jlong ready, jint capacity,
                                 jint timeout_ms);
void JNICALL ns_pollset_jni_wakeup(JNIEnv *env, jclass cls, jlong handle);
void JNICALL ns_pollset_jni_close(JNIEnv *env, jclass cls, jlong handle);

/* Offset of a direct buffer's memory, for Java to pass back as an address. */
jlong JNICALL ns_buffer_address(JNIEnv *env, jclass cls, jobject buffer);

#endif
