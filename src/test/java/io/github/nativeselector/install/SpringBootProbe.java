/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.install;

import java.net.HttpURLConnection;
import java.nio.channels.spi.SelectorProvider;
import java.util.Map;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.web.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * Child-JVM main: a Spring Boot web application as its users write one, a
 * {@code @SpringBootApplication} with a {@code @RestController}, on embedded Tomcat bound to
 * loopback on a free port, asked {@code requests} times by {@link HttpURLConnection} (which opens
 * no selector; every tenth request closes its connection). Prints the selector provider property,
 * the provider and the name of the class loader that loaded it, each status and body, and the
 * totals MBean.
 */
@SpringBootApplication(proxyBeanMethods = false)
@RestController
public class SpringBootProbe {

    static final String PROPERTY = "java.nio.channels.spi.SelectorProvider";

    @GetMapping("/greet")
    public String greet(@RequestParam("n") int n) {
        return "hello n=" + n;
    }

    public static void main(String[] args) throws Exception {
        int requests = Integer.parseInt(args[0]);
        System.out.println("property=" + System.getProperty(PROPERTY));
        SpringApplication application = new SpringApplication(SpringBootProbe.class);
        application.setDefaultProperties(Map.of(
                "server.address", "127.0.0.1",
                "server.port", "0",
                "spring.main.banner-mode", "off"));
        try (ConfigurableApplicationContext context = application.run()) {
            SelectorProvider provider = SelectorProvider.provider();
            System.out.println("provider=" + provider.getClass().getName());
            ClassLoader loader = provider.getClass().getClassLoader();
            System.out.println("providerLoader=" + (loader == null ? "bootstrap" : loader.getName()));
            int port = ((WebServerApplicationContext) context).getWebServer().getPort();
            GreetingRequests.print(port, requests, 10);
            SelectorTotals.print();
        }
        System.out.flush();
        System.exit(0);
    }
}
