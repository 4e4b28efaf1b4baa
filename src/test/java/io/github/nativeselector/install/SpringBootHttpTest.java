/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.install;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.nativeselector.NativeSelectorProvider;
import io.github.nativeselector.support.InstallChild;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.loader.tools.Library;
import org.springframework.boot.loader.tools.LibraryScope;
import org.springframework.boot.loader.tools.Repackager;

/**
 * A Spring Boot 3 web application on embedded Tomcat, with native-selector a dependency and no flag:
 * on the class path, as {@code mvn spring-boot:run}, an IDE or the extracted layout run it, the JDK
 * finds the provider through the jar's {@code META-INF/services} file. In an executable fat jar
 * ({@code java -jar app.jar}, dependencies nested under {@code BOOT-INF/lib}) the system class
 * loader, which the JDK searches for the provider, cannot see nested jars.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class SpringBootHttpTest {

    private static final int REQUESTS = 30;
    private static final String PROVIDER = NativeSelectorProvider.class.getName();

    @Test
    void springBootServesOnTheNativeSelectorWithTheDependencyAlone() throws Exception {
        InstallChild.Result child = InstallChild.run(List.of(), SpringBootProbe.class, String.valueOf(REQUESTS));
        assertEquals("null", child.value("property"), child::toString);
        assertEquals(PROVIDER, child.value("provider"), child::toString);
        assertEquals("app", child.value("providerLoader"), () -> "found on the system class path: " + child);
        assertServedOnNativeSelectors(child);
    }

    /**
     * The executable fat jar, packed as {@code spring-boot-maven-plugin}'s {@code repackage} packs
     * it (with the jar mode tools): run as is, Tomcat runs on the JDK's selector (the services file
     * is in a nested jar); with the flag, the JDK cannot load the class the flag names and NIO fails
     * as Tomcat starts; extracted ({@code java -Djarmode=tools -jar app.jar extract}), the
     * application jar's manifest puts every library on the system class path, and the provider is
     * ours again.
     */
    @Test
    void anExecutableFatJarHidesTheProviderUntilExtracted(@TempDir Path dir) throws Exception {
        Path fatJar = fatJar(dir);

        InstallChild.Result nested = InstallChild.runJar(List.of(), fatJar, String.valueOf(REQUESTS));
        assertEquals(0, nested.exitCode(), nested::toString);
        assertNotEquals(PROVIDER, nested.value("provider"), nested::toString);
        assertTrue(nested.value("provider").startsWith("sun.nio.ch."), nested::toString);
        assertAnswered(nested);
        assertEquals("absent", nested.value("totals"), () -> "no native selector was opened: " + nested);

        InstallChild.Result flagged = InstallChild.runJar(List.of(InstallChild.FLAG), fatJar, String.valueOf(REQUESTS));
        assertNotEquals(0, flagged.exitCode(), flagged::toString);
        assertTrue(flagged.stderr().contains("java.util.ServiceConfigurationError")
                && flagged.stderr().contains("java.lang.ClassNotFoundException: " + PROVIDER), flagged::toString);

        Path extracted = dir.resolve("extracted");
        InstallChild.Result extract = InstallChild.runJar(List.of("-Djarmode=tools"), fatJar,
                "extract", "--destination", extracted.toString());
        assertEquals(0, extract.exitCode(), extract::toString);
        InstallChild.Result unpacked = InstallChild.runJar(List.of(), extracted.resolve(fatJar.getFileName()),
                String.valueOf(REQUESTS));
        assertEquals("null", unpacked.value("property"), unpacked::toString);
        assertEquals(PROVIDER, unpacked.value("provider"), unpacked::toString);
        assertEquals("app", unpacked.value("providerLoader"), unpacked::toString);
        assertServedOnNativeSelectors(unpacked);
    }

    private static void assertServedOnNativeSelectors(InstallChild.Result child) {
        assertAnswered(child);
        // Only Tomcat opens selectors in the child (its poller's): what they counted, Tomcat did on
        // them. Each of the three connections (every tenth request closes one) is registered with
        // the poller and first read when ready; a worker reads a kept-alive connection's next
        // request itself if it is there already.
        Map<String, Long> totals = SelectorTotals.parse(child.value("totals"));
        assertTrue(totals.getOrDefault("selectorsOpened", 0L) >= 1, () -> "no native selector: " + child);
        assertTrue(totals.get("readyEvents") >= REQUESTS / 10, () -> "each connection read when ready: " + child);
        assertTrue(totals.get("changesApplied") >= REQUESTS / 10, () -> "each connection registered: " + child);
    }

    private static void assertAnswered(InstallChild.Result child) {
        assertEquals(0, child.exitCode(), child::toString);
        GreetingRequests.assertAnswered(child, REQUESTS);
    }

    /**
     * {@code dir/app.jar}: the test classes (the application, {@link SpringBootProbe} its start
     * class) repackaged with every jar of the test class path and native-selector's main classes,
     * jarred, under {@code BOOT-INF/lib} (the repackager adds the jar mode tools itself).
     */
    private static Path fatJar(Path dir) throws Exception {
        Path mainClasses = Paths.get(NativeSelectorProvider.class.getProtectionDomain().getCodeSource()
                .getLocation().toURI());
        Path testClasses = Paths.get(SpringBootProbe.class.getProtectionDomain().getCodeSource()
                .getLocation().toURI());
        Path nativeSelectorJar = jar(mainClasses, dir.resolve("native-selector.jar"));
        List<Library> libraries = new ArrayList<>();
        libraries.add(new Library(nativeSelectorJar.toFile(), LibraryScope.RUNTIME));
        for (String entry : InstallChild.testClassPath().split(File.pathSeparator)) {
            if (entry.endsWith(".jar")) {
                libraries.add(new Library(new File(entry), LibraryScope.RUNTIME));
            }
        }
        Path application = jar(testClasses, dir.resolve("application.jar"));
        Path fatJar = dir.resolve("app.jar");
        Repackager repackager = new Repackager(application.toFile());
        repackager.setMainClass(SpringBootProbe.class.getName());
        repackager.repackage(fatJar.toFile(), callback -> {
            for (Library library : libraries) {
                callback.library(library);
            }
        });
        return fatJar;
    }

    /** A jar of the folder {@code classes}. */
    private static Path jar(Path classes, Path jar) throws IOException {
        List<Path> files;
        try (Stream<Path> walk = Files.walk(classes)) {
            files = walk.filter(Files::isRegularFile).sorted().collect(Collectors.toList());
        }
        try (OutputStream file = Files.newOutputStream(jar); JarOutputStream out = new JarOutputStream(file)) {
            for (Path path : files) {
                out.putNextEntry(new JarEntry(classes.relativize(path).toString().replace(File.separatorChar, '/')));
                Files.copy(path, out);
                out.closeEntry();
            }
        }
        return jar;
    }
}
