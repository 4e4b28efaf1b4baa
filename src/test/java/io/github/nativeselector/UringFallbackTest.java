package io.github.nativeselector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.nativeselector.internal.Config;
import io.github.nativeselector.internal.NativeSelector;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.Pipe;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * io_uring where it is refused and where it is not. Child JVMs run {@link UringFallbackProbe}
 * under {@code deny_io_uring} (a seccomp launcher built with the native library, which makes
 * io_uring's system calls fail with EPERM as container runtimes' default profiles do): asked for
 * by name, io_uring fails saying why; {@code auto} still gives a working native selector. And in
 * this JVM: a select that finds completions already in the ring makes no system call.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class UringFallbackTest {

    @Test
    void ioUringByNameFailsUnderSeccompSayingWhy() throws Exception {
        InstallChild.Result child = runProbe(true, "-D" + Config.BACKEND_PROPERTY + "=io_uring");
        assertEquals(3, child.exitCode(), child::toString);
        assertEquals(NativeSelectorProvider.class.getName(), child.value("provider"), child::toString);
        String error = child.value("error");
        assertNotNull(error, child::toString);
        assertTrue(error.startsWith("java.io.IOException: "), () -> "not an IOException: " + child);
        assertTrue(error.contains("io_uring is unavailable"), () -> "does not say io_uring is unavailable: " + error);
        assertTrue(error.contains("seccomp"), () -> "does not name seccomp as a cause: " + error);
        assertTrue(error.contains("kernel.io_uring_disabled"), () -> "does not name the sysctl: " + error);
        assertTrue(error.contains("errno 1"), () -> "not EPERM: " + error);
        assertFalse(child.stderr().contains("native selector unavailable"),
                () -> "io_uring asked for by name must fail, not fall back: " + child);
    }

    @Test
    void autoUnderSeccompGivesAWorkingNativeSelector() throws Exception {
        InstallChild.Result child = runProbe(true, "-D" + Config.BACKEND_PROPERTY + "=auto");
        assertEquals(0, child.exitCode(), child::toString);
        assertEquals(NativeSelector.class.getName(), child.value("selector"), child::toString);
        assertEquals("epoll", child.value("backend"), child::toString);
        assertEquals("ok rounds=5", child.value("roundtrip"), child::toString);
        assertFalse(child.stderr().contains("native selector unavailable"), child::toString);
    }

    @Test
    void ioUringByNameWorksWithoutTheLauncher() throws Exception {
        InstallChild.Result child = runProbe(false, "-D" + Config.BACKEND_PROPERTY + "=io_uring");
        assertEquals(0, child.exitCode(), () -> "io_uring could not be used on this machine at all, so the "
                + "refusal under seccomp proves nothing: " + child);
        assertEquals(NativeSelector.class.getName(), child.value("selector"), child::toString);
        assertEquals("io_uring", child.value("backend"), child::toString);
        assertEquals("ok rounds=5", child.value("roundtrip"), child::toString);
    }

    /**
     * The backend's promise: completions already in the completion ring are returned with no
     * system call. The polls of 50 pipes are armed by this thread; its own writes to the pipes
     * post the completions (on the way back from each write), so the select that follows finds
     * all 50 in the ring and needs no {@code io_uring_enter}. Each round then drains the pipes and
     * a selectNow re-arms the polls (that one is a system call).
     */
    @Test
    void selectFindingCompletionsInTheRingMakesNoSystemCall() throws IOException {
        final int pipes = 50;
        final int rounds = 10;
        String previous = System.getProperty(Config.BACKEND_PROPERTY);
        List<Pipe> opened = new ArrayList<>();
        try {
            System.setProperty(Config.BACKEND_PROPERTY, "io_uring");
            try (Selector selector = new NativeSelectorProvider().openSelector()) {
                assertEquals("io_uring", SelectorStats.of(selector).orElseThrow().backend());
                for (int i = 0; i < pipes; i++) {
                    Pipe pipe = Pipe.open();
                    opened.add(pipe);
                    pipe.source().configureBlocking(false);
                    pipe.source().register(selector, SelectionKey.OP_READ, pipe);
                }
                assertEquals(0, selector.selectNow()); // applies the registrations: polls armed
                ByteBuffer one = ByteBuffer.allocate(1);
                ByteBuffer sink = ByteBuffer.allocate(16);
                int reported = 0;
                for (int round = 0; round < rounds; round++) {
                    for (Pipe pipe : opened) {
                        one.clear().put((byte) round).flip();
                        assertEquals(1, pipe.sink().write(one));
                    }
                    int[] selected = {0};
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                    while (selected[0] < pipes) {
                        assertTrue(System.nanoTime() - deadline < 0,
                                "round " + round + ": " + selected[0] + " of " + pipes + " pipes selected in 10 s");
                        selector.select(key -> {
                            Pipe pipe = (Pipe) key.attachment();
                            try {
                                sink.clear();
                                if (pipe.source().read(sink) > 0) {
                                    selected[0]++;
                                }
                            } catch (IOException e) {
                                throw new java.io.UncheckedIOException(e);
                            }
                        }, 1000);
                    }
                    reported += selected[0];
                    assertEquals(0, selector.selectNow(), "round " + round + ": drained pipes selected");
                }
                assertEquals(rounds * pipes, reported);
                SelectorStats stats = SelectorStats.of(selector).orElseThrow();
                assertTrue(stats.pollsWithoutSyscall() > 0,
                        () -> "no select found completions waiting in the ring: " + stats);
                assertTrue(stats.pollsWithoutSyscall() <= stats.polls(), stats::toString);
                assertTrue(stats.readyEvents() >= (long) rounds * pipes, stats::toString);
            }
        } finally {
            for (Pipe pipe : opened) {
                pipe.source().close();
                pipe.sink().close();
            }
            if (previous == null) {
                System.clearProperty(Config.BACKEND_PROPERTY);
            } else {
                System.setProperty(Config.BACKEND_PROPERTY, previous);
            }
        }
    }

    // ---- child JVMs ----------------------------------------------------------------------

    /** Runs {@link UringFallbackProbe} under the flag in a child JVM, through the launcher or not. */
    private static InstallChild.Result runProbe(boolean denyIoUring, String backendArg) throws Exception {
        List<String> launcher = denyIoUring ? List.of(InstallChild.denyIoUringLauncher()) : List.of();
        return InstallChild.run(launcher, InstallChild.testClassPath(), List.of(InstallChild.FLAG, backendArg),
                UringFallbackProbe.class);
    }
}
