/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.lean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.github.nativeselector.lean.InjectedFaultProbe.Operation;
import io.github.nativeselector.support.InstallChild;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The errors loopback never gives, on lean channels and on the JDK's: a child JVM runs {@link
 * InjectedFaultProbe} under the seccomp launcher fail_syscalls, which makes one kind of system
 * call fail with one errno (a connect that finds no route, an accept out of descriptors, a read
 * or a write that times out, an option, a shutdown, a socket or a bind refused), and each
 * operation must end on lean channels as it ends on the JDK's: the same exception with the same
 * message, the channel left open or closed the same. A fault that the JDK's channels do not see
 * fails the test, so a rule that stops matching the calls it aims at shows.
 *
 * <p>A read or a write moves {@link InjectedFaultProbe#LENGTH} bytes, and its rules fail only
 * calls of that length (in one buffer) or with two buffers, so that the JVM's own reads and
 * writes go through.
 */
@Timeout(120)
class InjectedFaultTest {

    /** A fault: the rules that cause it, and the operations that meet it. */
    record Fault(String errno, List<String> rules, List<Operation> operations) {

        @Override
        public String toString() {
            return errno + " " + rules;
        }
    }

    private static final List<String> CONNECT = List.of("connect");
    private static final List<String> ACCEPT = List.of("accept", "accept4");
    private static final List<String> READ = List.of("read:2=" + InjectedFaultProbe.LENGTH,
            "recvfrom:2=" + InjectedFaultProbe.LENGTH, "readv:2=2", "recvmsg");
    private static final List<String> WRITE = List.of("write:2=" + InjectedFaultProbe.LENGTH,
            "sendto:2=" + InjectedFaultProbe.LENGTH, "writev:2=2", "sendmsg");
    /** setsockopt's option name SO_KEEPALIVE (9 on Linux, whatever the architecture). */
    private static final List<String> SET_KEEPALIVE = List.of("setsockopt:2=9");
    /** getsockopt's option name SO_RCVBUF (8), whose value the kernel sets (it doubles what it is given). */
    private static final List<String> GET_RECEIVE_BUFFER = List.of("getsockopt:2=8");
    /**
     * setsockopt's option name IPV6_V6ONLY (26), which an IPv6 socket is opened with (dual stack),
     * as the default family's channels are where IPv6 is.
     */
    private static final List<String> SET_V6ONLY = List.of("setsockopt:2=26");
    /**
     * setsockopt's option name IP_TOS (1 at level IPPROTO_IP; at other levels TCP_NODELAY,
     * SO_DEBUG and IPV6_ADDRFORM, none of which the operations set).
     */
    private static final List<String> SET_IP_TOS = List.of("setsockopt:2=1");
    /** The one-byte send of urgent data. */
    private static final List<String> SEND_ONE_BYTE = List.of("sendto:2=1");
    /** The waits of blocking operations: poll(2) is ppoll where the architecture has no poll (aarch64). */
    private static final List<String> POLL = "amd64".equals(System.getProperty("os.arch"))
            ? List.of("poll", "ppoll") : List.of("ppoll");
    /** ioctl's request FIONREAD. */
    private static final List<String> FIONREAD = List.of("ioctl:1=0x541B");

    static Stream<Fault> faults() {
        List<Fault> faults = new ArrayList<>();
        for (String errno : List.of("ENETUNREACH", "EHOSTUNREACH", "ETIMEDOUT", "EPROTO", "EACCES", "EADDRNOTAVAIL",
                "ENOBUFS", "EPERM")) {
            faults.add(fault(errno, CONNECT, Operation.CONNECT, Operation.CONNECT_NONBLOCKING));
        }
        for (String errno : List.of("EMFILE", "ENOBUFS", "EPERM", "EPROTO")) {
            faults.add(fault(errno, ACCEPT, Operation.ACCEPT, Operation.ACCEPT_NONBLOCKING));
        }
        for (String errno : List.of("ETIMEDOUT", "EHOSTUNREACH")) {
            faults.add(fault(errno, READ, Operation.READ_HEAP, Operation.READ_DIRECT, Operation.READ_NONBLOCKING,
                    Operation.SCATTERING_READ));
        }
        for (String errno : List.of("ETIMEDOUT", "ENOBUFS", "EHOSTUNREACH")) {
            faults.add(fault(errno, WRITE, Operation.WRITE_HEAP, Operation.WRITE_DIRECT, Operation.GATHERING_WRITE));
        }
        faults.add(fault("ENOMEM", POLL, Operation.ACCEPT_WAITING, Operation.READ_WAITING));
        faults.add(fault("ENOBUFS", SEND_ONE_BYTE, Operation.SEND_URGENT_DATA));
        faults.add(fault("ENOBUFS", SET_KEEPALIVE, Operation.SET_KEEPALIVE));
        faults.add(fault("EINVAL", SET_IP_TOS, Operation.SET_TRAFFIC_CLASS));
        faults.add(fault("ENOBUFS", GET_RECEIVE_BUFFER, Operation.GET_RECEIVE_BUFFER));
        faults.add(fault("EIO", FIONREAD, Operation.AVAILABLE));
        faults.add(fault("ENOBUFS", List.of("shutdown"), Operation.SHUTDOWN_OUTPUT));
        for (String errno : List.of("EMFILE", "ENOBUFS")) {
            faults.add(fault(errno, List.of("socket"), Operation.OPEN, Operation.OPEN_SERVER));
        }
        faults.add(fault("ENOPROTOOPT", SET_V6ONLY, Operation.OPEN_DEFAULT, Operation.OPEN_SERVER_DEFAULT));
        for (String errno : List.of("EACCES", "EADDRNOTAVAIL")) {
            faults.add(fault(errno, List.of("bind"), Operation.BIND, Operation.BIND_SERVER));
        }
        faults.add(fault("EADDRINUSE", List.of("listen"), Operation.BIND_SERVER));
        return faults.stream();
    }

    private static Fault fault(String errno, List<String> calls, Operation... operations) {
        return new Fault(errno, calls.stream().map(call -> errno + ":" + call).toList(), List.of(operations));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("faults")
    void endsOnLeanChannelsAsOnTheJdks(Fault fault) throws Exception {
        String[] operations = fault.operations().stream().map(Operation::name).toArray(String[]::new);
        InstallChild.Result child = run(fault.rules(), operations);
        for (String operation : operations) {
            String jdk = child.value(operation + " JDK");
            String lean = child.value(operation + " LEAN");
            assertNotNull(jdk, () -> operation + " on the JDK's channels: no outcome\n" + child);
            assertFalse(jdk.startsWith("returned") || jdk.startsWith(SocketTimeoutException.class.getName()),
                    () -> operation + ": the fault did not reach the JDK's channels, which " + jdk);
            assertEquals(jdk, lean, () -> operation + " under " + fault);
        }
    }

    /**
     * A scattering read into heap buffers, which lean channels read one at a time, that fails after
     * the first has its bytes: the read returns them, as one readv would, and the next read throws
     * the failure, which the kernel reported once. No JDK channel reads so, so there is nothing to
     * compare: the rule fails only the read into the second buffer.
     */
    @Test
    void aScatteringReadThatFailsAfterBytesReturnsThemAndTheNextReadThrows() throws Exception {
        String operation = Operation.SCATTERING_READ_FAILING_LATER.name();
        InstallChild.Result child = run(List.of("ETIMEDOUT:recvfrom:2=" + InjectedFaultProbe.SECOND_LENGTH), operation);
        assertEquals("returned 1, then java.io.IOException: Connection timed out, then returned 0, open",
                child.value(operation + " LEAN"), child::toString);
    }

    /**
     * IP_TOS on a dual-stack socket sets the IPv6 class, then (JDK 21 and later) the IPv4 mark,
     * whose refusal the JDK ignores: the class is set and the call returns, on JDK 17 too, which
     * sets the class alone.
     */
    @Test
    void aDualStackSocketsTrafficClassIsSetWhenItsIpv4MarkIsRefused() throws Exception {
        String operation = Operation.SET_TRAFFIC_CLASS_DUAL_STACK.name();
        InstallChild.Result child = run(List.of("EINVAL:" + SET_IP_TOS.get(0)), operation);
        String expected = "returned " + InjectedFaultProbe.TRAFFIC_CLASS + ", open";
        assertEquals(expected, child.value(operation + " JDK"), child::toString);
        assertEquals(expected, child.value(operation + " LEAN"), child::toString);
    }

    private static InstallChild.Result run(List<String> rules, String... operations) throws Exception {
        InstallChild.Result child = InstallChild.runThrough(InstallChild.failingSyscalls(rules.toArray(String[]::new)),
                List.of(), InjectedFaultProbe.class, operations);
        assertEquals(0, child.exitCode(), child::toString);
        return child;
    }
}
