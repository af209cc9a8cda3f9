package dev.fenced.internal.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** Tables and JSON for the commands' reports: one renderer for text, markdown and json. */
final class Output {

    private Output() {}

    enum Format {
        TEXT,
        JSON,
        MARKDOWN;

        static Format parse(@Nullable String value) throws CliException {
            if (value == null) {
                return TEXT;
            }
            try {
                return valueOf(value.trim().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw CliException.usage("--format " + value + ": expected text, json or markdown");
            }
        }
    }

    /** A table: a header row and rows of cells. */
    static final class Table {
        private final List<String> headers;
        private final List<List<String>> rows = new ArrayList<>();

        Table(String... headers) {
            this.headers = List.of(headers);
        }

        Table row(@Nullable String... cells) {
            rows.add(List.of(cells));
            return this;
        }

        boolean isEmpty() {
            return rows.isEmpty();
        }

        /**
         * Aligned columns; cells wider than {@code maxWidth} are cut with an ellipsis, except in the last column
         * (json and markdown keep them whole).
         */
        String text(int maxWidth) {
            int[] widths = new int[headers.size()];
            for (int i = 0; i < widths.length; i++) {
                widths[i] = headers.get(i).length();
                for (List<String> r : rows) {
                    widths[i] = Math.max(
                            widths[i], Math.min(maxWidth, oneLine(r.get(i)).length()));
                }
            }
            StringBuilder b = new StringBuilder();
            line(b, headers, widths, maxWidth);
            List<String> rule = new ArrayList<>();
            for (int w : widths) {
                rule.add("-".repeat(w));
            }
            line(b, rule, widths, maxWidth);
            for (List<String> r : rows) {
                line(b, r, widths, maxWidth);
            }
            return b.toString();
        }

        private static void line(StringBuilder b, List<String> cells, int[] widths, int maxWidth) {
            StringBuilder l = new StringBuilder();
            for (int i = 0; i < cells.size(); i++) {
                String c = oneLine(cells.get(i));
                if (c.length() > maxWidth && i < cells.size() - 1) { // the last column runs to the end of the line
                    c = c.substring(0, maxWidth - 3) + "...";
                }
                l.append(i == 0 ? "" : "  ").append(i == cells.size() - 1 ? c : pad(c, widths[i]));
            }
            b.append(l.toString().stripTrailing()).append('\n');
        }

        String markdown() {
            StringBuilder b = new StringBuilder();
            b.append("| ")
                    .append(String.join(
                            " | ", headers.stream().map(Output::markdownCell).toList()))
                    .append(" |\n");
            b.append("|").append("---|".repeat(headers.size())).append('\n');
            for (List<String> r : rows) {
                b.append("| ")
                        .append(String.join(
                                " | ", r.stream().map(Output::markdownCell).toList()))
                        .append(" |\n");
            }
            return b.toString();
        }
    }

    static String oneLine(String s) {
        return s == null ? "" : s.replaceAll("\\s+", " ").trim();
    }

    private static String pad(String s, int width) {
        return s.length() >= width ? s : s + " ".repeat(width - s.length());
    }

    private static String markdownCell(String s) {
        return oneLine(s).replace("|", "\\|");
    }

    /** A JSON value: maps (insertion order kept), lists, strings, numbers, booleans and null. */
    static String json(Object value) {
        StringBuilder b = new StringBuilder();
        json(b, value, "");
        return b.append('\n').toString();
    }

    private static void json(StringBuilder b, Object v, String indent) {
        String inner = indent + "  ";
        if (v == null) {
            b.append("null");
        } else if (v instanceof Map<?, ?> m) {
            if (m.isEmpty()) {
                b.append("{}");
                return;
            }
            b.append("{\n");
            int i = 0;
            for (Map.Entry<?, ?> e : m.entrySet()) {
                b.append(inner).append(quote(String.valueOf(e.getKey()))).append(": ");
                json(b, e.getValue(), inner);
                b.append(++i < m.size() ? ",\n" : "\n");
            }
            b.append(indent).append('}');
        } else if (v instanceof List<?> l) {
            if (l.isEmpty()) {
                b.append("[]");
                return;
            }
            b.append("[\n");
            for (int i = 0; i < l.size(); i++) {
                b.append(inner);
                json(b, l.get(i), inner);
                b.append(i + 1 < l.size() ? ",\n" : "\n");
            }
            b.append(indent).append(']');
        } else if (v instanceof Number || v instanceof Boolean) {
            b.append(v);
        } else {
            b.append(quote(v.toString()));
        }
    }

    static String quote(String s) {
        return dev.fenced.internal.observe.JsonText.quote(s);
    }
}
