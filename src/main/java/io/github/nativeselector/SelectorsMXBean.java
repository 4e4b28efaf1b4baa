/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector;

/**
 * Every native selector of this JVM together, registered as
 * {@code io.github.nativeselector:type=Selectors} when the first one is opened. The counters are
 * the sums over the selectors ever opened, closed ones included, so they only grow.
 */
public interface SelectorsMXBean extends SelectorCounters {

    /** {@return native selectors open now (not yet closed, nor collected unclosed)} */
    int getOpenSelectors();

    /** {@return native selectors opened since the JVM started} */
    long getSelectorsOpened();
}
