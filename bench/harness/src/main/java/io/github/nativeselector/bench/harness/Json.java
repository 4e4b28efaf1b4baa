/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.bench.harness;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Just enough JSON for JMH's result file: objects, arrays, strings, numbers, literals. */
final class Json {

    @SuppressWarnings("unchecked")
    static Map<String, Object> asMap(Object o) {
        return (Map<String, Object>) o;
    }

    @SuppressWarnings("unchecked")
    static List<Object> asList(Object o) {
        return (List<Object>) o;
    }

    private final String s;
    private int i;

    private Json(String s) {
        this.s = s;
    }

    static Object parse(String text) {
        Json p = new Json(text);
        Object v = p.value();
        p.space();
        if (p.i != text.length()) {
            throw p.error("trailing text");
        }
        return v;
    }

    private Object value() {
        space();
        if (i >= s.length()) {
            throw error("unexpected end");
        }
        char c = s.charAt(i);
        switch (c) {
            case '{': {
                i++;
                Map<String, Object> map = new LinkedHashMap<>();
                space();
                if (peek('}')) {
                    return map;
                }
                do {
                    space();
                    String key = string();
                    space();
                    expect(':');
                    map.put(key, value());
                    space();
                } while (peek(','));
                expect('}');
                return map;
            }
            case '[': {
                i++;
                List<Object> list = new ArrayList<>();
                space();
                if (peek(']')) {
                    return list;
                }
                do {
                    list.add(value());
                    space();
                } while (peek(','));
                expect(']');
                return list;
            }
            case '"':
                return string();
            default:
                for (String literal : new String[] {"true", "false", "null"}) {
                    if (s.startsWith(literal, i)) {
                        i += literal.length();
                        return literal.equals("null") ? null : Boolean.valueOf(literal);
                    }
                }
                int start = i;
                while (i < s.length() && "+-.0123456789eE".indexOf(s.charAt(i)) >= 0) {
                    i++;
                }
                if (start == i) {
                    throw error("unexpected character '" + c + "'");
                }
                return Double.parseDouble(s.substring(start, i));
        }
    }

    private String string() {
        expect('"');
        StringBuilder b = new StringBuilder();
        while (i < s.length()) {
            char c = s.charAt(i++);
            if (c == '"') {
                return b.toString();
            }
            if (c == '\\') {
                char e = s.charAt(i++);
                switch (e) {
                    case 'n' -> b.append('\n');
                    case 't' -> b.append('\t');
                    case 'r' -> b.append('\r');
                    case 'b' -> b.append('\b');
                    case 'f' -> b.append('\f');
                    case 'u' -> {
                        b.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
                        i += 4;
                    }
                    default -> b.append(e);
                }
            } else {
                b.append(c);
            }
        }
        throw error("unterminated string");
    }

    private void space() {
        while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
            i++;
        }
    }

    private boolean peek(char c) {
        if (i < s.length() && s.charAt(i) == c) {
            i++;
            return true;
        }
        return false;
    }

    private void expect(char c) {
        if (!peek(c)) {
            throw error("expected '" + c + "'");
        }
    }

    private IllegalArgumentException error(String what) {
        return new IllegalArgumentException("JMH result file, offset " + i + ": " + what
                + " near '" + s.substring(Math.max(0, i - 20), Math.min(s.length(), i + 20)) + "'");
    }
}
