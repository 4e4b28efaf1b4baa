/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.bench.harness;

import io.github.nativeselector.bench.selectors.SelectorKind;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.internal.chartpart.Chart;
import org.knowm.xchart.style.Styler;

/**
 * The micro-benchmarks' results side by side: one row per benchmark and parameters, a column per
 * selector, and each selector's ratio to the JDK's epoll selector measured in the same run. A
 * benchmark of socket channels rather than selectors ({@code FileTransfer}) has a column per kind
 * of channel instead ({@code channels}: the JDK's or lean ones), and lean's ratio to the JDK's.
 *
 * <pre>
 * java -cp native-selector-harness.jar io.github.nativeselector.bench.harness.JmhReport JMH_JSON PROBE OUT_DIR
 * </pre>
 *
 * <p>{@code JMH_JSON} is JMH's {@code -rf json} output; every cell is the median of all measured
 * iterations of all forks. {@code PROBE} holds the probe's lines ({@code NAME ok} or
 * {@code NAME unavailable: REASON}); a selector that could not open gets rows saying why.
 * Writes {@code jmh.csv}, {@code jmh-summary.txt} and {@code plots/jmh.png} into {@code OUT_DIR}.
 */
public final class JmhReport {

    private static final List<String> BACKENDS = Arrays.stream(SelectorKind.values()).map(SelectorKind::id).toList();
    /** The values of a channel benchmark's {@code channels} parameter, the reference first. */
    private static final List<String> CHANNELS = List.of("jdk", "lean");
    /** The reference of both: the JDK's epoll selector, the JDK's socket channels. */
    private static final String JDK = SelectorKind.JDK.id();
    private static final List<String> ORDER = List.of("SelectCost.selectNow", "ReadyKeys.selectedKeys",
            "ReadyKeys.consumer", "Churn.registerCancel", "Churn.registerCancelBatch", "Churn.interestToggle",
            "Wakeup.roundTrip", "Wakeup.wakeupThenSelect", "FileTransfer.transferTo");

    /**
     * A benchmark with its parameters other than the one its columns compare: {@code backend}, or
     * {@code channels} when {@code byChannels}.
     */
    record Cell(String benchmark, String params, String unit, int readyKeys, boolean byChannels) {

        String comparedParam() {
            return comparedParam(byChannels);
        }

        static String comparedParam(boolean byChannels) {
            return byChannels ? "channels" : "backend";
        }

        /** The columns: the selectors, or the kinds of channel. */
        List<String> variants() {
            return byChannels ? CHANNELS : BACKENDS;
        }

        /** Why a column has no figures, when it is a selector that did not open here. */
        String unavailable(Map<String, String> unavailableBackends, String variant) {
            return byChannels ? null : unavailableBackends.get(variant);
        }
    }

    private JmhReport() {}

    public static void main(String[] args) throws IOException {
        if (args.length != 3) {
            System.err.println("usage: JmhReport JMH_JSON PROBE OUT_DIR");
            System.exit(64);
        }
        Map<Cell, Map<String, Spread>> cells = read(Json.asList(Json.parse(Files.readString(Path.of(args[0])))));
        Map<String, String> unavailable = unavailable(Files.readAllLines(Path.of(args[1]), StandardCharsets.UTF_8));
        Path out = Path.of(args[2]);
        Files.createDirectories(out.resolve("plots"));
        Files.write(out.resolve("jmh.csv"), csv(cells, unavailable), StandardCharsets.UTF_8);
        ByteArrayOutputStream text = new ByteArrayOutputStream();
        try (PrintStream table = new PrintStream(text, true, StandardCharsets.UTF_8)) {
            print(cells, unavailable, table);
        }
        Files.write(out.resolve("jmh-summary.txt"), text.toByteArray());
        System.out.print(text.toString(StandardCharsets.UTF_8));
        List<Path> written = new ArrayList<>();
        Charts.save(charts(cells), out.resolve("plots/jmh.png"), written);
        System.out.println("  JMH results: " + out.resolve("jmh.csv") + ", " + out.resolve("jmh-summary.txt")
                + (written.isEmpty() ? "" : ", " + written.get(0)));
    }

    static Map<Cell, Map<String, Spread>> read(List<Object> runs) {
        Map<Cell, Map<String, List<Double>>> samples = new TreeMap<>((a, b) -> {
            int c = Integer.compare(rank(a.benchmark()), rank(b.benchmark()));
            c = c != 0 ? c : a.benchmark().compareTo(b.benchmark());
            return c != 0 ? c : compareParams(a.params(), b.params());
        });
        for (Object o : runs) {
            Map<String, Object> run = Json.asMap(o);
            String full = (String) run.get("benchmark");
            String benchmark = full.substring(full.lastIndexOf('.', full.lastIndexOf('.') - 1) + 1);
            Map<String, Object> params = run.containsKey("params") ? Json.asMap(run.get("params")) : Map.of();
            boolean byChannels = params.containsKey(Cell.comparedParam(true));
            String compared = Cell.comparedParam(byChannels);
            StringBuilder other = new StringBuilder();
            params.forEach((k, v) -> {
                if (!k.equals(compared)) {
                    other.append(other.length() == 0 ? "" : " ").append(k).append('=').append(v);
                }
            });
            int ready = params.containsKey("ready") ? Integer.parseInt((String) params.get("ready")) : 0;
            Map<String, Object> metric = Json.asMap(run.get("primaryMetric"));
            Cell cell = new Cell(benchmark, other.toString(), (String) metric.get("scoreUnit"), ready, byChannels);
            List<Double> values = samples.computeIfAbsent(cell, k -> new LinkedHashMap<>())
                    .computeIfAbsent((String) params.get(compared), k -> new ArrayList<>());
            for (Object fork : Json.asList(metric.get("rawData"))) {
                for (Object value : Json.asList(fork)) {
                    values.add(((Number) value).doubleValue());
                }
            }
        }
        Map<Cell, Map<String, Spread>> cells = new LinkedHashMap<>();
        samples.forEach((cell, byBackend) -> {
            Map<String, Spread> stats = new LinkedHashMap<>();
            byBackend.forEach((backend, values) -> stats.put(backend, Spread.of(values)));
            cells.put(cell, stats);
        });
        return cells;
    }

    private static int rank(String benchmark) {
        int i = ORDER.indexOf(benchmark);
        return i < 0 ? ORDER.size() : i;
    }

    /** Parameters in numeric order where they are numbers ("registered=10" before "registered=1000"). */
    private static int compareParams(String a, String b) {
        String na = a.replaceAll("[^0-9]", "");
        String nb = b.replaceAll("[^0-9]", "");
        if (!na.isEmpty() && !nb.isEmpty() && na.length() < 18 && nb.length() < 18 && a.replaceAll("[0-9]", "")
                .equals(b.replaceAll("[0-9]", ""))) {
            return Long.compare(Long.parseLong(na), Long.parseLong(nb));
        }
        return a.compareTo(b);
    }

    static Map<String, String> unavailable(List<String> probe) {
        Map<String, String> reasons = new LinkedHashMap<>();
        for (String line : probe) {
            int space = line.indexOf(' ');
            if (space > 0 && line.startsWith("unavailable: ", space + 1)) {
                reasons.put(line.substring(0, space), line.substring(space + 1));
            }
        }
        return reasons;
    }

    /** The figure a cell is read by: per operation, or per ready key for the ready-key benchmarks. */
    private static double figure(Cell cell, Spread stat) {
        return cell.readyKeys() > 0 ? stat.median() / cell.readyKeys() : stat.median();
    }

    private static Double vsJdk(Map<String, Spread> stats, String variant) {
        Spread mine = stats.get(variant);
        Spread jdk = stats.get(JDK);
        return mine == null || jdk == null || jdk.median() == 0 ? null : mine.median() / jdk.median();
    }

    static List<String> csv(Map<Cell, Map<String, Spread>> cells, Map<String, String> unavailable) {
        List<String> lines = new ArrayList<>();
        lines.add(Csv.line(List.of("benchmark", "params", "variant", "compared", "status", "unit", "median", "min", "max",
                "samples", "ns_per_ready_key", "vs_jdk")));
        cells.forEach((cell, stats) -> {
            for (String variant : cell.variants()) {
                Spread s = stats.get(variant);
                String unavailableBecause = cell.unavailable(unavailable, variant);
                if (s != null) {
                    lines.add(Csv.line(List.of(cell.benchmark(), cell.params(), variant, cell.comparedParam(),
                            RunRecord.OK, cell.unit(), Csv.number(s.median(), 3), Csv.number(s.min(), 3),
                            Csv.number(s.max(), 3), Integer.toString(s.samples()),
                            cell.readyKeys() > 0 ? Csv.number(figure(cell, s), 3) : "",
                            Csv.number(vsJdk(stats, variant), 4))));
                } else if (unavailableBecause != null) {
                    lines.add(Csv.line(List.of(cell.benchmark(), cell.params(), variant, cell.comparedParam(),
                            unavailableBecause, cell.unit(), "", "", "", "", "", "")));
                }
            }
        });
        return lines;
    }

    static void print(Map<Cell, Map<String, Spread>> cells, Map<String, String> unavailable, PrintStream out) {
        out.println("Micro-benchmarks (JMH): ns per operation, median of all measured iterations;"
                + " ReadyKeys: ns per ready key delivered; x/jdk: ratio to the JDK's epoll selector (below 1: cheaper);"
                + " FileTransfer: a column per kind of socket channel, lean/jdk: ratio to the JDK's channels");
        unavailable.forEach((backend, reason) -> out.println("  " + backend + ": " + reason));
        String benchmark = "";
        for (Map.Entry<Cell, Map<String, Spread>> entry : cells.entrySet()) {
            Cell cell = entry.getKey();
            if (!cell.benchmark().equals(benchmark)) {
                benchmark = cell.benchmark();
                out.println();
                out.printf(Locale.ROOT, "  %-28s", benchmark);
                for (String b : cell.variants()) {
                    out.printf(Locale.ROOT, " %9s", b);
                }
                for (String b : cell.variants()) {
                    if (!b.equals(JDK)) {
                        out.printf(Locale.ROOT, " %13s", b + "/jdk");
                    }
                }
                out.println();
            }
            out.printf(Locale.ROOT, "  %-28s", cell.params().isEmpty() ? "-" : cell.params());
            for (String b : cell.variants()) {
                Spread s = entry.getValue().get(b);
                out.printf(Locale.ROOT, " %9s", s == null ? (cell.unavailable(unavailable, b) != null ? "n/a" : "-")
                        : String.format(Locale.ROOT, "%.1f", figure(cell, s)));
            }
            for (String b : cell.variants()) {
                if (!b.equals(JDK)) {
                    Double r = vsJdk(entry.getValue(), b);
                    out.printf(Locale.ROOT, " %13s", r == null ? "-" : String.format(Locale.ROOT, "%.2f", r));
                }
            }
            out.println();
        }
    }

    // ---- plots ------------------------------------------------------------------------------

    static List<Chart<?, ?>> charts(Map<Cell, Map<String, Spread>> cells) {
        List<Chart<?, ?>> charts = new ArrayList<>();
        charts.add(byParam(cells, "SelectCost.selectNow", "registered", "selectNow(), 1 ready of N", "registered N (log)",
                "ns per select"));
        charts.add(byParam(cells, "ReadyKeys.selectedKeys", "ready", "Per ready key, selectedKeys()",
                "ready keys of 1000 (log)", "ns per ready key"));
        charts.add(byParam(cells, "ReadyKeys.consumer", "ready", "Per ready key, select(Consumer)",
                "ready keys of 1000 (log)", "ns per ready key"));
        charts.add(byParam(cells, "Churn.registerCancel", "batchThreshold", "register + cancel + selectNow",
                "batch threshold (log)", "ns per operation"));
        charts.add(byParam(cells, "Churn.registerCancelBatch", "batchThreshold", "register/cancel 64, per channel",
                "batch threshold (log)", "ns per channel"));
        charts.add(byParam(cells, "Churn.interestToggle", "batchThreshold", "interest toggle, per change",
                "batch threshold (log)", "ns per change"));
        charts.add(wakeup(cells));
        return charts;
    }

    private static XYChart byParam(Map<Cell, Map<String, Spread>> cells, String benchmark, String param, String title,
            String xTitle, String yTitle) {
        XYChart chart = Charts.xy(title, xTitle, yTitle + " (log)");
        chart.getStyler().setXAxisLogarithmic(true);
        // The poll selector costs hundreds of times more at large N: only a log axis shows the rest.
        chart.getStyler().setYAxisLogarithmic(true);
        for (String backend : BACKENDS) {
            List<Double> x = new ArrayList<>();
            List<Double> y = new ArrayList<>();
            cells.forEach((cell, stats) -> {
                Spread s = stats.get(backend);
                String value = paramValue(cell.params(), param);
                if (cell.benchmark().equals(benchmark) && s != null && value != null) {
                    x.add(Double.parseDouble(value));
                    y.add(figure(cell, s));
                }
            });
            if (!x.isEmpty()) {
                chart.addSeries(backend, x, y);
            }
        }
        return chart;
    }

    private static String paramValue(String params, String name) {
        for (String p : params.split(" ")) {
            if (p.startsWith(name + "=")) {
                return p.substring(name.length() + 1);
            }
        }
        return null;
    }

    private static CategoryChart wakeup(Map<Cell, Map<String, Spread>> cells) {
        CategoryChart chart = new CategoryChartBuilder().width(Charts.WIDTH).height(Charts.HEIGHT).title("Wakeup")
                .xAxisTitle("benchmark").yAxisTitle("ns per operation").build();
        chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS);
        List<Cell> wakeups = cells.keySet().stream().filter(c -> c.benchmark().startsWith("Wakeup.")).toList();
        List<String> names = wakeups.stream().map(c -> c.benchmark().substring("Wakeup.".length())).toList();
        for (String backend : BACKENDS) {
            List<Double> y = new ArrayList<>();
            for (Cell cell : wakeups) {
                Spread s = cells.get(cell).get(backend);
                y.add(s == null ? 0.0 : s.median());
            }
            if (y.stream().anyMatch(v -> v > 0)) {
                chart.addSeries(backend, names, y);
            }
        }
        return chart;
    }
}
