/*
 * Copyright 2026 The native-selector Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.github.nativeselector.bench.harness;

import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;
import javax.imageio.ImageIO;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.internal.chartpart.Chart;
import org.knowm.xchart.style.Styler;

/** The plots of the experiments: one PNG per experiment, its charts side by side. */
final class Charts {

    static final int WIDTH = 640;
    static final int HEIGHT = 420;
    static final int ROW_WIDTH = 2 * WIDTH;

    private Charts() {}

    /** Writes {@code plots/EXPERIMENT.png} for each experiment that has figures; returns the files written. */
    static List<Path> write(List<Summary.Row> rows, Path directory) throws IOException {
        System.setProperty("java.awt.headless", "true");
        List<Path> written = new ArrayList<>();
        save(thresholdSweep(rows), directory.resolve(Experiments.THRESHOLD_SWEEP + ".png"), written);
        save(idleScale(rows), directory.resolve(Experiments.IDLE_SCALE + ".png"), written);
        save(selectorThreads(rows), directory.resolve(Experiments.SELECTOR_THREADS + ".png"), written);
        save(headToHead(rows), directory.resolve(Experiments.HEAD_TO_HEAD + ".png"), written);
        return written;
    }

    /** Saves the charts in one image, two to a row while they fit in {@link #ROW_WIDTH}; nothing when none has a series. */
    static void save(List<? extends Chart<?, ?>> charts, Path file, List<Path> written) throws IOException {
        List<BufferedImage> images = new ArrayList<>();
        for (Chart<?, ?> chart : charts) {
            if (!chart.getSeriesCollection().isEmpty()) {
                images.add(BitmapEncoder.getBufferedImage(chart));
            }
        }
        if (images.isEmpty()) {
            return;
        }
        List<List<BufferedImage>> rows = new ArrayList<>();
        for (BufferedImage image : images) {
            List<BufferedImage> last = rows.isEmpty() ? null : rows.get(rows.size() - 1);
            int used = last == null ? 0 : last.stream().mapToInt(BufferedImage::getWidth).sum();
            if (last == null || used + image.getWidth() > ROW_WIDTH) {
                rows.add(new ArrayList<>(List.of(image)));
            } else {
                last.add(image);
            }
        }
        int width = rows.stream().mapToInt(r -> r.stream().mapToInt(BufferedImage::getWidth).sum()).max().orElse(1);
        int height = rows.stream().mapToInt(r -> r.stream().mapToInt(BufferedImage::getHeight).max().orElse(0)).sum();
        BufferedImage sheet = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = sheet.createGraphics();
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, width, height);
        int y = 0;
        for (List<BufferedImage> row : rows) {
            int x = 0;
            for (BufferedImage image : row) {
                g.drawImage(image, x, y, null);
                x += image.getWidth();
            }
            y += row.stream().mapToInt(BufferedImage::getHeight).max().orElse(0);
        }
        g.dispose();
        if (!ImageIO.write(sheet, "png", file.toFile())) {
            throw new IOException("no PNG writer in this JDK");
        }
        written.add(file);
    }

    // ---- the experiments ----------------------------------------------------------------------

    private static List<XYChart> thresholdSweep(List<Summary.Row> all) {
        List<Summary.Row> rows = of(all, Experiments.THRESHOLD_SWEEP);
        List<XYChart> charts = new ArrayList<>();
        charts.add(byThreshold(rows, "Requests/s", "requests/s", Summary.Row::requestsPerSecond));
        charts.add(byThreshold(rows, "System calls for registration changes per ms", "calls/ms",
                Summary.Row::kernelCallsPerMs));
        charts.add(byThreshold(rows, "Server CPU per request", "CPU us/request", Summary.Row::cpuMicrosPerRequest));
        charts.add(byThreshold(rows, "p99 latency", "p99 us", Summary.Row::p99Micros));
        return charts;
    }

    /** A figure against the threshold, a line per backend; the JDK's selector (no threshold) as a flat line. */
    private static XYChart byThreshold(List<Summary.Row> rows, String title, String unit,
            Function<Summary.Row, Double> figure) {
        XYChart chart = xy(title, "batch threshold (log scale)", unit);
        chart.getStyler().setXAxisLogarithmic(true);
        addLines(chart, rows, r -> !r.server().isJdkReference(), r -> r.server().label(),
                r -> (double) r.server().threshold(), figure);
        addFlat(chart, rows, r -> r.server().isJdkReference(), r -> "nio-jdk (no threshold)", figure);
        return chart;
    }

    private static List<XYChart> idleScale(List<Summary.Row> all) {
        List<Summary.Row> rows = of(all, Experiments.IDLE_SCALE);
        XYChart cpu = xy("Server CPU per request", "idle connections", "CPU us/request");
        addLines(cpu, rows, r -> true, r -> r.server().label(), r -> (double) r.workload().idle(),
                Summary.Row::cpuMicrosPerRequest);
        XYChart rate = xy("Requests/s", "idle connections", "requests/s");
        addLines(rate, rows, r -> true, r -> r.server().label(), r -> (double) r.workload().idle(),
                Summary.Row::requestsPerSecond);
        return List.of(cpu, rate);
    }

    private static List<XYChart> selectorThreads(List<Summary.Row> all) {
        List<Summary.Row> rows = of(all, Experiments.SELECTOR_THREADS);
        return List.of(byThreads(rows, "Requests/s", "requests/s", Summary.Row::requestsPerSecond),
                byThreads(rows, "Server CPU per request", "CPU us/request", Summary.Row::cpuMicrosPerRequest));
    }

    /** A figure against the selector threads, a line per backend; thread-per-connection servers as flat lines. */
    private static XYChart byThreads(List<Summary.Row> rows, String title, String unit,
            Function<Summary.Row, Double> figure) {
        Predicate<Summary.Row> selectors = r -> r.server().threads() != ServerSpec.PER_CONNECTION;
        XYChart chart = xy(title, "selector threads", unit);
        addLines(chart, rows, selectors, r -> r.server().label(), r -> (double) r.server().threads(), figure);
        addFlat(chart, rows, selectors.negate(), r -> r.server().label() + " (a thread per connection)", figure);
        return chart;
    }

    private static List<CategoryChart> headToHead(List<Summary.Row> all) {
        List<Summary.Row> rows = of(all, Experiments.HEAD_TO_HEAD);
        CategoryChart rate = bars(rows, "Requests/s relative to nio-jdk (higher is better)", "x nio-jdk",
                Summary.Row::requestsVsJdk, false);
        CategoryChart cpu = bars(rows, "Server CPU per request relative to nio-jdk (lower is better)", "x nio-jdk",
                Summary.Row::cpuVsJdk, false);
        CategoryChart p99 = bars(rows, "p99 latency (log scale)", "p99 us", Summary.Row::p99Micros, true);
        return List.of(rate, cpu, p99);
    }

    // ---- building blocks ------------------------------------------------------------------------

    private static List<Summary.Row> of(List<Summary.Row> rows, String experiment) {
        return rows.stream().filter(r -> r.experiment().equals(experiment) && r.ok()).toList();
    }

    static XYChart xy(String title, String xTitle, String yTitle) {
        XYChart chart = new XYChartBuilder().width(WIDTH).height(HEIGHT).title(title).xAxisTitle(xTitle)
                .yAxisTitle(yTitle).build();
        chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS);
        chart.getStyler().setDefaultSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Line);
        chart.getStyler().setMarkerSize(6);
        chart.getStyler().setYAxisDecimalPattern("#,##0.##");
        return chart;
    }

    /** A line per series name through the points {@code (x, figure)} of the rows it selects. */
    static void addLines(XYChart chart, List<Summary.Row> rows, Predicate<Summary.Row> which,
            Function<Summary.Row, String> series, Function<Summary.Row, Double> x, Function<Summary.Row, Double> figure) {
        Map<String, List<double[]>> points = new LinkedHashMap<>();
        for (Summary.Row r : rows) {
            Double y = figure.apply(r);
            if (which.test(r) && y != null) {
                points.computeIfAbsent(series.apply(r), k -> new ArrayList<>()).add(new double[] {x.apply(r), y});
            }
        }
        points.forEach((name, list) -> {
            list.sort((a, b) -> Double.compare(a[0], b[0]));
            chart.addSeries(name, list.stream().mapToDouble(p -> p[0]).toArray(),
                    list.stream().mapToDouble(p -> p[1]).toArray());
        });
    }

    /** A flat line across the chart's x range for each row it selects (a figure with no x of its own). */
    static void addFlat(XYChart chart, List<Summary.Row> rows, Predicate<Summary.Row> which,
            Function<Summary.Row, String> series, Function<Summary.Row, Double> figure) {
        double low = Double.MAX_VALUE;
        double high = -Double.MAX_VALUE;
        for (XYSeries s : chart.getSeriesCollection()) {
            low = Math.min(low, s.getXMin());
            high = Math.max(high, s.getXMax());
        }
        if (low > high) {
            return;
        }
        for (Summary.Row r : rows) {
            Double y = figure.apply(r);
            if (which.test(r) && y != null && chart.getSeries(series.apply(r)) == null) {
                XYSeries flat = chart.addSeries(series.apply(r), new double[] {low, high}, new double[] {y, y});
                flat.setMarker(org.knowm.xchart.style.markers.SeriesMarkers.NONE);
            }
        }
    }

    /** Grouped bars: a group per workload, a bar per server. */
    private static CategoryChart bars(List<Summary.Row> rows, String title, String yTitle,
            Function<Summary.Row, Double> figure, boolean logarithmic) {
        CategoryChart chart = new CategoryChartBuilder().width(WIDTH * 2).height(HEIGHT).title(title)
                .xAxisTitle("workload").yAxisTitle(yTitle).build();
        chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
        chart.getStyler().setYAxisLogarithmic(logarithmic);
        Set<String> workloads = new LinkedHashSet<>();
        Map<String, Map<String, Double>> byServer = new LinkedHashMap<>();
        for (Summary.Row r : rows) {
            Double y = figure.apply(r);
            if (y != null && (!logarithmic || y > 0)) {
                workloads.add(r.workload().label());
                byServer.computeIfAbsent(r.server().label(), k -> new LinkedHashMap<>()).put(r.workload().label(), y);
            }
        }
        List<String> categories = List.copyOf(workloads);
        double lowest = Double.MAX_VALUE;
        for (Map.Entry<String, Map<String, Double>> server : byServer.entrySet()) {
            // A log axis takes no zero: there a server without a figure for every workload is left out.
            if (logarithmic && !server.getValue().keySet().containsAll(categories)) {
                continue;
            }
            List<Double> y = new ArrayList<>();
            for (String workload : categories) {
                double value = server.getValue().getOrDefault(workload, 0.0);
                y.add(value);
                lowest = Math.min(lowest, value);
            }
            chart.addSeries(server.getKey(), categories, y);
        }
        if (logarithmic && lowest != Double.MAX_VALUE) {
            // Bars start from the axis minimum, which must be positive on a log axis.
            chart.getStyler().setYAxisMin(Math.pow(10, Math.floor(Math.log10(lowest))));
        }
        return chart;
    }
}
