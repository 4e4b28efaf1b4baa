/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

/*
 * Registers every native method of the library when the JVM loads it, in the package its file
 * name says (jni_package.c), and releases what registering took when the JVM unloads it (once the
 * class loader that loaded it is gone). The lean socket channels are Linux's alone.
 */
#include "jni_package.h"
#include "ns_jni.h"

#include <stdint.h>
#include <stdio.h>
#ifdef __linux__
#include <link.h>
#endif

#define ORIGINAL_PACKAGE "io/github/nativeselector/internal/"

jint ns_register_natives(JNIEnv *env, const char *package, const char *simple_name,
                         const JNINativeMethod *methods, int count)
{
    char class_name[512];
    int length = snprintf(class_name, sizeof(class_name), "%s%s", package, simple_name);
    if (length < 0 || (size_t)length >= sizeof(class_name)) {
        ns_throw(env, "java/lang/IllegalArgumentException", "class name too long");
        return JNI_ERR;
    }
    jclass cls = (*env)->FindClass(env, class_name);
    if (cls == NULL)
        return JNI_ERR;
    return (*env)->RegisterNatives(env, cls, methods, count) == 0 ? JNI_OK : JNI_ERR;
}

#ifdef __linux__
/* What own_file looks for, and what it finds. */
struct own_file {
    uintptr_t address;
    const char *name;
};

/* dl_iterate_phdr's callback: whether the object holds the address in one of its loaded segments. */
static int holds_address(struct dl_phdr_info *object, size_t size, void *data)
{
    (void)size;
    struct own_file *wanted = data;
    for (int i = 0; i < object->dlpi_phnum; i++) {
        const ElfW(Phdr) *segment = &object->dlpi_phdr[i];
        uintptr_t start = (uintptr_t)object->dlpi_addr + segment->p_vaddr;
        if (segment->p_type == PT_LOAD && wanted->address - start < segment->p_memsz) {
            wanted->name = object->dlpi_name;
            return 1;
        }
    }
    return 0;
}

/*
 * The path this library was loaded from. dl_iterate_phdr rather than dladdr: since glibc 2.34
 * moved dladdr into libc, a library linked there asks for dladdr@GLIBC_2.34 and loads on no older
 * glibc; dl_iterate_phdr has been libc's from the start.
 */
static const char *own_file(void)
{
    /* A static function's address: another object's JNI_OnLoad (LD_PRELOAD, a library loaded
       RTLD_GLOBAL) could stand in for this one's, exported, name. */
    struct own_file wanted = { (uintptr_t)holds_address, NULL };
    dl_iterate_phdr(holds_address, &wanted);
    return wanted.name;
}
#endif

/*
 * The package of this copy's Java classes. AIX's C library has no dladdr on every level this
 * supports, so there the classes must keep their original package (no relocation).
 */
static jint loaded_package(JNIEnv *env, char *package, size_t size)
{
#ifdef __linux__
    const char *file = own_file();
    if (file == NULL || file[0] == '\0') {
        ns_throw(env, "java/lang/UnsatisfiedLinkError", "libnativeselector cannot find its own file (dl_iterate_phdr)");
        return JNI_ERR;
    }
    if (ns_jni_package(file, package, size) != 0) {
        char message[512];
        snprintf(message, sizeof(message),
                 "%s: not a name libnativeselector can take its package from (libnativeselector.so, or "
                 "libnativeselector_<package, mangled as JNI mangles names>.so)", file);
        ns_throw(env, "java/lang/UnsatisfiedLinkError", message);
        return JNI_ERR;
    }
#else
    snprintf(package, size, "%s", ORIGINAL_PACKAGE);
#endif
    return JNI_OK;
}

JNIEXPORT jint JNICALL JNI_OnLoad(JavaVM *vm, void *reserved)
{
    (void)reserved;
    JNIEnv *env;
    char package[256];
    if ((*vm)->GetEnv(vm, (void **)&env, JNI_VERSION_1_8) != JNI_OK)
        return JNI_ERR;
    if (loaded_package(env, package, sizeof(package)) != JNI_OK
        || ns_jdk_channels_register(env, package) != JNI_OK
        || ns_off_heap_register(env, package) != JNI_OK
        || ns_errno_register(env, package) != JNI_OK
        || ns_backend_register(env, package) != JNI_OK)
        return JNI_ERR;
#ifdef __linux__
    if (ns_lean_sockets_register(env, package) != JNI_OK)
        return JNI_ERR;
#endif
    return JNI_VERSION_1_8;
}

JNIEXPORT void JNICALL JNI_OnUnload(JavaVM *vm, void *reserved)
{
    (void)reserved;
    JNIEnv *env;
    if ((*vm)->GetEnv(vm, (void **)&env, JNI_VERSION_1_8) == JNI_OK) {
        ns_jdk_channels_release(env);
        ns_errno_release(env);
    }
}
