/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.lean;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * Virtual threads, reached through method handles because the tests compile for Java 17. They
 * are final in Java 21 (a preview before, which these tests leave alone).
 */
final class VirtualThreads {

    /** Why virtual-thread tests are skipped on this JDK. */
    static final String UNAVAILABLE = "virtual threads need Java 21 or later; this is Java "
            + Runtime.version().feature();

    private static final MethodHandle OF_VIRTUAL;
    private static final MethodHandle UNSTARTED;
    private static final MethodHandle IS_VIRTUAL;

    static {
        MethodHandle ofVirtual = null;
        MethodHandle unstarted = null;
        MethodHandle isVirtual = null;
        if (Runtime.version().feature() >= 21) {
            try {
                MethodHandles.Lookup lookup = MethodHandles.publicLookup();
                Class<?> builder = Class.forName("java.lang.Thread$Builder");
                Class<?> ofVirtualBuilder = Class.forName("java.lang.Thread$Builder$OfVirtual");
                ofVirtual = lookup.findStatic(Thread.class, "ofVirtual", MethodType.methodType(ofVirtualBuilder));
                unstarted = lookup.findVirtual(builder, "unstarted",
                        MethodType.methodType(Thread.class, Runnable.class));
                isVirtual = lookup.findVirtual(Thread.class, "isVirtual", MethodType.methodType(boolean.class));
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }
        OF_VIRTUAL = ofVirtual;
        UNSTARTED = unstarted;
        IS_VIRTUAL = isVirtual;
    }

    private VirtualThreads() {
    }

    static boolean available() {
        return OF_VIRTUAL != null;
    }

    /** A new virtual thread, not started. */
    static Thread unstarted(Runnable task) {
        try {
            return (Thread) UNSTARTED.invoke(OF_VIRTUAL.invoke(), task);
        } catch (Throwable e) {
            throw new AssertionError("cannot create a virtual thread", e);
        }
    }

    static boolean isVirtual(Thread thread) {
        if (IS_VIRTUAL == null) {
            return false;
        }
        try {
            return (boolean) IS_VIRTUAL.invoke(thread);
        } catch (Throwable e) {
            throw new AssertionError(e);
        }
    }
}
