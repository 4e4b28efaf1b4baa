package io.github.nativeselector.jmh;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;

/**
 * The summary of one {@code scripts/bench-backends} run: one table with io_uring, epoll and the
 * JDK's selector side by side, and the ratios io_uring/jdk, epoll/jdk and io_uring/epoll.
 *
 * <pre>
 * java -cp native-selector-jmh.jar io.github.nativeselector.jmh.Report JMH_JSON ECHO_RESULTS CSV_OUT
 * </pre>
 *
 * <p>{@code JMH_JSON} is JMH's {@code -rf json} output; every cell is the median of all measured
 * iterations of all forks. {@code ECHO_RESULTS} holds {@code scripts/demo}'s raw lines
 * ({@code run=LABEL round=N demo key=value ...}); each cell is the median over the rounds, or
 * {@code -} to leave the echo section out. The table goes to standard output, and the same
 * rows with their minimum and maximum to {@code CSV_OUT}.
 */
public final class Report {

    private static final String[] BACKENDS = {Selectors.IO_URING, Selectors.EPOLL, Selectors.JDK};
    /** The order of the rows; benchmarks not named here come after, in the file's order. */
    private static final List<String> ORDER = List.of(
            "SelectCost.selectNow", "Churn.registerCancel", "Churn.registerCancelBatch", "Churn.interestToggle");

    private Report() {}

    /** One row: a statistic per backend. */
    record Row(String section, String name, String params, String unit, Map<String, Stat> byBackend) {
        Stat get(String backend) {
            return byBackend.get(backend);
        }
    }

    /** The median, minimum and maximum of a row's samples for one backend. */
    record Stat(double median, double min, double max, int samples) {
        static Stat of(List<Double> values) {
            double[] v = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
            int n = v.length;
            double median = n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
            return new Stat(median, v[0], v[n - 1], n);
        }

        double spread() {
            return median == 0 ? 0 : (max - min) / median;
        }
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 3) {
            System.err.println("usage: Report JMH_JSON ECHO_RESULTS|- CSV_OUT");
            System.exit(2);
        }
        List<Object> runs = asList(Json.parse(Files.readString(Path.of(args[0]), StandardCharsets.UTF_8)));
        List<Row> rows = new ArrayList<>(jmhRows(runs));
        Map<String, String> echoSettings = new LinkedHashMap<>();
        if (!args[1].equals("-")) {
            rows.addAll(echoRows(Files.readAllLines(Path.of(args[1]), StandardCharsets.UTF_8), echoSettings));
        }
        print(System.out, runs, rows, echoSettings);
        Files.write(Path.of(args[2]), csv(rows), StandardCharsets.UTF_8);
    }

    // ---- the JMH rows -----------------------------------------------------------------------

    static List<Row> jmhRows(List<Object> runs) {
        Map<String, Row> rows = new LinkedHashMap<>();
        Map<String, List<Double>> samples = new HashMap<>();
        for (Object o : runs) {
            Map<String, Object> run = asMap(o);
            String benchmark = (String) run.get("benchmark");
            String name = benchmark.substring(benchmark.lastIndexOf('.', benchmark.lastIndexOf('.') - 1) + 1);
            Map<String, Object> params = run.containsKey("params") ? asMap(run.get("params")) : Map.of();
            String backend = (String) params.get("backend");
            StringJoiner other = new StringJoiner(" ");
            params.forEach((k, v) -> {
                if (!k.equals("backend")) {
                    other.add(k + "=" + v);
                }
            });
            Map<String, Object> metric = asMap(run.get("primaryMetric"));
            String key = name + " " + other;
            Row row = rows.computeIfAbsent(key, k -> new Row(name.startsWith("SelectCost") ? "select" : "churn",
                    name, other.toString(), (String) metric.get("scoreUnit"), new LinkedHashMap<>()));
            List<Double> values = samples.computeIfAbsent(key + " " + backend, k -> new ArrayList<>());
            for (Object fork : asList(metric.get("rawData"))) {
                for (Object value : asList(fork)) {
                    values.add(((Number) value).doubleValue());
                }
            }
            row.byBackend().put(backend, Stat.of(values));
        }
        List<Row> sorted = new ArrayList<>(rows.values());
        sorted.sort((a, b) -> Integer.compare(rank(a.name()), rank(b.name())));
        return sorted;
    }

    private static int rank(String name) {
        int i = ORDER.indexOf(name);
        return i < 0 ? ORDER.size() : i;
    }

    // ---- the echo rows ----------------------------------------------------------------------

    private static final String[][] ECHO_FIELDS = {
        {"requests_per_s", "requests/s", "req/s"},
        {"cpu_us_per_request", "server CPU us/request", "us"},
        {"p50_us", "p50 latency us", "us"},
        {"p99_us", "p99 latency us", "us"},
    };

    private static final String BEST = " (best round)";

    static List<Row> echoRows(List<String> lines, Map<String, String> settings) {
        Map<String, Map<String, List<Double>>> byField = new LinkedHashMap<>();
        Map<String, Integer> rounds = new HashMap<>();
        for (String line : lines) {
            Map<String, String> f = new HashMap<>();
            for (String token : line.trim().split("\\s+")) {
                int eq = token.indexOf('=');
                if (eq > 0) {
                    f.put(token.substring(0, eq), token.substring(eq + 1));
                }
            }
            String label = f.get("run");
            if (label == null) {
                continue;
            }
            rounds.merge(label, 1, Integer::sum);
            settings.put("connections", f.get("connections"));
            settings.put("size", f.get("size"));
            settings.put("seconds", f.get("seconds"));
            for (String[] field : ECHO_FIELDS) {
                String value = f.get(field[0]);
                if (value != null && !value.equals("-")) {
                    byField.computeIfAbsent(field[0], k -> new LinkedHashMap<>())
                            .computeIfAbsent(label, k -> new ArrayList<>()).add(Double.parseDouble(value));
                }
            }
        }
        settings.put("rounds", rounds.values().stream().min(Integer::compare).map(String::valueOf).orElse("0"));
        List<Row> rows = new ArrayList<>();
        for (String[] field : ECHO_FIELDS) {
            Map<String, Stat> stats = new LinkedHashMap<>();
            byField.getOrDefault(field[0], Map.of()).forEach((label, values) -> stats.put(label, Stat.of(values)));
            rows.add(new Row("echo", field[1], "", field[2], stats));
        }
        // Noise from a shared machine only ever adds cost: the best round is the other estimate.
        for (int i = 0; i < 2; i++) {
            String[] field = ECHO_FIELDS[i];
            boolean higherIsBetter = i == 0;
            Map<String, Stat> best = new LinkedHashMap<>();
            byField.getOrDefault(field[0], Map.of()).forEach((label, values) -> {
                Stat all = Stat.of(values);
                double v = higherIsBetter ? all.max() : all.min();
                best.put(label, new Stat(v, v, v, values.size()));
            });
            rows.add(new Row("echo", field[1] + BEST, "", field[2], best));
        }
        return rows;
    }

    // ---- output -----------------------------------------------------------------------------

    private static final String LINE = "  %-34s %10s %10s %10s  %12s  %10s  %14s  %6s%n";

    static void print(PrintStream out, List<Object> runs, List<Row> rows, Map<String, String> echo) {
        if (!runs.isEmpty()) {
            Map<String, Object> first = asMap(runs.get(0));
            out.printf(Locale.ROOT, "JMH %s, JDK %s (%s); per cell %s fork(s) of %s warm-up x %s"
                            + " + %s measured x %s; each cell the median of all measured iterations%n",
                    first.get("jmhVersion"), first.get("jdkVersion"), first.get("vmName"), whole(first.get("forks")),
                    whole(first.get("warmupIterations")), first.get("warmupTime"),
                    whole(first.get("measurementIterations")), first.get("measurementTime"));
        }
        out.println("  ratio < 1: the first selector costs less (for requests/s: > 1 is the first doing more);"
                + " spread: largest (max - min) / median of the row's cells");
        section(out, rows, "select", "(1) select cost: ns per selectNow() finding 1 ready pipe among N idle"
                + " UDP channels (SelectCost)", "registered idle N");
        section(out, rows, "churn", "(2) registration churn on 1000 idle registered channels, ns per operation"
                + " (Churn; threshold: nativeselector.batchThreshold)", "benchmark",
                "  registerCancel: register + cancel + selectNow, one channel; registerCancelBatch: per channel of"
                        + " 64 registered, selectNow, cancelled, selectNow;",
                "  interestToggle: per interest change of 64 keys OP_READ -> 0, selectNow, 0 -> OP_READ,"
                        + " selectNow (the JDK ignores the threshold)");
        if (rows.stream().anyMatch(r -> r.section().equals("echo"))) {
            section(out, rows, "echo", String.format(Locale.ROOT, "(3) echo server, %s connections, %s-byte"
                            + " messages: median of %s rounds of %s s (scripts/demo)", echo.get("connections"),
                    echo.get("size"), echo.get("rounds"), echo.get("seconds")), "");
        }
    }

    private static void section(PrintStream out, List<Row> rows, String section, String title, String first,
            String... legend) {
        if (rows.stream().noneMatch(r -> r.section().equals(section))) {
            return;
        }
        out.println();
        out.println(title);
        out.printf(Locale.ROOT, LINE, first, BACKENDS[0], BACKENDS[1], BACKENDS[2],
                "io_uring/jdk", "epoll/jdk", "io_uring/epoll", "spread");
        for (Row row : rows) {
            if (!row.section().equals(section)) {
                continue;
            }
            String label = switch (section) {
                case "select" -> row.params().replace("registered=", "");
                case "churn" -> row.name().substring(row.name().indexOf('.') + 1) + ", threshold "
                        + row.params().replace("batchThreshold=", "");
                default -> row.name();
            };
            double spread = 0;
            for (String b : BACKENDS) {
                Stat s = row.get(b);
                if (s != null) {
                    spread = Math.max(spread, s.spread());
                }
            }
            boolean wholeNumbers = row.unit().equals("req/s");
            out.printf(Locale.ROOT, LINE, label, value(row, BACKENDS[0], wholeNumbers),
                    value(row, BACKENDS[1], wholeNumbers), value(row, BACKENDS[2], wholeNumbers),
                    ratio(row, Selectors.IO_URING, Selectors.JDK), ratio(row, Selectors.EPOLL, Selectors.JDK),
                    ratio(row, Selectors.IO_URING, Selectors.EPOLL),
                    row.name().endsWith(BEST) ? "-" : String.format(Locale.ROOT, "%.0f%%", 100 * spread));
        }
        for (String line : legend) {
            out.println(line);
        }
    }

    private static String whole(Object number) {
        return number instanceof Double d ? Long.toString(Math.round(d)) : String.valueOf(number);
    }

    private static String value(Row row, String backend, boolean wholeNumbers) {
        Stat s = row.get(backend);
        if (s == null) {
            return "-";
        }
        double m = s.median();
        return String.format(Locale.ROOT, wholeNumbers || m >= 1000 ? "%.0f" : m >= 10 ? "%.1f" : "%.3f", m);
    }

    private static String ratio(Row row, String a, String b) {
        Stat x = row.get(a);
        Stat y = row.get(b);
        return x == null || y == null || y.median() == 0 ? "-"
                : String.format(Locale.ROOT, "%.2f", x.median() / y.median());
    }

    static List<String> csv(List<Row> rows) {
        List<String> lines = new ArrayList<>();
        StringJoiner header = new StringJoiner(",");
        header.add("section").add("benchmark").add("params").add("unit");
        for (String b : BACKENDS) {
            header.add(b + "_median");
        }
        header.add("io_uring_over_jdk").add("epoll_over_jdk").add("io_uring_over_epoll");
        for (String b : BACKENDS) {
            header.add(b + "_min").add(b + "_max").add(b + "_samples");
        }
        lines.add(header.toString());
        for (Row row : rows) {
            StringJoiner line = new StringJoiner(",");
            line.add(row.section()).add(row.name()).add(row.params()).add(row.unit());
            for (String b : BACKENDS) {
                line.add(row.get(b) == null ? "" : number(row.get(b).median()));
            }
            line.add(csvRatio(row, Selectors.IO_URING, Selectors.JDK))
                    .add(csvRatio(row, Selectors.EPOLL, Selectors.JDK))
                    .add(csvRatio(row, Selectors.IO_URING, Selectors.EPOLL));
            for (String b : BACKENDS) {
                Stat s = row.get(b);
                line.add(s == null ? "" : number(s.min())).add(s == null ? "" : number(s.max()))
                        .add(s == null ? "" : Integer.toString(s.samples()));
            }
            lines.add(line.toString());
        }
        return lines;
    }

    private static String csvRatio(Row row, String a, String b) {
        String r = ratio(row, a, b);
        return r.equals("-") ? "" : String.format(Locale.ROOT, "%.4f", row.get(a).median() / row.get(b).median());
    }

    private static String number(double v) {
        return String.format(Locale.ROOT, "%.4f", v);
    }

    // ---- JSON -------------------------------------------------------------------------------

    @SuppressWarnings("unchecked")
    private static Map<String, Object> asMap(Object o) {
        return (Map<String, Object>) o;
    }

    @SuppressWarnings("unchecked")
    private static List<Object> asList(Object o) {
        return (List<Object>) o;
    }

    /** Just enough JSON for JMH's result file: objects, arrays, strings, numbers, literals. */
    static final class Json {
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
}
