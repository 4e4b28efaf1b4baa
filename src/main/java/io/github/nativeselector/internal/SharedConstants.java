/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.internal;

import io.github.nativeselector.internal.lean.Sockets;
import java.io.IOException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.function.ToLongFunction;

/**
 * What the Java classes and the native library must agree on ({@code src/main/native/share/ns_records.h}):
 * the sizes and field offsets of the records they exchange, the op codes, the event bits, the
 * tokens no key has and the flag in a poll's result; on Linux also the system's values that the lean
 * socket channels hand to the kernel as they are ({@link Sockets}: option levels and names, the
 * {@code struct iovec} layout, shutdown and poll codes). Each class keeps its values as constants
 * where it uses them; {@link #check} compares every one with the library's once, when the library
 * is loaded ({@link NativeLibrary}), so that a library of another version, or built for another
 * system, is refused, never misread.
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
        if (NativeLibrary.platform().startsWith("linux-")) {
            putSocketValues(values);
        }
        return Collections.unmodifiableMap(values);
    }

    /** Linux's values, which only the Linux library has (C's names, from its system headers). */
    private static void putSocketValues(Map<String, Long> values) {
        values.put("sizeof(struct iovec)", (long) Sockets.IOVEC_SIZE);
        values.put("offsetof(struct iovec, iov_base)", 0L);
        values.put("offsetof(struct iovec, iov_len)", (long) Sockets.IOVEC_SIZE / 2);
        values.put("IOV_MAX", (long) Sockets.IOV_MAX);
        values.put("SHUT_RD", (long) Sockets.SHUT_RD);
        values.put("SHUT_WR", (long) Sockets.SHUT_WR);
        values.put("SHUT_RDWR", (long) Sockets.SHUT_RDWR);
        values.put("POLLIN", (long) Sockets.POLLIN);
        values.put("POLLOUT", (long) Sockets.POLLOUT);
        values.put("POLLERR", (long) Sockets.POLLERR);
        values.put("POLLHUP", (long) Sockets.POLLHUP);
        values.put("POLLNVAL", (long) Sockets.POLLNVAL);
        values.put("SOL_SOCKET", (long) Sockets.SOL_SOCKET);
        values.put("SO_REUSEADDR", (long) Sockets.SO_REUSEADDR);
        values.put("SO_SNDBUF", (long) Sockets.SO_SNDBUF);
        values.put("SO_RCVBUF", (long) Sockets.SO_RCVBUF);
        values.put("SO_KEEPALIVE", (long) Sockets.SO_KEEPALIVE);
        values.put("SO_OOBINLINE", (long) Sockets.SO_OOBINLINE);
        values.put("SO_LINGER", (long) Sockets.SO_LINGER);
        values.put("SO_REUSEPORT", (long) Sockets.SO_REUSEPORT);
        values.put("SO_INCOMING_NAPI_ID", (long) Sockets.SO_INCOMING_NAPI_ID);
        values.put("IPPROTO_IP", (long) Sockets.IPPROTO_IP);
        values.put("IP_TOS", (long) Sockets.IP_TOS);
        values.put("IPPROTO_TCP", (long) Sockets.IPPROTO_TCP);
        values.put("TCP_NODELAY", (long) Sockets.TCP_NODELAY);
        values.put("TCP_KEEPIDLE", (long) Sockets.TCP_KEEPIDLE);
        values.put("TCP_KEEPINTVL", (long) Sockets.TCP_KEEPINTVL);
        values.put("TCP_KEEPCNT", (long) Sockets.TCP_KEEPCNT);
        values.put("TCP_QUICKACK", (long) Sockets.TCP_QUICKACK);
        values.put("IPPROTO_IPV6", (long) Sockets.IPPROTO_IPV6);
        values.put("IPV6_TCLASS", (long) Sockets.IPV6_TCLASS);
    }
}
