/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.bench.harness;

import java.util.LinkedHashMap;
import java.util.Map;

/** The {@code key=value key=value} lines the servers and the load generator print. */
final class Fields {

    private Fields() {}

    static Map<String, String> parse(String text) {
        Map<String, String> fields = new LinkedHashMap<>();
        for (String token : text.trim().split("\\s+")) {
            int eq = token.indexOf('=');
            if (eq > 0) {
                fields.put(token.substring(0, eq), token.substring(eq + 1));
            }
        }
        return fields;
    }
}
