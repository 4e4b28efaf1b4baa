/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.internal;

import java.io.IOException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.function.ToLongFunction;

/**
 * What the Java classes and the native library must agree on ({@code src/main/native/share/ns_records.h}):
 * the sizes and field offsets of the records they exchange, the op codes, the event bits, the
 * tokens no key has and the flag in a poll's result. Each class keeps its values as constants where
 * it uses them; {@link #check} compares every one with the library's once, when the library is
 * loaded ({@link NativeLibrary}), so that a library of another version is refused, never misread.
 *
 * <p>Stateless.
 */
final class SharedConstants {

    /** Java's value of each constant, in order, by the C expression that gives the library's (backend_jni.c). */
    static final Map<String, Long> JAVA = javaValues();

    private SharedConstants() {
    }

    /**
     * Compares Java's value of every constant with the library's.
     *
     * @param library the library's value of a constant, by name; throws {@link NoSuchElementException}
     *     when the library has no constant of that name, {@link UnsatisfiedLinkError} when it is too
     *     old to have any
     * @param source where the library was loaded from, for the message
     * @throws IOException naming the first constant on which they disagree
     */
    static void check(ToLongFunction<String> library, String source) throws IOException {
        for (Map.Entry<String, Long> constant : JAVA.entrySet()) {
            String name = constant.getKey();
            long java = constant.getValue();
            String c;
            try {
                long value = library.applyAsLong(name);
                if (value == java) {
                    continue;
                }
                c = format(value);
            } catch (NoSuchElementException | UnsatisfiedLinkError absent) {
                c = "none";
            }
            throw new IOException("native library and Java classes disagree on " + name + ": C has " + c
                    + ", Java has " + format(java) + " (library loaded from " + source + ")");
        }
    }

    /** Sizes, offsets and small codes in decimal; bit masks and tokens in hexadecimal. */
    private static String format(long value) {
        return value >= 0 && value <= 0xFF ? Long.toString(value) : "0x" + Long.toHexString(value);
    }

    private static Map<String, Long> javaValues() {
        Map<String, Long> values = new LinkedHashMap<>();
        values.put("sizeof(struct ns_change)", (long) ChangeBatch.RECORD_SIZE);
        values.put("offsetof(struct ns_change, token)", (long) ChangeBatch.TOKEN);
        values.put("offsetof(struct ns_change, fd)", (long) ChangeBatch.FD);
        values.put("offsetof(struct ns_change, events)", (long) ChangeBatch.EVENTS);
        values.put("offsetof(struct ns_change, op)", (long) ChangeBatch.OP);
        values.put("offsetof(struct ns_change, error)", (long) ChangeBatch.ERROR);
        values.put("sizeof(struct ns_ready)", (long) ReadyArray.RECORD_SIZE);
        values.put("offsetof(struct ns_ready, token)", (long) ReadyArray.TOKEN);
        values.put("offsetof(struct ns_ready, events)", (long) ReadyArray.EVENTS);
        values.put("NS_OP_ADD", (long) ChangeBatch.OP_ADD);
        values.put("NS_OP_MOD", (long) ChangeBatch.OP_MOD);
        values.put("NS_OP_DEL", (long) ChangeBatch.OP_DEL);
        values.put("NS_IN", (long) Events.IN);
        values.put("NS_OUT", (long) Events.OUT);
        values.put("NS_ERR", (long) Events.ERR);
        values.put("NS_HUP", (long) Events.HUP);
        values.put("NS_NVAL", (long) Events.NVAL);
        values.put("NS_WAKEUP_TOKEN", ReadyArray.WAKEUP_TOKEN);
        values.put("NS_BACKEND_TOKEN_BIT", KeyTable.BACKEND_TOKEN_BIT);
        values.put("NS_POLLED_WITHOUT_SYSCALL", (long) Backend.POLLED_WITHOUT_SYSCALL);
        values.put("NS_OPEN_WITHOUT_RING", (long) NativeBackend.OPEN_WITHOUT_RING);
        values.put("NS_RING_OFF", (long) NativeBackend.RING_OFF);
        values.put("NS_NO_RING", (long) NativeBackend.NO_RING);
        return Collections.unmodifiableMap(values);
    }
}
