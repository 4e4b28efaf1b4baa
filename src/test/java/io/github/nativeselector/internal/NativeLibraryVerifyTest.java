/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The check between extracting the jar's library and loading it ({@link NativeLibrary#verify}):
 * only a path no other user can change is loaded. Each test changes what an attacker, or a careless
 * setting, could have changed after extraction.
 */
class NativeLibraryVerifyTest {

    /** The uid that owns nothing here: nobody. */
    private static final int ANOTHER_USER = 65534;
    private static final byte[] LIBRARY = "the jar's library".getBytes(StandardCharsets.US_ASCII);

    /** The extraction root: a new directory of this user's, in the system's sticky temporary directory. */
    @TempDir
    Path root;
    private Path directory;
    private Path file;
    private byte[] expected;

    @BeforeEach
    void extract() throws Exception {
        directory = Files.createDirectory(root.resolve("nativeselector-1"),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        file = Files.write(directory.resolve("libnativeselector.so"), LIBRARY);
        expected = MessageDigest.getInstance("SHA-256").digest(LIBRARY);
    }

    @Test
    void acceptsWhatWasExtracted() throws Exception {
        NativeLibrary.verify(file, expected);
    }

    /**
     * The user verify compares owners with is the one files are created as. (The case that the
     * process's /proc directory got wrong, a process that is not dumpable, whose directory root
     * owns, takes a java with file capabilities, which this suite does not make.)
     */
    @Test
    void theProcessUserIsTheOwnerOfWhatItCreates() throws Exception {
        assertEquals(Files.getAttribute(file, "unix:uid"), NativeLibrary.processUid());
    }

    @Test
    void refusesADirectoryMadeGroupWritable() throws Exception {
        Files.setPosixFilePermissions(directory, PosixFilePermissions.fromString("rwxrwx---"));
        assertRefused(directory + " is not an owner-only directory");
    }

    @Test
    void refusesADirectoryGivenToAnotherUser() throws Exception {
        assumeRoot();
        Files.setAttribute(directory, "unix:uid", ANOTHER_USER);
        assertRefused(directory + " is not an owner-only directory");
    }

    @Test
    void refusesAParentOthersMayRenameIn() throws Exception {
        Files.setAttribute(root, "unix:mode", 0777);
        assertRefused(root + " may be changed by users other than root");
    }

    @Test
    void acceptsAStickyParentOthersMayWriteTo() throws Exception {
        Files.setAttribute(root, "unix:mode", 01777);
        NativeLibrary.verify(file, expected);
    }

    @Test
    void refusesAParentOwnedByAnotherUser() throws Exception {
        assumeRoot();
        Files.setAttribute(root, "unix:uid", ANOTHER_USER);
        assertRefused(root + " may be changed by users other than root");
    }

    @Test
    void refusesAChangedLibrary() throws Exception {
        Files.write(file, "something else".getBytes(StandardCharsets.US_ASCII));
        assertRefused(file + " changed between extraction and loading");
    }

    private void assertRefused(String reason) {
        IOException e = assertThrows(IOException.class, () -> NativeLibrary.verify(file, expected));
        assertTrue(e.getMessage().contains(reason), () -> "not the reason (" + reason + "): " + e.getMessage());
    }

    /** Giving a file to another user takes root. */
    private static void assumeRoot() throws IOException {
        assumeTrue((Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid") == 0,
                "only root can give a directory to another user");
    }
}
