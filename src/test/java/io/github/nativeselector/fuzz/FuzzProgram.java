/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.fuzz;

import io.github.nativeselector.fuzz.FuzzStep.Action;
import io.github.nativeselector.fuzz.FuzzStep.Op;
import java.nio.channels.SelectionKey;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/** A random program of selector operations, the same for every seed. */
public record FuzzProgram(long seed, List<FuzzStep> steps) {

    /** Relative frequencies: selects and the changes between them dominate; closing the selector is placed apart. */
    private static final EnumMap<Op, Integer> WEIGHTS = weights();
    private static final int TOTAL_WEIGHT = WEIGHTS.values().stream().mapToInt(Integer::intValue).sum();

    private static final int[] OP_BITS = {
        SelectionKey.OP_READ, SelectionKey.OP_WRITE, SelectionKey.OP_CONNECT, SelectionKey.OP_ACCEPT,
    };

    /**
     * A program of up to {@code maxSteps} steps: a few endpoints opened and registered, then
     * random operations.
     */
    public static FuzzProgram generate(long seed, int maxSteps) {
        SplittableRandom random = new SplittableRandom(seed);
        List<FuzzStep> steps = new ArrayList<>();
        int opened = 1 + random.nextInt(4);
        for (int i = 0; i < opened; i++) {
            steps.add(open(random));
        }
        for (int i = 0; i < opened; i++) {
            steps.add(new FuzzStep(Op.REGISTER, i, opBits(random), 0));
        }
        int length = Math.max(steps.size(), maxSteps / 2 + random.nextInt(maxSteps / 2 + 1));
        while (steps.size() < length) {
            steps.add(randomStep(random));
        }
        if (random.nextInt(4) == 0) {
            // Closed near the end: the steps after it meet a closed selector.
            steps.add(steps.size() - random.nextInt(Math.min(6, steps.size())), new FuzzStep(Op.CLOSE_SELECTOR, 0, 0, 0));
        }
        return new FuzzProgram(seed, List.copyOf(steps));
    }

    FuzzProgram withSteps(List<FuzzStep> shorter) {
        return new FuzzProgram(seed, List.copyOf(shorter));
    }

    private static FuzzStep randomStep(SplittableRandom random) {
        Op op = pick(random);
        int target = random.nextInt(1 << 16);
        return switch (op) {
            case OPEN -> open(random);
            case REGISTER -> new FuzzStep(op, target, opBits(random), 0);
            case INTEREST_SET, INTEREST_OR -> new FuzzStep(op, target, opBits(random),
                    random.nextInt(10) == 0 ? FuzzStep.RAW : 0);
            case INTEREST_AND -> new FuzzStep(op, target, opBits(random),
                    random.nextBoolean() ? FuzzStep.COMPLEMENT : 0);
            case PEER_SEND -> new FuzzStep(op, target, 1 + random.nextInt(2000), 0);
            case CONFIGURE_BLOCKING -> new FuzzStep(op, target, random.nextInt(3) == 0 ? 1 : 0, 0);
            case SELECT_TIMEOUT -> new FuzzStep(op, target, 1 + random.nextInt(10), 0);
            case SELECT_NOW_ACTION, SELECT_TIMEOUT_ACTION, SELECT_ACTION ->
                    new FuzzStep(op, target, 1 + random.nextInt(10), action(random).ordinal());
            default -> new FuzzStep(op, target, 0, 0);
        };
    }

    private static FuzzStep open(SplittableRandom random) {
        FuzzEndpoint.Kind[] kinds = FuzzEndpoint.Kind.values();
        return new FuzzStep(Op.OPEN, 0, random.nextInt(kinds.length), 0);
    }

    /** Any of the four operations, each with probability one half (some invalid for the channel). */
    private static int opBits(SplittableRandom random) {
        int bits = 0;
        for (int bit : OP_BITS) {
            if (random.nextBoolean()) {
                bits |= bit;
            }
        }
        return bits;
    }

    private static Action action(SplittableRandom random) {
        int dice = random.nextInt(100);
        if (dice < 40) {
            return Action.RECORD;
        }
        if (dice < 60) {
            return Action.QUIET;
        }
        if (dice < 80) {
            return Action.CANCEL;
        }
        return dice < 98 ? Action.NESTED_SELECT : Action.CLOSE_SELECTOR;
    }

    private static Op pick(SplittableRandom random) {
        int dice = random.nextInt(TOTAL_WEIGHT);
        for (Map.Entry<Op, Integer> entry : WEIGHTS.entrySet()) { // in declaration order: the same for every run
            dice -= entry.getValue();
            if (dice < 0) {
                return entry.getKey();
            }
        }
        throw new AssertionError();
    }

    private static EnumMap<Op, Integer> weights() {
        EnumMap<Op, Integer> weights = new EnumMap<>(Op.class);
        weights.put(Op.OPEN, 5);
        weights.put(Op.REGISTER, 9);
        weights.put(Op.INTEREST_SET, 6);
        weights.put(Op.INTEREST_OR, 4);
        weights.put(Op.INTEREST_AND, 4);
        weights.put(Op.CANCEL, 3);
        weights.put(Op.CLOSE_LOCAL, 2);
        weights.put(Op.CLOSE_PEER, 2);
        weights.put(Op.PEER_SEND, 10);
        weights.put(Op.DRAIN, 6);
        weights.put(Op.CONFIGURE_BLOCKING, 3);
        weights.put(Op.FINISH_CONNECT, 2);
        weights.put(Op.SELECT_NOW, 8);
        weights.put(Op.SELECT_TIMEOUT, 4);
        weights.put(Op.SELECT, 2);
        weights.put(Op.SELECT_NOW_ACTION, 5);
        weights.put(Op.SELECT_TIMEOUT_ACTION, 3);
        weights.put(Op.SELECT_ACTION, 2);
        weights.put(Op.WAKEUP, 4);
        weights.put(Op.INTERRUPT, 2);
        weights.put(Op.CLEAR_INTERRUPT, 2);
        weights.put(Op.REMOVE_SELECTED, 3);
        weights.put(Op.CLEAR_SELECTED, 5);
        return weights;
    }
}
