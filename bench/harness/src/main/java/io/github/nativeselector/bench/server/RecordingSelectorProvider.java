package io.github.nativeselector.bench.server;

import io.github.nativeselector.bench.selectors.SelectorKind;
import java.io.IOException;
import java.net.ProtocolFamily;
import java.nio.channels.DatagramChannel;
import java.nio.channels.Pipe;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.spi.AbstractSelector;
import java.nio.channels.spi.SelectorProvider;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The provider handed to Netty's NIO transport: its selectors are of one {@link SelectorKind}
 * and are kept, so that the server can report their counters; channels are the JDK's own.
 */
final class RecordingSelectorProvider extends SelectorProvider {

    private final SelectorKind kind;
    private final int batchThreshold;
    private final SelectorProvider channels = SelectorProvider.provider();
    private final List<Selector> selectors = new CopyOnWriteArrayList<>();

    RecordingSelectorProvider(SelectorKind kind, int batchThreshold) {
        this.kind = kind;
        this.batchThreshold = batchThreshold;
    }

    List<Selector> selectors() {
        return selectors;
    }

    @Override
    public synchronized AbstractSelector openSelector() throws IOException {
        Selector selector = kind.open(batchThreshold);
        selectors.add(selector);
        return (AbstractSelector) selector;
    }

    @Override
    public DatagramChannel openDatagramChannel() throws IOException {
        return channels.openDatagramChannel();
    }

    @Override
    public DatagramChannel openDatagramChannel(ProtocolFamily family) throws IOException {
        return channels.openDatagramChannel(family);
    }

    @Override
    public Pipe openPipe() throws IOException {
        return channels.openPipe();
    }

    @Override
    public ServerSocketChannel openServerSocketChannel() throws IOException {
        return channels.openServerSocketChannel();
    }

    @Override
    public ServerSocketChannel openServerSocketChannel(ProtocolFamily family) throws IOException {
        return channels.openServerSocketChannel(family);
    }

    @Override
    public SocketChannel openSocketChannel() throws IOException {
        return channels.openSocketChannel();
    }

    @Override
    public SocketChannel openSocketChannel(ProtocolFamily family) throws IOException {
        return channels.openSocketChannel(family);
    }
}
