/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.internal;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.DigestInputStream;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * Loads {@code libnativeselector}: a copy installed on {@code java.library.path} if there is one
 * and it loads, otherwise the jar's copy ({@code META-INF/native/<os>-<arch>/}). A failure says
 * why, giving both reasons when both copies were tried: no library for this platform, an
 * extraction directory that is missing, read-only, mounted noexec or open to other users, a
 * library built for another machine, or a stale installed copy whose {@code JNI_OnLoad} fails or
 * registers a method this version no longer has. Any {@link LinkageError} of a load is caught (a
 * pending {@code NoSuchMethodError} from {@code RegisterNatives} is one), so a stale copy never
 * keeps the jar's from being tried. A library that loads but disagrees with these classes on a
 * record layout or a constant ({@link SharedConstants}) fails the load, naming the first difference:
 * its methods are bound by then, so no other copy can take its place.
 *
 * <p>The jar's copy is written into a new directory under a name nobody can predict, checked, loaded
 * and deleted (once mapped, the file is not needed). {@code System.load} takes a path, which the JDK
 * canonicalises before the C library opens it again, so holding the checked file open would not
 * help: loading {@code /proc/self/fd/N} loads the path it links to. The check therefore makes the
 * path trustworthy, not only the file ({@link #verify}): the extraction root is resolved to its real
 * path first, so no component is a symbolic link; every directory from the root of the file system
 * down to the extraction directory is owned by root or by this process's user and writable by no
 * one else, unless sticky (where others cannot rename or remove what is ours); and the extraction
 * directory is this user's and owner-only. After that no other user can change what the path names
 * before it is loaded, and the file's content is compared with the jar's (SHA-256).
 *
 * <p>A jar whose classes were relocated (shaded) loads the library under a name that carries this
 * class's package, {@code libnativeselector_<package, mangled as JNI mangles names>.so}, from which
 * {@code JNI_OnLoad} learns where to register its natives ({@code share/jni_package.c}): the
 * jar's copy is extracted under that name, and a copy on {@code java.library.path} must bear it.
 *
 * <p>Locking: the static fields are guarded by the class's monitor.
 */
public final class NativeLibrary {

    /** Where to extract the library instead of {@code java.io.tmpdir}. */
    public static final String TMPDIR_PROPERTY = "nativeselector.tmpdir";

    /** The library's name in the jar, and its name as loaded while this package is the original one. */
    private static final String NAME = "nativeselector";
    /**
     * This class's package as built. Written in pieces because a shading tool rewrites every
     * literal that names a relocated package, and this one must keep the original.
     */
    private static final String ORIGINAL_PACKAGE = String.join(".", "io", "github", "nativeselector", "internal");
    /** Every {@code <os>-<arch>} folder a build of this library can fill. */
    private static final List<String> BUILDABLE_PLATFORMS = List.of("linux-x86_64", "linux-aarch64", "aix-ppc64");
    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rwx------");
    /** {@code st_mode} bits, as the {@code unix:mode} attribute gives them. */
    private static final int FILE_TYPE = 0170000;
    private static final int DIRECTORY_TYPE = 0040000;
    private static final int STICKY = 01000;
    private static final int GROUP_OR_OTHERS_ANY = 0077;
    private static final int GROUP_OR_OTHERS_WRITE = 0022;
    private static final int ROOT = 0;

    private static boolean loaded;
    private static String loadedFrom;
    private static IOException failure;

    private NativeLibrary() {
    }

    /** Loads the library once; every later call repeats the first outcome. */
    public static synchronized void ensureLoaded() throws IOException {
        if (loaded) {
            return;
        }
        if (failure == null) {
            try {
                load();
                SharedConstants.check(NativeBackend::sharedConstant, loadedFrom);
                loaded = true;
                return;
            } catch (IOException e) {
                failure = e;
            } catch (RuntimeException e) {
                // A setting the file system cannot take, say: a reason like any other, never a crash of NIO.
                failure = new IOException("cannot load the native library: " + e, e);
            }
        }
        throw new IOException(failure.getMessage(), failure);
    }

    /** Where the loaded library came from ({@code java.library.path} or the jar's resource), or null. */
    public static synchronized String loadedFrom() {
        return loadedFrom;
    }

    /** {@code <os>-<arch>} as the jar's native folders are named, e.g. {@code linux-x86_64}. */
    public static String platform() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT).replace(" ", "");
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        if (arch.equals("amd64")) {
            arch = "x86_64";
        }
        return os + "-" + arch;
    }

    /** The platforms whose library this jar (or class path) carries, e.g. {@code [linux-x86_64]}. */
    public static List<String> carriedPlatforms() {
        String fileName = System.mapLibraryName(NAME);
        List<String> carried = new ArrayList<>();
        for (String candidate : BUILDABLE_PLATFORMS) {
            if (NativeLibrary.class.getResource("/META-INF/native/" + candidate + "/" + fileName) != null) {
                carried.add(candidate);
            }
        }
        return carried;
    }

    private static void load() throws IOException {
        Optional<Path> installed = onLibraryPath();
        String refused = null;
        if (installed.isPresent()) {
            try {
                System.load(installed.get().toString());
                loadedFrom = installed.get().toString();
                return;
            } catch (LinkageError stale) {
                refused = installed.get() + " was refused: " + stale;
            }
        }
        try {
            String fromJar = loadFromJar();
            loadedFrom = refused == null ? fromJar : fromJar + " (on java.library.path, " + refused + ")";
        } catch (IOException e) {
            if (refused == null) {
                throw e;
            }
            throw new IOException(e.getMessage() + "; and on java.library.path, " + refused, e);
        }
    }

    /** The library in the first {@code java.library.path} folder that has one, as the JDK searches it. */
    private static Optional<Path> onLibraryPath() throws IOException {
        String fileName = loadedFileName();
        for (String folder : System.getProperty("java.library.path", "").split(File.pathSeparator)) {
            try {
                Path candidate = Paths.get(folder.isEmpty() ? "." : folder, fileName).toAbsolutePath();
                if (Files.isRegularFile(candidate)) {
                    return Optional.of(candidate);
                }
            } catch (InvalidPathException notAFolder) {
                // The JDK skips what cannot name a folder too.
            }
        }
        return Optional.empty();
    }

    /** Extracts the jar's copy, checks it and loads it; returns where it came from. */
    private static String loadFromJar() throws IOException {
        String fileName = System.mapLibraryName(NAME);
        String resource = "/META-INF/native/" + platform() + "/" + fileName;
        URL url = NativeLibrary.class.getResource(resource);
        if (url == null) {
            throw new IOException("no native library for " + platform() + " in this jar (" + resource
                    + " is missing); it has: " + (carriedPlatforms().isEmpty() ? "none" : String.join(", ", carriedPlatforms())));
        }
        Path directory = createExtractionDirectory();
        Path file = directory.resolve(loadedFileName());
        try {
            byte[] expected;
            try (InputStream in = url.openStream()) {
                DigestInputStream digesting = new DigestInputStream(in, sha256());
                Files.copy(digesting, file);
                expected = digesting.getMessageDigest().digest();
            }
            verify(file, expected);
            System.load(file.toString());
            return url.toString();
        } catch (LinkageError e) {
            throw new IOException(explain(e, directory), e);
        } finally {
            // Once mapped, the library no longer needs its file.
            Files.deleteIfExists(file);
            Files.deleteIfExists(directory);
        }
    }

    /** The file name this copy of the classes loads the library under (the class comment says why). */
    private static String loadedFileName() throws IOException {
        return fileNameFor(NativeLibrary.class.getPackageName());
    }

    /**
     * {@code libnativeselector.so} for the original package; for another, the name with the
     * package JNI-mangled after an underscore ('.' as "_", '_' as "_1"), so that each package has
     * one name and the C side can read it back.
     */
    static String fileNameFor(String packageName) throws IOException {
        if (packageName.equals(ORIGINAL_PACKAGE)) {
            return System.mapLibraryName(NAME);
        }
        if (!packageName.matches("[A-Za-z0-9_]+(\\.[A-Za-z0-9_]+)*")) {
            throw new IOException("cannot load the native library for classes relocated to " + packageName
                    + ": its name would carry only letters, digits, '_' and '.'");
        }
        return System.mapLibraryName(NAME + "_" + packageName.replace("_", "_1").replace('.', '_'));
    }

    /** A new owner-only directory under the real path of the extraction root. */
    private static Path createExtractionDirectory() throws IOException {
        Path root = extractionRoot();
        try {
            return Files.createTempDirectory(root.toRealPath(), "nativeselector-",
                    PosixFilePermissions.asFileAttribute(OWNER_ONLY));
        } catch (IOException e) {
            String why = e instanceof NoSuchFileException ? "it does not exist"
                    : e instanceof AccessDeniedException ? "permission denied"
                    : e instanceof FileSystemException && ((FileSystemException) e).getReason() != null
                            ? ((FileSystemException) e).getReason() : e.toString();
            throw new IOException("cannot extract the native library into " + root + ": " + why + "; set -D"
                    + TMPDIR_PROPERTY + " to a directory where it may be written and loaded, or put "
                    + loadedFileName() + " on java.library.path", e);
        }
    }

    /**
     * Checks that what {@code file}'s path names can be changed by no other user until it is
     * loaded, and that it is what the jar holds (the class comment says why this is enough).
     */
    static void verify(Path file, byte[] expected) throws IOException {
        int user = processUid();
        Path directory = file.getParent();
        Entry extraction = Entry.of(directory);
        if (!extraction.isDirectory() || extraction.uid() != user || (extraction.mode() & GROUP_OR_OTHERS_ANY) != 0) {
            throw unsafe(directory + " is not an owner-only directory of this process's uid " + user + " ("
                    + extraction + ")");
        }
        for (Path above = directory.getParent(); above != null; above = above.getParent()) {
            Entry entry = Entry.of(above);
            boolean trustedOwner = entry.uid() == ROOT || entry.uid() == user;
            boolean othersMayRename = (entry.mode() & GROUP_OR_OTHERS_WRITE) != 0 && (entry.mode() & STICKY) == 0;
            if (!entry.isDirectory() || !trustedOwner || othersMayRename) {
                throw unsafe(above + " may be changed by users other than root and this process's uid " + user
                        + " (" + entry + ")");
            }
        }
        MessageDigest digest = sha256();
        try (InputStream in = Files.newInputStream(file, LinkOption.NOFOLLOW_LINKS)) {
            in.transferTo(new DigestOutputStream(OutputStream.nullOutputStream(), digest));
        }
        if (!MessageDigest.isEqual(expected, digest.digest())) {
            throw new IOException("cannot load the native library: " + file
                    + " changed between extraction and loading");
        }
    }

    /** A file system entry's owner and {@code st_mode}, read without following a symbolic link. */
    private record Entry(int uid, int mode) {

        static Entry of(Path path) throws IOException {
            Map<String, Object> attributes = Files.readAttributes(path, "unix:uid,mode", LinkOption.NOFOLLOW_LINKS);
            return new Entry((Integer) attributes.get("uid"), (Integer) attributes.get("mode"));
        }

        boolean isDirectory() {
            return (mode & FILE_TYPE) == DIRECTORY_TYPE;
        }

        @Override
        public String toString() {
            return "uid " + uid + ", mode " + Integer.toOctalString(mode);
        }
    }

    private static IOException unsafe(String why) {
        return new IOException("cannot load the native library safely: " + why + "; set -D" + TMPDIR_PROPERTY
                + " to a directory that only root and this user can change");
    }

    /**
     * The user this process creates files as: on Linux the file-system uid of {@code
     * /proc/self/status}; elsewhere (AIX, whose status file is binary) the owner of its {@code
     * /proc/<pid>} directory, which the kernel sets. Not that owner on Linux: a process that is
     * not dumpable (a {@code java} given file capabilities to bind a low port, say) has its
     * directory owned by root. Java has no call for it.
     */
    static int processUid() throws IOException {
        try {
            Path status = Paths.get("/proc/self/status");
            if (Files.isReadable(status)) {
                for (String line : Files.readAllLines(status, StandardCharsets.ISO_8859_1)) {
                    if (line.startsWith("Uid:")) {
                        String[] ids = line.substring("Uid:".length()).trim().split("\\s+");
                        return Integer.parseInt(ids[ids.length - 1]);
                    }
                }
            }
            Path self = Paths.get("/proc", String.valueOf(ProcessHandle.current().pid()));
            return (Integer) Files.getAttribute(self, "unix:uid");
        } catch (IOException | RuntimeException e) {
            throw new IOException("cannot load the native library safely: cannot tell which user this process runs as ("
                    + e + ")", e);
        }
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    private static Path extractionRoot() {
        return Paths.get(System.getProperty(TMPDIR_PROPERTY, System.getProperty("java.io.tmpdir")));
    }

    private static String explain(LinkageError e, Path directory) {
        String message = String.valueOf(e.getMessage());
        String hint;
        if (isNoexec(directory)) {
            hint = directory.getParent() + " is mounted noexec: set -D" + TMPDIR_PROPERTY
                    + " to a directory where libraries may be loaded, or put " + System.mapLibraryName(NAME)
                    + " on java.library.path";
        } else if (message.contains("wrong ELF class") || message.contains("cannot open shared object")) {
            hint = "the library in this jar was built for another platform than " + platform();
        } else if (message.contains("undefined symbol") || message.contains("symbol lookup error")) {
            hint = "the library needs a symbol this system's C library lacks";
        } else {
            hint = "loading it failed";
        }
        return "cannot load the native library " + System.mapLibraryName(NAME) + ": " + hint + " (" + message + ")";
    }

    /** Whether the file system holding {@code path} forbids executing (and so mapping) libraries. */
    private static boolean isNoexec(Path path) {
        try {
            String best = "";
            boolean noexec = false;
            String target = path.toRealPath().toString();
            for (String line : Files.readAllLines(Paths.get("/proc/self/mounts"))) {
                List<String> fields = List.of(line.split(" "));
                if (fields.size() < 4) {
                    continue;
                }
                String mountPoint = fields.get(1);
                if (target.startsWith(mountPoint) && mountPoint.length() > best.length()) {
                    best = mountPoint;
                    noexec = List.of(fields.get(3).split(",")).contains("noexec");
                }
            }
            return noexec;
        } catch (IOException | RuntimeException unknown) {
            return false;
        }
    }
}
