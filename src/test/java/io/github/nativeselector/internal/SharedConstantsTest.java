/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.internal;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.function.ToLongFunction;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The load-time comparison of what Java and the library share ({@link SharedConstants}): the real
 * library agrees on every value, and a library that differs anywhere (doctored values here) is
 * refused with a message naming the first difference.
 */
class SharedConstantsTest {

    private static final String SOURCE = "a test";

    @BeforeAll
    static void loadTheLibrary() throws IOException {
        NativeLibrary.ensureLoaded();
    }

    @Test
    void theLibraryAgreesOnEveryValue() {
        assertDoesNotThrow(() -> SharedConstants.check(NativeBackend::sharedConstant, SOURCE));
        for (Map.Entry<String, Long> constant : SharedConstants.JAVA.entrySet()) {
            assertEquals(constant.getValue(), NativeBackend.sharedConstant(constant.getKey()), constant.getKey());
        }
    }

    @Test
    void theLibraryHasNoValueForAnUnknownName() {
        assertThrows(NoSuchElementException.class, () -> NativeBackend.sharedConstant("sizeof(struct ns_other)"));
    }

    @Test
    void aDifferentOffsetIsNamed() {
        assertRefused(doctored(Map.of("offsetof(struct ns_ready, events)", 12L)),
                "offsetof(struct ns_ready, events): C has 12, Java has 8");
    }

    @Test
    void theFirstDifferenceIsNamed() {
        assertRefused(doctored(Map.of("NS_HUP", 0x2000L, "sizeof(struct ns_change)", 32L)),
                "sizeof(struct ns_change): C has 32, Java has 24");
    }

    @Test
    void tokensAndFlagsAreShownInHexadecimal() {
        assertRefused(doctored(Map.of("NS_WAKEUP_TOKEN", Long.MAX_VALUE)),
                "NS_WAKEUP_TOKEN: C has 0x7fffffffffffffff, Java has 0xffffffffffffffff");
        assertRefused(doctored(Map.of("NS_POLLED_WITHOUT_SYSCALL", 0x2000_0000L)),
                "NS_POLLED_WITHOUT_SYSCALL: C has 0x20000000, Java has 0x40000000");
    }

    @Test
    void aValueTheLibraryLacksIsNamed() {
        ToLongFunction<String> withoutBackendBit = name -> {
            if (name.equals("NS_BACKEND_TOKEN_BIT")) {
                throw new NoSuchElementException(name);
            }
            return NativeBackend.sharedConstant(name);
        };
        assertRefused(withoutBackendBit, "NS_BACKEND_TOKEN_BIT: C has none, Java has 0x8000000000000000");
    }

    @Test
    void aLibraryOlderThanTheCheckIsRefused() {
        assertRefused(name -> {
            throw new UnsatisfiedLinkError("sharedConstant");
        }, "sizeof(struct ns_change): C has none, Java has 24");
    }

    /** The library's values, but for those in {@code changes}. */
    private static ToLongFunction<String> doctored(Map<String, Long> changes) {
        return name -> changes.containsKey(name) ? changes.get(name) : NativeBackend.sharedConstant(name);
    }

    private static void assertRefused(ToLongFunction<String> library, String difference) {
        IOException e = assertThrows(IOException.class, () -> SharedConstants.check(library, SOURCE));
        assertEquals("native library and Java classes disagree on " + difference + " (library loaded from " + SOURCE
                + ")", e.getMessage());
    }
}
