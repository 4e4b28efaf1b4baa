/*
 * The JDK's channels, reached without --add-exports: JNI applies no module checks.
 * sun.nio.ch.SelChImpl is the interface every selectable JDK channel implements; its fd
 * and kill() are what a selector needs. DefaultSelectorProvider.get() is the built-in
 * provider, which opens the channels this library's provider hands out.
 */
#include "ns_jni.h"

#include <stdint.h>

static jclass selchimpl;         /* global ref: sun.nio.ch.SelChImpl */
static jmethodID selchimpl_fd;   /* int getFDVal() */
static jmethodID selchimpl_kill; /* void kill() */
static jclass default_provider;  /* global ref: sun.nio.ch.DefaultSelectorProvider */
static jmethodID default_provider_get;

jint ns_jdk_channels_init(JNIEnv *env)
{
    jclass cls = (*env)->FindClass(env, "sun/nio/ch/SelChImpl");
    if (cls == NULL)
        return JNI_ERR;
    selchimpl = (*env)->NewGlobalRef(env, cls);
    selchimpl_fd = (*env)->GetMethodID(env, cls, "getFDVal", "()I");
    selchimpl_kill = (*env)->GetMethodID(env, cls, "kill", "()V");
    if (selchimpl == NULL || selchimpl_fd == NULL || selchimpl_kill == NULL)
        return JNI_ERR;
    cls = (*env)->FindClass(env, "sun/nio/ch/DefaultSelectorProvider");
    if (cls == NULL)
        return JNI_ERR;
    default_provider = (*env)->NewGlobalRef(env, cls);
    default_provider_get =
        (*env)->GetStaticMethodID(env, cls, "get", "()Lsun/nio/ch/SelectorProviderImpl;");
    if (default_provider == NULL || default_provider_get == NULL)
        return JNI_ERR;
    return JNI_OK;
}

jobject JNICALL ns_jdk_builtin_provider(JNIEnv *env, jclass cls)
{
    (void)cls;
    return (*env)->CallStaticObjectMethod(env, default_provider, default_provider_get);
}

jint JNICALL ns_jdk_fd(JNIEnv *env, jclass cls, jobject channel)
{
    (void)cls;
    if (channel == NULL || !(*env)->IsInstanceOf(env, channel, selchimpl))
        return -1;
    return (*env)->CallIntMethod(env, channel, selchimpl_fd);
}

void JNICALL ns_jdk_kill(JNIEnv *env, jclass cls, jobject channel)
{
    (void)cls;
    if (channel == NULL || !(*env)->IsInstanceOf(env, channel, selchimpl)) {
        ns_throw(env, "java/lang/IllegalArgumentException", "not a JDK selectable channel");
        return;
    }
    /* An IOException thrown by kill() stays pending and reaches the Java caller. */
    (*env)->CallVoidMethod(env, channel, selchimpl_kill);
}
