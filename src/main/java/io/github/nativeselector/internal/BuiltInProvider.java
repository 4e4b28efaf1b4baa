package io.github.nativeselector.internal;

import java.io.IOException;
import java.nio.channels.spi.SelectorProvider;

/**
 * The JDK's built-in {@link SelectorProvider}, which opens every channel this library's provider
 * hands out. No public API returns it once another provider is installed: it is reached through
 * the native library, or, if that cannot load, by reflection where the application exported
 * {@code sun.nio.ch} ({@code --add-exports java.base/sun.nio.ch=ALL-UNNAMED}).
 */
public final class BuiltInProvider {

    private static SelectorProvider provider;

    private BuiltInProvider() {
    }

    public static synchronized SelectorProvider get() throws IOException {
        if (provider == null) {
            provider = find();
        }
        return provider;
    }

    private static SelectorProvider find() throws IOException {
        try {
            NativeLibrary.ensureLoaded();
            return JdkChannels.builtInProvider();
        } catch (IOException nativeFailure) {
            try {
                return (SelectorProvider) Class.forName("sun.nio.ch.DefaultSelectorProvider")
                        .getMethod("get").invoke(null);
            } catch (ReflectiveOperationException | RuntimeException notExported) {
                IOException e = new IOException("the JDK's built-in SelectorProvider is out of reach: "
                        + nativeFailure.getMessage()
                        + "; without the native library, run with --add-exports java.base/sun.nio.ch=ALL-UNNAMED",
                        nativeFailure);
                e.addSuppressed(notExported);
                throw e;
            }
        }
    }
}
