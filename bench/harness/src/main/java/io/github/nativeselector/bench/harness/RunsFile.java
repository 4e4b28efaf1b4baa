/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.bench.harness;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The runs file, written a run at a time as each ends, so that an interrupted harness leaves
 * what it measured; and the runs so far.
 */
final class RunsFile implements AutoCloseable {

    private final BufferedWriter out;
    private final List<RunRecord> records = new ArrayList<>();

    RunsFile(Path file) throws IOException {
        out = Files.newBufferedWriter(file, StandardCharsets.UTF_8);
        out.write(Csv.line(RunRecord.HEADER));
        out.newLine();
    }

    void add(RunRecord record) throws IOException {
        records.add(record);
        out.write(Csv.line(record.csvFields()));
        out.newLine();
        out.flush();
    }

    List<RunRecord> records() {
        return List.copyOf(records);
    }

    @Override
    public void close() throws IOException {
        out.close();
    }
}
