/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.internal.lean;

import io.github.nativeselector.internal.BuiltInProvider;
import java.io.IOException;
import java.net.SocketException;
import java.net.SocketOption;
import java.net.StandardSocketOptions;
import java.nio.channels.NetworkChannel;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The socket options of one kind of channel, as the JDK's channels support them on Linux: which
 * there are, how each maps to {@code setsockopt}, which values are refused, and which values a
 * socket may keep in Java once known because only {@code setsockopt} changes them.
 *
 * <p>The options of {@code jdk.net.ExtendedSocketOptions} are found by reflection, so that a
 * runtime without module {@code jdk.net} simply has fewer options, as the JDK's channels do there.
 * Those, and {@code SO_REUSEPORT}, depend on the kernel too: a table has them only where the JDK's
 * own channel of its kind supports them.
 */
final class SocketOptionTable {

    /** What the JDK's own socket channel supports here; null when none could be opened. */
    private static final Set<SocketOption<?>> JDK_SOCKET_OPTIONS = jdkOptions(false);

    /**
     * {@code Socket.setOOBInline}'s option: the JDK's own object (its class is internal), taken from
     * a channel of the JDK's, so that code holding it, from a JDK channel's {@code supportedOptions()},
     * can set it on a lean channel too. Should that channel not open (no descriptor left), an
     * option of this library's own of that name serves {@link LeanSocket}.
     */
    static final SocketOption<Boolean> SO_OOBINLINE = oobInline();

    /** The options of a {@link LeanSocketChannel}. */
    static final SocketOptionTable SOCKET = socketTable(JDK_SOCKET_OPTIONS);
    /** The options of a {@link LeanServerSocketChannel}. */
    static final SocketOptionTable SERVER_SOCKET = serverSocketTable(jdkOptions(true));

    /** The JDK's floor for SO_RCVBUF on Linux: a smaller buffer would drop small packets. */
    private static final int MIN_RECEIVE_BUFFER = 1024;
    private static final int MAX_LINGER = 65535;
    private static final int MAX_TRAFFIC_CLASS = 255;

    /** How a value goes to the kernel and comes back. */
    private enum Kind {
        FLAG, NUMBER, BUFFER_SIZE, LINGER, TRAFFIC_CLASS, READ_ONLY
    }

    /** When a value may be kept in Java instead of asked of the kernel again. */
    private enum Keeping {
        /** The kernel changes it by itself (buffer autotuning, ECN bits, quick-ack mode, NAPI id). */
        NEVER,
        /** Until set, the kernel answers a system-wide default that may change under it. */
        ONCE_SET,
        /** Only setsockopt changes it: once read or set, it is known. */
        ONCE_KNOWN
    }

    /** One option of the table; {@code index} is its place in a socket's {@link Values}. */
    private record Entry(SocketOption<?> name, Kind kind, int level, int optionName, Keeping keeping, int index) {
    }

    private final Map<SocketOption<?>, Entry> entries;
    private final Set<SocketOption<?>> names;
    /** SO_LINGER's place in a socket's values, which every close reads; -1 in a table without it. */
    private final int lingerIndex;

    private SocketOptionTable(Map<SocketOption<?>, Entry> entries) {
        this.entries = entries;
        this.names = Collections.unmodifiableSet(new LinkedHashSet<>(entries.keySet()));
        Entry linger = entries.get(StandardSocketOptions.SO_LINGER);
        this.lingerIndex = linger != null ? linger.index() : -1;
    }

    /** What supportedOptions() answers. */
    Set<SocketOption<?>> names() {
        return names;
    }

    /**
     * Checks a setOption call as the JDK's channels do before they look at the channel: a null
     * name, an option the channel does not support, a value that is not of the option's type.
     */
    void checkSet(SocketOption<?> name, Object value) {
        entry(name);
        if (!name.type().isInstance(value)) {
            throw new IllegalArgumentException("Invalid value '" + value + "'");
        }
    }

    /** Checks a getOption call as the JDK's channels do before they look at the channel. */
    void checkGet(SocketOption<?> name) {
        entry(name);
    }

    /** A new socket's values, none known yet but SO_LINGER's. */
    Values newValues() {
        return new Values(this);
    }

    private Entry entry(SocketOption<?> name) {
        Objects.requireNonNull(name);
        Entry entry = entries.get(name);
        if (entry == null) {
            throw new UnsupportedOperationException("'" + name + "' not supported");
        }
        return entry;
    }

    /**
     * The options of one socket: sets and gets them, keeping what {@link Keeping} allows. Guarded
     * by the owning channel's state lock.
     */
    static final class Values {

        private final SocketOptionTable table;
        private final int[] values;
        private long known;

        private Values(SocketOptionTable table) {
            this.table = table;
            this.values = new int[table.entries.size()];
            if (table.lingerIndex >= 0) {
                // Off on every socket a lean channel opens or accepts (its listener cannot set it),
                // and only setsockopt turns it on: known from the start, so closing never asks.
                remember(table.lingerIndex, -1);
            }
        }

        /** SO_LINGER in seconds, -1 when off. Only a socket's table has it. */
        int linger() {
            return values[table.lingerIndex];
        }

        /** Sets an option {@link #checkSet} accepted. */
        void set(int fd, boolean inet6, SocketOption<?> name, Object value) throws IOException {
            Entry entry = table.entry(name);
            int kernelValue;
            int knownValue;
            switch (entry.kind()) {
                case FLAG:
                    kernelValue = (Boolean) value ? 1 : 0;
                    knownValue = kernelValue;
                    Sockets.setIntOption(fd, entry.level(), entry.optionName(), kernelValue);
                    break;
                case NUMBER:
                    kernelValue = (Integer) value;
                    knownValue = kernelValue;
                    Sockets.setIntOption(fd, entry.level(), entry.optionName(), kernelValue);
                    break;
                case BUFFER_SIZE:
                    knownValue = (Integer) value;
                    if (knownValue < 0) {
                        throw new IllegalArgumentException("Invalid send/receive buffer size");
                    }
                    kernelValue = entry.optionName() == Sockets.SO_RCVBUF
                            ? Math.max(knownValue, MIN_RECEIVE_BUFFER) : knownValue;
                    Sockets.setIntOption(fd, entry.level(), entry.optionName(), kernelValue);
                    break;
                case LINGER:
                    knownValue = Math.min(Math.max((Integer) value, -1), MAX_LINGER);
                    Sockets.setLinger(fd, knownValue);
                    break;
                case TRAFFIC_CLASS:
                    knownValue = (Integer) value;
                    if (knownValue < 0 || knownValue > MAX_TRAFFIC_CLASS) {
                        throw new IllegalArgumentException("Invalid IP_TOS value");
                    }
                    setTrafficClass(fd, inet6, knownValue);
                    break;
                default:
                    // READ_ONLY, refused as the JDK refuses it.
                    throw new SocketException("Attempt to set read only option " + name);
            }
            if (entry.keeping() != Keeping.NEVER) {
                remember(entry.index(), knownValue);
            }
        }

        /** The value of an option {@link #checkGet} accepted, boxed as its type. */
        Object get(int fd, boolean inet6, SocketOption<?> name) throws IOException {
            Entry entry = table.entry(name);
            int value;
            if ((known & (1L << entry.index())) != 0) {
                value = values[entry.index()];
            } else {
                value = read(fd, inet6, entry);
                if (entry.keeping() == Keeping.ONCE_KNOWN) {
                    remember(entry.index(), value);
                }
            }
            return entry.kind() == Kind.FLAG ? Boolean.valueOf(value != 0) : Integer.valueOf(value);
        }

        private static int read(int fd, boolean inet6, Entry entry) throws IOException {
            switch (entry.kind()) {
                case LINGER:
                    return Sockets.getLinger(fd);
                case TRAFFIC_CLASS:
                    return inet6 ? Sockets.getIntOption(fd, Sockets.IPPROTO_IPV6, Sockets.IPV6_TCLASS)
                            : Sockets.getIntOption(fd, Sockets.IPPROTO_IP, Sockets.IP_TOS);
                case BUFFER_SIZE:
                    // Linux doubles what is set, for its bookkeeping; the JDK halves what it reads
                    // so that a size set is the size read back.
                    return Sockets.getIntOption(fd, entry.level(), entry.optionName()) / 2;
                default:
                    return Sockets.getIntOption(fd, entry.level(), entry.optionName());
            }
        }

        /**
         * IP_TOS as the JDK sets it from JDK 21: IP_TOS on an IPv4 socket; IPV6_TCLASS on an IPv6
         * one, then IP_TOS too, which marks what a dual-stack socket sends over IPv4, a failure of
         * that second call ignored as the JDK ignores it.
         */
        private static void setTrafficClass(int fd, boolean inet6, int value) throws IOException {
            if (inet6) {
                Sockets.setIntOption(fd, Sockets.IPPROTO_IPV6, Sockets.IPV6_TCLASS, value);
                try {
                    Sockets.setIntOption(fd, Sockets.IPPROTO_IP, Sockets.IP_TOS, value);
                } catch (SocketException ignored) {
                    // The IPv6 class, what the option names on this socket, is set.
                }
            } else {
                Sockets.setIntOption(fd, Sockets.IPPROTO_IP, Sockets.IP_TOS, value);
            }
        }

        private void remember(int index, int value) {
            values[index] = value;
            known |= 1L << index;
        }
    }

    /**
     * The socket channel's options; those that depend on the kernel only if {@code jdkSupported}
     * has them, or all of them when it is null (the JDK's channel could not be asked).
     */
    static SocketOptionTable socketTable(Set<SocketOption<?>> jdkSupported) {
        Builder table = new Builder(jdkSupported);
        table.add(StandardSocketOptions.SO_SNDBUF, Kind.BUFFER_SIZE, Sockets.SOL_SOCKET, Sockets.SO_SNDBUF,
                Keeping.NEVER);
        table.add(StandardSocketOptions.SO_RCVBUF, Kind.BUFFER_SIZE, Sockets.SOL_SOCKET, Sockets.SO_RCVBUF,
                Keeping.NEVER);
        table.add(StandardSocketOptions.SO_KEEPALIVE, Kind.FLAG, Sockets.SOL_SOCKET, Sockets.SO_KEEPALIVE,
                Keeping.ONCE_KNOWN);
        table.add(StandardSocketOptions.SO_REUSEADDR, Kind.FLAG, Sockets.SOL_SOCKET, Sockets.SO_REUSEADDR,
                Keeping.ONCE_KNOWN);
        table.addIfSupported(StandardSocketOptions.SO_REUSEPORT, Kind.FLAG, Sockets.SOL_SOCKET, Sockets.SO_REUSEPORT,
                Keeping.ONCE_KNOWN);
        table.add(StandardSocketOptions.SO_LINGER, Kind.LINGER, Sockets.SOL_SOCKET, Sockets.SO_LINGER,
                Keeping.ONCE_KNOWN);
        table.add(StandardSocketOptions.TCP_NODELAY, Kind.FLAG, Sockets.IPPROTO_TCP, Sockets.TCP_NODELAY,
                Keeping.ONCE_KNOWN);
        table.add(StandardSocketOptions.IP_TOS, Kind.TRAFFIC_CLASS, Sockets.IPPROTO_IP, Sockets.IP_TOS, Keeping.NEVER);
        table.add(SO_OOBINLINE, Kind.FLAG, Sockets.SOL_SOCKET, Sockets.SO_OOBINLINE, Keeping.ONCE_KNOWN);
        table.addExtended();
        return table.build();
    }

    /** The server socket channel's options, as {@link #socketTable}'s. */
    private static SocketOptionTable serverSocketTable(Set<SocketOption<?>> jdkSupported) {
        Builder table = new Builder(jdkSupported);
        table.add(StandardSocketOptions.SO_RCVBUF, Kind.BUFFER_SIZE, Sockets.SOL_SOCKET, Sockets.SO_RCVBUF,
                Keeping.NEVER);
        table.add(StandardSocketOptions.SO_REUSEADDR, Kind.FLAG, Sockets.SOL_SOCKET, Sockets.SO_REUSEADDR,
                Keeping.ONCE_KNOWN);
        table.addIfSupported(StandardSocketOptions.SO_REUSEPORT, Kind.FLAG, Sockets.SOL_SOCKET, Sockets.SO_REUSEPORT,
                Keeping.ONCE_KNOWN);
        table.addExtended();
        return table.build();
    }

    private static final class Builder {

        private final Map<SocketOption<?>, Entry> entries = new LinkedHashMap<>();
        private final Set<SocketOption<?>> jdkSupported;

        Builder(Set<SocketOption<?>> jdkSupported) {
            this.jdkSupported = jdkSupported;
        }

        void add(SocketOption<?> name, Kind kind, int level, int optionName, Keeping keeping) {
            entries.put(name, new Entry(name, kind, level, optionName, keeping, entries.size()));
        }

        /** An option the kernel may lack: added where the JDK's channel has it. */
        void addIfSupported(SocketOption<?> name, Kind kind, int level, int optionName, Keeping keeping) {
            if (jdkSupported == null || jdkSupported.contains(name)) {
                add(name, kind, level, optionName, keeping);
            }
        }

        /** jdk.net.ExtendedSocketOptions' options for TCP sockets on Linux, where the module is present. */
        void addExtended() {
            addExtended("TCP_KEEPIDLE", Kind.NUMBER, Sockets.IPPROTO_TCP, Sockets.TCP_KEEPIDLE, Keeping.ONCE_SET);
            addExtended("TCP_KEEPINTERVAL", Kind.NUMBER, Sockets.IPPROTO_TCP, Sockets.TCP_KEEPINTVL, Keeping.ONCE_SET);
            addExtended("TCP_KEEPCOUNT", Kind.NUMBER, Sockets.IPPROTO_TCP, Sockets.TCP_KEEPCNT, Keeping.ONCE_SET);
            addExtended("TCP_QUICKACK", Kind.FLAG, Sockets.IPPROTO_TCP, Sockets.TCP_QUICKACK, Keeping.NEVER);
            addExtended("SO_INCOMING_NAPI_ID", Kind.READ_ONLY, Sockets.SOL_SOCKET, Sockets.SO_INCOMING_NAPI_ID,
                    Keeping.NEVER);
        }

        private void addExtended(String field, Kind kind, int level, int optionName, Keeping keeping) {
            SocketOption<?> name = ExtendedOptions.find(field);
            if (name != null) {
                addIfSupported(name, kind, level, optionName, keeping);
            }
        }

        SocketOptionTable build() {
            return new SocketOptionTable(entries);
        }
    }

    /** The public fields of {@code jdk.net.ExtendedSocketOptions}, when that class is there. */
    private static final class ExtendedOptions {

        private static final Class<?> OPTIONS = optionsClass();

        static SocketOption<?> find(String field) {
            if (OPTIONS == null) {
                return null;
            }
            try {
                return (SocketOption<?>) OPTIONS.getField(field).get(null);
            } catch (ReflectiveOperationException | ClassCastException e) {
                return null;
            }
        }

        private static Class<?> optionsClass() {
            try {
                return Class.forName("jdk.net.ExtendedSocketOptions", true, ClassLoader.getPlatformClassLoader());
            } catch (ClassNotFoundException | LinkageError e) {
                return null;
            }
        }
    }

    @SuppressWarnings("unchecked")
    private static SocketOption<Boolean> oobInline() {
        if (JDK_SOCKET_OPTIONS != null) {
            for (SocketOption<?> option : JDK_SOCKET_OPTIONS) {
                if (option.name().equals("SO_OOBINLINE") && option.type() == Boolean.class) {
                    return (SocketOption<Boolean>) option;
                }
            }
        }
        // The JDK's object is only for code that holds it: this library's own one works alike.
        return new OwnOption<>("SO_OOBINLINE", Boolean.class);
    }

    /** The options the JDK's own channel of the kind supports on this kernel; null if none opens (no descriptor left). */
    private static Set<SocketOption<?>> jdkOptions(boolean server) {
        try (NetworkChannel jdk = server ? BuiltInProvider.get().openServerSocketChannel()
                : BuiltInProvider.get().openSocketChannel()) {
            return jdk.supportedOptions();
        } catch (IOException e) {
            return null;
        }
    }

    /** An option of this library's own, named as the JDK's internal one. */
    private record OwnOption<T>(String name, Class<T> type) implements SocketOption<T> {

        @Override
        public String toString() {
            return name;
        }
    }
}
