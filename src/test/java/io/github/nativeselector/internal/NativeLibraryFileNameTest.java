/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import org.junit.jupiter.api.Test;

/** The file name the library is loaded under, which tells {@code JNI_OnLoad} the classes' package. */
class NativeLibraryFileNameTest {

    @Test
    void theOriginalPackageLoadsThePlainName() throws IOException {
        assertEquals("libnativeselector.so", NativeLibrary.fileNameFor(NativeLibrary.class.getPackageName()));
    }

    @Test
    void aRelocatedPackageIsCarriedMangled() throws IOException {
        assertEquals("libnativeselector_com_acme_shaded_io_github_nativeselector_internal.so",
                NativeLibrary.fileNameFor("com.acme.shaded.io.github.nativeselector.internal"));
        assertEquals("libnativeselector_my_1app_internal.so", NativeLibrary.fileNameFor("my_app.internal"));
    }

    @Test
    void aPackageNameTheLibraryCannotReadBackIsRefused() {
        IOException e = assertThrows(IOException.class, () -> NativeLibrary.fileNameFor("caf\u00e9.internal"));
        assertTrue(e.getMessage().contains("only letters, digits"), e.getMessage());
    }
}
