package io.github.nativeselector.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.LinkOption;
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
import java.util.Locale;
import java.util.Set;

/**
 * Loads {@code libnativeselector}: from {@code java.library.path} if it is there, otherwise from
 * the jar ({@code META-INF/native/<os>-<arch>/}), copied into a new directory only the owner can
 * use, under a name nobody can predict, checked against the jar's copy (SHA-256) just before it
 * is loaded, and deleted once loaded. A failure says why: no library
 * for this platform, a temporary directory mounted noexec, a library built for another machine.
 */
public final class NativeLibrary {

    /** Where to extract the library instead of {@code java.io.tmpdir}. */
    public static final String TMPDIR_PROPERTY = "nativeselector.tmpdir";

    private static final String NAME = "nativeselector";
    /** Every {@code <os>-<arch>} folder a build of this library can fill. */
    private static final List<String> BUILDABLE_PLATFORMS = List.of("linux-x86_64", "linux-aarch64", "aix-ppc64");
    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rwx------");

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
                loaded = true;
                return;
            } catch (IOException e) {
                failure = e;
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
        try {
            System.loadLibrary(NAME);
            loadedFrom = "java.library.path";
            return;
        } catch (UnsatisfiedLinkError notOnLibraryPath) {
            // Expected unless the user installed the library: use the jar's copy.
        }
        String fileName = System.mapLibraryName(NAME);
        String resource = "/META-INF/native/" + platform() + "/" + fileName;
        URL url = NativeLibrary.class.getResource(resource);
        if (url == null) {
            throw new IOException("no native library for " + platform() + " in this jar (" + resource
                    + " is missing); it has: " + (carriedPlatforms().isEmpty() ? "none" : String.join(", ", carriedPlatforms())));
        }
        Path directory = Files.createTempDirectory(extractionRoot(), "nativeselector-",
                PosixFilePermissions.asFileAttribute(OWNER_ONLY));
        Path file = directory.resolve(fileName);
        try {
            byte[] expected;
            try (InputStream in = url.openStream()) {
                DigestInputStream digesting = new DigestInputStream(in, sha256());
                Files.copy(digesting, file);
                expected = digesting.getMessageDigest().digest();
            }
            verify(file, expected);
            System.load(file.toString());
            loadedFrom = url.toString();
        } catch (UnsatisfiedLinkError e) {
            throw new IOException(explain(e, directory), e);
        } finally {
            // Once mapped, the library no longer needs its file.
            Files.deleteIfExists(file);
            Files.deleteIfExists(directory);
        }
    }

    /**
     * Checks that the extracted file is still what the jar holds, and still in a directory only
     * its owner can change, so what gets loaded is the jar's library.
     */
    private static void verify(Path file, byte[] expected) throws IOException {
        Path directory = file.getParent();
        Set<PosixFilePermission> granted = Files.getPosixFilePermissions(directory, LinkOption.NOFOLLOW_LINKS);
        if (!OWNER_ONLY.containsAll(granted)) {
            throw new IOException("cannot load the native library: " + directory + " is no longer owner-only");
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

    private static String explain(UnsatisfiedLinkError e, Path directory) {
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
