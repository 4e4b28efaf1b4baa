/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.fuzz;

import static io.github.nativeselector.support.ContractSupport.AWAIT_MS;

import io.github.nativeselector.fuzz.FuzzStep.Action;
import io.github.nativeselector.fuzz.FuzzStep.Op;
import io.github.nativeselector.support.ContractChannels;
import io.github.nativeselector.support.ContractSupport;
import io.github.nativeselector.support.TestSelectors;
import java.io.IOException;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.CancelledKeyException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * One selector and the endpoints a fuzz program opens for it, driven one step at a time by the
 * calling thread. After each step every endpoint is settled, and the step's outcome and the
 * selector's whole visible state are returned, for comparison with another world run in lock
 * step. Everything that decides what a step does is the world's own model (which endpoints
 * exist, what was sent, whether a wakeup or an interrupt is pending), never timing.
 */
final class FuzzWorld implements AutoCloseable {

    /** Ends a select() that a bug left blocked, so that the divergence is reported rather than hung. */
    private static final ScheduledExecutorService GUARD = Executors.newSingleThreadScheduledExecutor(task -> {
        Thread thread = new Thread(task, "fuzz select guard");
        thread.setDaemon(true);
        return thread;
    });

    private static final String SKIP = "skip";

    private final Selector selector;
    private final List<FuzzEndpoint> endpoints = new ArrayList<>();
    /** The program's interrupt status: set on this thread only around selector calls. */
    private boolean interrupted;
    private boolean wakeupPending;

    FuzzWorld(TestSelectors selectors) throws IOException {
        this.selector = selectors.open();
    }

    /** What a step did and the state it left, as text that is equal in two worlds that agree. */
    record Observation(String result, String state) {
        @Override
        public String toString() {
            return result + " | " + state;
        }
    }

    Observation execute(FuzzStep step) throws Exception {
        String result;
        if (step.op().usesSelector && interrupted) {
            Thread.currentThread().interrupt();
        }
        try {
            result = perform(step);
        } catch (Exception e) {
            result = "threw " + thrownName(e);
        } finally {
            if (step.op().usesSelector) {
                interrupted = Thread.interrupted();
            }
        }
        for (FuzzEndpoint endpoint : endpoints) {
            endpoint.settle();
        }
        return new Observation(result, state());
    }

    /**
     * The name of what a step threw. A blocking finishConnect on a channel closed before it throws
     * AsynchronousCloseException on the JDK's channels up to JDK 22 and ClosedChannelException, its
     * superclass, from JDK 23 and on lean channels: one outcome, named here as the later releases
     * name it. Nothing in a program closes a channel while an operation of the one thread runs,
     * the case AsynchronousCloseException is meant for; an interrupt's ClosedByInterruptException
     * keeps its name.
     */
    private static String thrownName(Exception e) {
        Class<?> thrown = e.getClass() == AsynchronousCloseException.class ? ClosedChannelException.class : e.getClass();
        return thrown.getSimpleName();
    }

    private String perform(FuzzStep step) throws Exception {
        Op op = step.op();
        if (op.selects()) {
            return select(step);
        }
        switch (op) {
            case OPEN -> {
                endpoints.add(FuzzEndpoint.open(FuzzEndpoint.Kind.values()[step.arg()], selector.provider()));
                return "ok";
            }
            case WAKEUP -> {
                selector.wakeup();
                wakeupPending = true;
                return "ok";
            }
            case INTERRUPT -> {
                interrupted = true;
                return "ok";
            }
            case CLEAR_INTERRUPT -> {
                boolean was = interrupted;
                interrupted = false;
                return "-> " + was;
            }
            case CLEAR_SELECTED -> {
                selector.selectedKeys().clear();
                return "ok";
            }
            case CLOSE_SELECTOR -> {
                selector.close();
                return "ok";
            }
            default -> {
                FuzzEndpoint endpoint = target(step);
                return endpoint == null ? SKIP : perform(step, endpoint);
            }
        }
    }

    private String perform(FuzzStep step, FuzzEndpoint endpoint) throws Exception {
        SelectionKey key = endpoint.key;
        switch (step.op()) {
            case REGISTER -> {
                endpoint.key = endpoint.local.register(selector, registeredOps(step, endpoint),
                        endpoints.indexOf(endpoint));
                return "ok";
            }
            case CONFIGURE_BLOCKING -> {
                endpoint.local.configureBlocking(step.arg() == 1);
                return "ok";
            }
            case CLOSE_LOCAL -> {
                endpoint.local.close();
                return "ok";
            }
            case CLOSE_PEER -> {
                return endpoint.closePeer() ? "ok" : SKIP;
            }
            case PEER_SEND -> {
                return endpoint.peerSend(step.arg()) ? "ok" : SKIP;
            }
            case DRAIN -> {
                return endpoint.drain() ? "ok" : SKIP;
            }
            case FINISH_CONNECT -> {
                return endpoint.local instanceof SocketChannel ? "-> " + endpoint.finishConnect() : SKIP;
            }
            default -> {
                // the rest work on the endpoint's key
            }
        }
        if (key == null) {
            return SKIP;
        }
        switch (step.op()) {
            case INTEREST_SET -> {
                key.interestOps(interest(step, endpoint));
                return "ok";
            }
            case INTEREST_OR -> {
                return "-> " + ContractSupport.ops(key.interestOpsOr(interest(step, endpoint)));
            }
            case INTEREST_AND -> {
                return "-> " + ContractSupport.ops(key.interestOpsAnd(mask(step)));
            }
            case CANCEL -> {
                key.cancel();
                return "ok";
            }
            case REMOVE_SELECTED -> {
                return "-> " + selector.selectedKeys().remove(key);
            }
            default -> throw new AssertionError(step);
        }
    }

    private String select(FuzzStep step) throws Exception {
        Op op = step.op();
        boolean forever = op == Op.SELECT || op == Op.SELECT_ACTION;
        if (forever && selector.isOpen() && !wakeupPending && !interrupted) {
            return SKIP; // nothing the model knows of would end it
        }
        try {
            if (!op.hasAction()) {
                return switch (op) {
                    case SELECT_NOW -> "-> " + selector.selectNow();
                    case SELECT_TIMEOUT -> "-> " + selector.select(step.arg());
                    default -> guarded(selector::select);
                };
            }
            List<String> consumed = new ArrayList<>();
            Consumer<SelectionKey> action = key -> consumed.add(consume(key, step.action()));
            String result = switch (op) {
                case SELECT_NOW_ACTION -> "-> " + selector.selectNow(action);
                case SELECT_TIMEOUT_ACTION -> "-> " + selector.select(action, step.arg());
                default -> guarded(() -> selector.select(action));
            };
            // The action sees keys in the kernel's order, which is the selector's own business.
            return result + " consumed " + consumed.stream().sorted().collect(Collectors.toList());
        } finally {
            wakeupPending = false;
        }
    }

    private String consume(SelectionKey key, Action action) {
        String seen = name(key) + ":" + ContractSupport.ops(key.readyOps());
        switch (action) {
            case RECORD -> {
            }
            case CANCEL -> key.cancel();
            case QUIET -> key.interestOpsAnd(~key.readyOps());
            case NESTED_SELECT -> {
                try {
                    selector.selectNow();
                    return seen + " nested select returned";
                } catch (IOException | RuntimeException e) {
                    return seen + " nested select threw " + e.getClass().getSimpleName();
                }
            }
            case CLOSE_SELECTOR -> {
                try {
                    selector.close();
                } catch (IOException e) {
                    return seen + " close threw " + e.getClass().getSimpleName();
                }
            }
        }
        return seen;
    }

    /** A select that only a pending wakeup or interrupt ends: bounded, in case it is not ended. */
    private String guarded(Callable<Integer> select) throws Exception {
        Object lock = new Object();
        boolean[] state = new boolean[2]; // returned, guard fired
        ScheduledFuture<?> guard = GUARD.schedule(() -> {
            synchronized (lock) {
                if (!state[0]) {
                    state[1] = true;
                    selector.wakeup();
                }
            }
        }, AWAIT_MS, TimeUnit.MILLISECONDS);
        int n;
        try {
            n = select.call();
        } finally {
            synchronized (lock) {
                state[0] = true;
            }
            guard.cancel(false);
        }
        return state[1] ? "did not return within " + AWAIT_MS + " ms despite a pending wakeup or interrupt"
                : "-> " + n;
    }

    private static int registeredOps(FuzzStep step, FuzzEndpoint endpoint) {
        return step.arg() & endpoint.local.validOps();
    }

    private static int interest(FuzzStep step, FuzzEndpoint endpoint) {
        return (step.extra() & FuzzStep.RAW) != 0 ? step.arg() : step.arg() & endpoint.local.validOps();
    }

    private static int mask(FuzzStep step) {
        return (step.extra() & FuzzStep.COMPLEMENT) != 0 ? ~step.arg() : step.arg();
    }

    private FuzzEndpoint target(FuzzStep step) {
        return endpoints.isEmpty() ? null : endpoints.get(step.target() % endpoints.size());
    }

    // ---- the state two worlds must agree on ----------------------------------------------

    private String state() {
        StringBuilder text = new StringBuilder();
        if (interrupted) {
            text.append("interrupted; ");
        }
        if (selector.isOpen()) {
            text.append("keys ").append(names(selector.keys(), false))
                    .append(" selected ").append(names(selector.selectedKeys(), true));
        } else {
            text.append("selector closed");
        }
        for (int i = 0; i < endpoints.size(); i++) {
            FuzzEndpoint endpoint = endpoints.get(i);
            text.append("; e").append(i).append(' ').append(channelState(endpoint));
        }
        return text.toString();
    }

    private String channelState(FuzzEndpoint endpoint) {
        StringBuilder text = new StringBuilder();
        text.append(endpoint.local.isOpen() ? "open" : "closed")
                .append(endpoint.local.isBlocking() ? " blocking" : "")
                .append(endpoint.local.isRegistered() ? " registered" : "");
        SelectionKey key = endpoint.key;
        if (key != null) {
            text.append(key.isValid() ? " key interest " + ContractSupport.ops(key.interestOps()) + " ready "
                    + ContractSupport.ops(key.readyOps()) : " key cancelled");
            SelectionKey found = endpoint.local.keyFor(selector);
            text.append(found == key ? "" : found == null ? ", keyFor null" : ", keyFor another key");
        }
        return text.toString();
    }

    /** Keys named by their endpoints, sorted; with their ready sets if asked (selected keys may be cancelled). */
    private static String names(Set<SelectionKey> keys, boolean withReadyOps) {
        TreeMap<Integer, String> sorted = new TreeMap<>();
        for (SelectionKey key : keys) {
            String text = name(key);
            if (withReadyOps) {
                try {
                    text += ":" + ContractSupport.ops(key.readyOps());
                } catch (CancelledKeyException e) {
                    text += ":cancelled";
                }
            }
            sorted.put((Integer) key.attachment(), text);
        }
        return sorted.values().toString();
    }

    private static String name(SelectionKey key) {
        return "e" + key.attachment();
    }

    // ---- the program as Java -------------------------------------------------------------

    /** The step as a line of Java, with the endpoint it picks in this world now. */
    String describe(FuzzStep step) {
        Op op = step.op();
        if (op == Op.OPEN) {
            FuzzEndpoint.Kind kind = FuzzEndpoint.Kind.values()[step.arg()];
            return "e" + endpoints.size() + " = open(" + kind + "); // " + kind.opener();
        }
        FuzzEndpoint endpoint = target(step);
        String e = endpoint == null ? "e?" : "e" + endpoints.indexOf(endpoint);
        return switch (op) {
            case REGISTER -> e + ".key = " + e + ".local.register(selector, "
                    + javaOps(endpoint == null ? step.arg() : registeredOps(step, endpoint)) + ", "
                    + e.substring(1) + ");";
            case INTEREST_SET -> e + ".key.interestOps(" + javaOps(interestOf(step, endpoint)) + ");";
            case INTEREST_OR -> e + ".key.interestOpsOr(" + javaOps(interestOf(step, endpoint)) + ");";
            case INTEREST_AND -> e + ".key.interestOpsAnd(" + ((step.extra() & FuzzStep.COMPLEMENT) != 0 ? "~" : "")
                    + javaOps(step.arg()) + ");";
            case CANCEL -> e + ".key.cancel();";
            case CLOSE_LOCAL -> e + ".local.close();";
            case CLOSE_PEER -> e + ".peer.close(); // then wait until " + e + ".local shows it";
            case PEER_SEND -> (endpoint != null && endpoint.kind == FuzzEndpoint.Kind.LISTENER
                    ? "connect a client to " + e + ".local"
                    : e + ".peer.write(" + step.arg() + " bytes)") + "; // then wait until " + e + ".local is ready";
            case DRAIN -> "drain(" + e + ".local); // read, receive or accept all that was sent";
            case CONFIGURE_BLOCKING -> e + ".local.configureBlocking(" + (step.arg() == 1) + ");";
            case FINISH_CONNECT -> e + ".local.finishConnect();";
            case SELECT_NOW -> "selector.selectNow();";
            case SELECT_TIMEOUT -> "selector.select(" + step.arg() + ");";
            case SELECT -> "selector.select(); // only with a wakeup or interrupt pending";
            case SELECT_NOW_ACTION -> "selector.selectNow(" + step.action().source + ");";
            case SELECT_TIMEOUT_ACTION -> "selector.select(" + step.action().source + ", " + step.arg() + ");";
            case SELECT_ACTION -> "selector.select(" + step.action().source + "); // only with a wakeup or interrupt pending";
            case WAKEUP -> "selector.wakeup();";
            case INTERRUPT -> "Thread.currentThread().interrupt();";
            case CLEAR_INTERRUPT -> "Thread.interrupted();";
            case REMOVE_SELECTED -> "selector.selectedKeys().remove(" + e + ".key);";
            case CLEAR_SELECTED -> "selector.selectedKeys().clear();";
            case CLOSE_SELECTOR -> "selector.close();";
            default -> throw new AssertionError(op);
        };
    }

    private static int interestOf(FuzzStep step, FuzzEndpoint endpoint) {
        return endpoint == null ? step.arg() : interest(step, endpoint);
    }

    private static String javaOps(int ops) {
        return ops == 0 ? "0" : "OP_" + ContractSupport.ops(ops).replace("|", " | OP_");
    }

    @Override
    public void close() {
        ContractChannels.closeQuietly(selector);
        for (FuzzEndpoint endpoint : endpoints) {
            endpoint.close();
        }
        Thread.interrupted();
    }
}
