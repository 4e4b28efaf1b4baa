/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.install;

import io.github.nativeselector.NativeSelectorProvider;
import java.io.IOException;
import java.nio.channels.Selector;
import java.nio.channels.spi.SelectorProvider;
import java.util.concurrent.Executor;
import org.eclipse.jetty.io.SelectorManager;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.Scheduler;

/**
 * Child-JVM main, run through {@link OwnLoaderLauncher}: Jetty 12 whose connector's selector
 * manager opens its selectors with {@code NativeSelectorProvider.provider().openSelector()}, the
 * explicit route, while the system-wide provider stays the JDK's. Prints that provider, whether
 * the system class loader sees native-selector, the loader that loaded it, and then what
 * {@link JettyHttpProbe} prints.
 */
public final class JettyExplicitProbe {

    private JettyExplicitProbe() {
    }

    public static void main(String[] args) throws Exception {
        System.out.println("provider=" + SelectorProvider.provider().getClass().getName());
        System.out.println("systemLoaderSeesNativeSelector=" + (ClassLoader.getSystemClassLoader()
                .getResource(NativeSelectorProvider.class.getName().replace('.', '/') + ".class") != null));
        System.out.println("nativeSelectorLoader=" + NativeSelectorProvider.class.getClassLoader().getName());
        Server server = new Server();
        JettyHttpProbe.serve(server, new NativeConnector(server), Integer.parseInt(args[0]));
        System.out.flush();
        System.exit(0);
    }

    /** A connector whose selector manager is Jetty's own but for where its selectors come from. */
    private static final class NativeConnector extends ServerConnector {

        NativeConnector(Server server) {
            super(server);
        }

        @Override
        protected SelectorManager newSelectorManager(Executor executor, Scheduler scheduler, int selectors) {
            return new ServerConnectorManager(executor, scheduler, selectors) {
                @Override
                protected Selector newSelector() throws IOException {
                    return NativeSelectorProvider.provider().openSelector();
                }
            };
        }
    }
}
