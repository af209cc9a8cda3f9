package dev.fenced.internal.cli;

import dev.fenced.internal.config.TableName;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The writer inventory's report ({@code fenced.observe.report}), read back by {@code check --inventory}: the
 * application's own record of which writers still write a protected table without a token, or send what fenced
 * cannot fence. JSON (the report's {@code .json} form) or the Markdown form, told apart by content.
 */
record InventoryFile(Path path, String written, long dropped, List<Table> tables, List<Writer> writers) {

    /** A table as the application registered it: its mode there. */
    record Table(String table, String mode) {}

    /** One writer that needs work: a statement shape sent to a table from a call site. */
    record Writer(String table, String kind, @Nullable String reason, String shape, String callSite, long shapeWrites) {
        boolean unfenceable() {
            return kind.equals("unfenceable");
        }
    }

    static final String WHAT = "a fenced writer inventory report (the JSON or Markdown fenced.observe.report writes)";

    static InventoryFile read(Path file) throws CliException {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw CliException.usage("--inventory " + file + ": cannot read it ("
                    + e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage()) + ")");
        }
        String t = text.strip();
        try {
            if (t.startsWith("{")) {
                return json(file, t);
            }
            if (t.startsWith(MARKDOWN_TITLE)) {
                return markdown(file, t);
            }
            throw new JsonReader.Malformed("it starts with neither '{' nor '" + MARKDOWN_TITLE + "'");
        } catch (JsonReader.Malformed | RuntimeException e) {
            throw CliException.usage("--inventory " + file + " is not " + WHAT + ": " + e.getMessage());
        }
    }

    /** The application's entry for a table check names, or null when the report does not list it. */
    @Nullable
    Table table(TableName name) {
        for (Table t : tables) {
            if (same(t.table(), name)) {
                return t;
            }
        }
        return null;
    }

    /** The writers of one table, in report order. */
    List<Writer> writersOf(TableName name) {
        return writers.stream().filter(w -> same(w.table(), name)).toList();
    }

    /** Distinct (shape, call site) pairs of a kind: how the inventory counts writers. */
    static int count(List<Writer> writers, boolean unfenceable) {
        Set<String> seen = new HashSet<>();
        for (Writer w : writers) {
            if (w.unfenceable() == unfenceable) {
                seen.add(w.shape() + '\u0000' + w.callSite());
            }
        }
        return seen.size();
    }

    private static boolean same(String reported, TableName name) {
        try {
            TableName r = TableName.parse(reported);
            return name.matchedBy(r) && r.matchedBy(name);
        } catch (RuntimeException e) {
            return false;
        }
    }

    // ---- JSON

    private static InventoryFile json(Path file, String text) throws JsonReader.Malformed {
        if (!(JsonReader.parse(text) instanceof Map<?, ?> doc)) {
            throw new JsonReader.Malformed("not a JSON object");
        }
        List<Table> tables = new ArrayList<>();
        for (Object o : list(doc, "tables")) {
            Map<?, ?> m = object(o, "tables");
            tables.add(new Table(string(m, "table"), string(m, "mode")));
        }
        List<Writer> writers = new ArrayList<>();
        for (Object o : list(doc, "writers")) {
            Map<?, ?> m = object(o, "writers");
            writers.add(new Writer(
                    string(m, "table"),
                    string(m, "kind"),
                    optional(m, "reason"),
                    string(m, "shape"),
                    string(m, "callSite"),
                    number(m, "shapeWrites")));
        }
        return new InventoryFile(file, string(doc, "written"), number(doc, "dropped"), tables, writers);
    }

    private static List<?> list(Map<?, ?> m, String key) throws JsonReader.Malformed {
        if (!(m.get(key) instanceof List<?> l)) {
            throw new JsonReader.Malformed("\"" + key + "\" is missing or not a list");
        }
        return l;
    }

    private static Map<?, ?> object(Object o, String in) throws JsonReader.Malformed {
        if (!(o instanceof Map<?, ?> m)) {
            throw new JsonReader.Malformed("an entry of \"" + in + "\" is not an object");
        }
        return m;
    }

    private static String string(Map<?, ?> m, String key) throws JsonReader.Malformed {
        if (!(m.get(key) instanceof String s)) {
            throw new JsonReader.Malformed("\"" + key + "\" is missing or not a string");
        }
        return s;
    }

    private static @Nullable String optional(Map<?, ?> m, String key) {
        return m.get(key) instanceof String s ? s : null;
    }

    private static long number(Map<?, ?> m, String key) throws JsonReader.Malformed {
        if (!(m.get(key) instanceof Long n) || n < 0) {
            throw new JsonReader.Malformed("\"" + key + "\" is missing or not a count");
        }
        return n;
    }

    // ---- Markdown

    private static final String MARKDOWN_TITLE = "# fenced writer inventory";
    private static final Pattern WRITTEN = Pattern.compile("^Written (\\S+)\\.\\s", Pattern.MULTILINE);
    private static final Pattern DROPPED = Pattern.compile("(\\d+) entries were not kept");

    private static InventoryFile markdown(Path file, String text) throws JsonReader.Malformed {
        Matcher written = WRITTEN.matcher(text);
        if (!written.find()) {
            throw new JsonReader.Malformed("no 'Written <time>.' line");
        }
        Matcher dropped = DROPPED.matcher(text);
        long lost = dropped.find() ? Long.parseLong(dropped.group(1)) : 0;
        List<Table> tables = new ArrayList<>();
        for (List<String> row : rows(text, "## Tables", 4)) {
            tables.add(new Table(row.get(0), row.get(1)));
        }
        List<Writer> writers = new ArrayList<>();
        for (List<String> row : rows(text, "## Writers", 9)) {
            long writes;
            try {
                writes = Long.parseLong(row.get(4));
            } catch (NumberFormatException e) {
                throw new JsonReader.Malformed("a writer row's writes is not a number: " + row.get(4));
            }
            writers.add(new Writer(row.get(0), row.get(1), row.get(2), code(row.get(3)), code(row.get(5)), writes));
        }
        return new InventoryFile(file, written.group(1), lost, tables, writers);
    }

    /** The body rows of the table under a heading, each split into its cells ({@code \|} unescaped). */
    private static List<List<String>> rows(String text, String heading, int cells) throws JsonReader.Malformed {
        int at = text.indexOf("\n" + heading + "\n");
        if (at < 0) {
            throw new JsonReader.Malformed("no '" + heading + "' section");
        }
        List<List<String>> out = new ArrayList<>();
        int line = 0;
        for (String l : text.substring(at + heading.length() + 2).split("\n", -1)) {
            if (l.isBlank() && line == 0) {
                continue;
            }
            if (!l.startsWith("|")) {
                break;
            }
            if (line++ < 2) {
                continue; // the header and its |---| line
            }
            List<String> row = cells(l);
            if (row.size() != cells) {
                throw new JsonReader.Malformed(
                        "a row under '" + heading + "' has " + row.size() + " cells, not " + cells + ": " + l);
            }
            out.add(row);
        }
        if (line < 2) {
            throw new JsonReader.Malformed("no table under '" + heading + "'");
        }
        return out;
    }

    private static List<String> cells(String line) {
        List<String> out = new ArrayList<>();
        StringBuilder cell = new StringBuilder();
        for (int i = 1; i < line.length(); i++) {
            char c = line.charAt(i);
            if (c == '\\' && i + 1 < line.length() && line.charAt(i + 1) == '|') {
                cell.append('|');
                i++;
            } else if (c == '|') {
                out.add(cell.toString().strip());
                cell.setLength(0);
            } else {
                cell.append(c);
            }
        }
        return out;
    }

    private static String code(String cell) {
        return cell.length() >= 2 && cell.startsWith("`") && cell.endsWith("`")
                ? cell.substring(1, cell.length() - 1)
                : cell;
    }
}
