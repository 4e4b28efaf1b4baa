/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.monitoring;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.nativeselector.SelectorMXBean;
import io.github.nativeselector.SelectorsMXBean;
import java.lang.management.ManagementFactory;
import java.util.HashSet;
import java.util.Set;
import javax.management.JMX;
import javax.management.MBeanServer;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;

/** The selectors' MBeans on the platform MBean server, as tests find them. */
final class SelectorMBeanNames {

    static final MBeanServer SERVER = ManagementFactory.getPlatformMBeanServer();
    static final ObjectName TOTALS = name("io.github.nativeselector:type=Selectors");
    private static final ObjectName EVERY_SELECTOR = name("io.github.nativeselector:type=Selector,*");

    private SelectorMBeanNames() {
    }

    static Set<ObjectName> selectors() {
        return SERVER.queryNames(EVERY_SELECTOR, null);
    }

    /** The one selector MBean registered since {@code before} was taken. */
    static ObjectName added(Set<ObjectName> before) {
        Set<ObjectName> added = new HashSet<>(selectors());
        added.removeAll(before);
        assertEquals(1, added.size(), () -> "selector MBeans registered: " + added);
        return added.iterator().next();
    }

    static SelectorMXBean selector(ObjectName name) {
        return JMX.newMXBeanProxy(SERVER, name, SelectorMXBean.class);
    }

    static SelectorsMXBean totals() {
        return JMX.newMXBeanProxy(SERVER, TOTALS, SelectorsMXBean.class);
    }

    /** The selector id an MBean name carries (its flight-recorder events carry the same). */
    static long id(ObjectName name) {
        return Long.parseLong(name.getKeyProperty("id"));
    }

    private static ObjectName name(String name) {
        try {
            return new ObjectName(name);
        } catch (MalformedObjectNameException e) {
            throw new IllegalArgumentException(e);
        }
    }
}
