/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

/*
 * The JDK's channels, reached without --add-exports: JNI applies no module checks.
 * sun.nio.ch.SelChImpl is the interface every selectable JDK channel implements; its fd
 * and kill() are what a selector needs. DefaultSelectorProvider.get() is the built-in
 * provider, for a modular application that cannot reach it through sun.misc.Unsafe.
 *
 * A channel's fd is read from the int field fdVal of the JDK's socket, server-socket and datagram
 * channel classes where this JDK has it: a field read costs a fraction of calling getFDVal() back
 * in Java, and registering a channel needs it every time. Any other channel, or a JDK without the
 * field, is asked through SelChImpl.
 *
 * A channel's provider() is the final field AbstractSelectableChannel.provider, set by the
 * constructor from the provider that opened it. SetObjectField ignores final, and HotSpot
 * trusts no final instance field of java.nio.channels.spi, so setting it (on a channel not yet
 * published) makes provider() return this library's provider while the channel stays the
 * JDK's. The field is looked up once; if a JDK lacks it, channels keep the JDK's provider.
 */
#include "ns_jni.h"

#include <stdint.h>

static jclass selchimpl;         /* global ref: sun.nio.ch.SelChImpl */
static jmethodID selchimpl_fd;   /* int getFDVal() */
static jmethodID selchimpl_kill; /* void kill() */
static jclass default_provider;  /* global ref: sun.nio.ch.DefaultSelectorProvider */

/* The channel classes whose fd is read as a field, most registered first. */
static const char *const fd_field_classes[] = {
    "sun/nio/ch/SocketChannelImpl", "sun/nio/ch/ServerSocketChannelImpl", "sun/nio/ch/DatagramChannelImpl",
};
#define FD_FIELD_CLASSES (sizeof(fd_field_classes) / sizeof(fd_field_classes[0]))
static struct {
    jclass cls;   /* global ref, or NULL when this JDK lacks the class or its field */
    jfieldID fd;  /* int fdVal */
} fd_fields[FD_FIELD_CLASSES];
static jmethodID default_provider_get;
static jfieldID channel_provider; /* AbstractSelectableChannel.provider, or NULL if absent */

static jint find_channel_provider_field(JNIEnv *env)
{
    jclass cls = (*env)->FindClass(env, "java/nio/channels/spi/AbstractSelectableChannel");
    if (cls == NULL)
        return JNI_ERR;
    channel_provider =
        (*env)->GetFieldID(env, cls, "provider", "Ljava/nio/channels/spi/SelectorProvider;");
    if (channel_provider == NULL) {
        /* NoSuchFieldError: this JDK is built otherwise; channels keep the JDK's provider. */
        (*env)->ExceptionClear(env);
    }
    return JNI_OK;
}

/* A class or field this JDK lacks leaves its entry empty: its channels are asked through SelChImpl. */
static jint find_fd_fields(JNIEnv *env)
{
    for (size_t i = 0; i < FD_FIELD_CLASSES; i++) {
        jclass cls = (*env)->FindClass(env, fd_field_classes[i]);
        jfieldID fd = cls != NULL ? (*env)->GetFieldID(env, cls, "fdVal", "I") : NULL;
        if (fd == NULL) {
            (*env)->ExceptionClear(env);
            continue;
        }
        fd_fields[i].cls = (*env)->NewGlobalRef(env, cls);
        if (fd_fields[i].cls == NULL)
            return JNI_ERR;
        fd_fields[i].fd = fd;
    }
    return JNI_OK;
}

static jint find_jdk_internals(JNIEnv *env)
{
    jclass cls = (*env)->FindClass(env, "sun/nio/ch/SelChImpl");
    if (cls == NULL)
        return JNI_ERR;
    /* Each lookup returns at once when it fails: no JNI call may follow a pending exception. */
    selchimpl_fd = (*env)->GetMethodID(env, cls, "getFDVal", "()I");
    if (selchimpl_fd == NULL)
        return JNI_ERR;
    selchimpl_kill = (*env)->GetMethodID(env, cls, "kill", "()V");
    if (selchimpl_kill == NULL)
        return JNI_ERR;
    selchimpl = (*env)->NewGlobalRef(env, cls);
    if (selchimpl == NULL)
        return JNI_ERR;
    cls = (*env)->FindClass(env, "sun/nio/ch/DefaultSelectorProvider");
    if (cls == NULL)
        return JNI_ERR;
    default_provider_get =
        (*env)->GetStaticMethodID(env, cls, "get", "()Lsun/nio/ch/SelectorProviderImpl;");
    if (default_provider_get == NULL)
        return JNI_ERR;
    default_provider = (*env)->NewGlobalRef(env, cls);
    if (default_provider == NULL)
        return JNI_ERR;
    if (find_fd_fields(env) != JNI_OK)
        return JNI_ERR;
    return find_channel_provider_field(env);
}

static jobject JNICALL builtin_provider(JNIEnv *env, jclass cls)
{
    (void)cls;
    return (*env)->CallStaticObjectMethod(env, default_provider, default_provider_get);
}

static jboolean JNICALL provider_field_found(JNIEnv *env, jclass cls)
{
    (void)env;
    (void)cls;
    return channel_provider != NULL ? JNI_TRUE : JNI_FALSE;
}

static void JNICALL set_provider(JNIEnv *env, jclass cls, jobject channel, jobject provider)
{
    (void)cls;
    if (channel_provider == NULL || channel == NULL || provider == NULL) {
        ns_throw(env, "java/lang/IllegalArgumentException", "no channel provider field, channel or provider");
        return;
    }
    (*env)->SetObjectField(env, channel, channel_provider, provider);
}

/* How channels of class `type` give their fd: an index into fd_fields, NS_FD_BY_METHOD, or
   NS_FD_NONE for a class that is not one of the JDK's selectable channels. */
#define NS_FD_BY_METHOD (-1)
#define NS_FD_NONE (-2)

static jint JNICALL fd_access(JNIEnv *env, jclass cls, jclass type)
{
    (void)cls;
    if (type == NULL)
        return NS_FD_NONE;
    for (size_t i = 0; i < FD_FIELD_CLASSES; i++) {
        if (fd_fields[i].cls != NULL && (*env)->IsAssignableFrom(env, type, fd_fields[i].cls))
            return (jint)i;
    }
    return (*env)->IsAssignableFrom(env, type, selchimpl) ? NS_FD_BY_METHOD : NS_FD_NONE;
}

/* `access` is what fd_access answered for the channel's class, which JdkChannels caches per class. */
static jint JNICALL channel_fd(JNIEnv *env, jclass cls, jobject channel, jint access)
{
    (void)cls;
    if (channel == NULL)
        return -1;
    if (access >= 0 && (size_t)access < FD_FIELD_CLASSES && fd_fields[access].cls != NULL)
        return (*env)->GetIntField(env, channel, fd_fields[access].fd);
    if (access != NS_FD_BY_METHOD || !(*env)->IsInstanceOf(env, channel, selchimpl))
        return -1;
    return (*env)->CallIntMethod(env, channel, selchimpl_fd);
}

static void JNICALL channel_kill(JNIEnv *env, jclass cls, jobject channel)
{
    (void)cls;
    if (channel == NULL || !(*env)->IsInstanceOf(env, channel, selchimpl)) {
        ns_throw(env, "java/lang/IllegalArgumentException", "not a JDK selectable channel");
        return;
    }
    /* An IOException thrown by kill() stays pending and reaches the Java caller. */
    (*env)->CallVoidMethod(env, channel, selchimpl_kill);
}

static const JNINativeMethod jdk_channels_methods[] = {
    { "builtInProvider", "()Ljava/nio/channels/spi/SelectorProvider;", (void *)builtin_provider },
    { "fd", "(Ljava/lang/Object;I)I", (void *)channel_fd },
    { "fdAccess", "(Ljava/lang/Class;)I", (void *)fd_access },
    { "kill", "(Ljava/lang/Object;)V", (void *)channel_kill },
    { "providerFieldFound", "()Z", (void *)provider_field_found },
    { "setProvider",
      "(Ljava/nio/channels/spi/AbstractSelectableChannel;Ljava/nio/channels/spi/SelectorProvider;)V",
      (void *)set_provider },
};

jint ns_jdk_channels_register(JNIEnv *env, const char *package)
{
    if (find_jdk_internals(env) != JNI_OK)
        return JNI_ERR;
    return NS_REGISTER(env, package, "JdkChannels", jdk_channels_methods);
}

void ns_jdk_channels_release(JNIEnv *env)
{
    if (selchimpl != NULL)
        (*env)->DeleteGlobalRef(env, selchimpl);
    if (default_provider != NULL)
        (*env)->DeleteGlobalRef(env, default_provider);
    selchimpl = NULL;
    default_provider = NULL;
    for (size_t i = 0; i < FD_FIELD_CLASSES; i++) {
        if (fd_fields[i].cls != NULL)
            (*env)->DeleteGlobalRef(env, fd_fields[i].cls);
        fd_fields[i].cls = NULL;
    }
}
