package dev.fenced.internal.sql;

import dev.fenced.FencingMode;
import dev.fenced.internal.config.ProtectedTable;
import dev.fenced.internal.config.TableName;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * PostgreSQL 17's regression-suite DML ({@code corpus/pg-regress-dml.sql}) with its index: one {@link Record}
 * per statement, in file order, numbered from 1 as in the TSV.
 */
final class Corpus {

    /** One corpus statement and what the index says about it. */
    record Record(
            int number, String sql, String file, int line, boolean pgSyntaxOk, String topNode, List<String> tags) {
        @Override
        public String toString() {
            return "#" + number + " (" + file + ":" + line + ")";
        }
    }

    static final String SQL = "/corpus/pg-regress-dml.sql";
    static final String INDEX = "/corpus/pg-regress-dml.index.tsv";

    private Corpus() {}

    static List<Record> load() {
        String text = resource(SQL);
        // Records are separated by a line that is exactly "-- next"; the text before the first is the header.
        String[] parts = text.split("\r?\n-- next\r?\n", -1);
        List<String> statements = new ArrayList<>(Arrays.asList(parts).subList(1, parts.length));
        int last = statements.size() - 1;
        statements.set(last, statements.get(last).stripTrailing());
        String[] lines = resource(INDEX).split("\r?\n");
        List<Record> records = new ArrayList<>();
        for (int i = 1; i < lines.length; i++) {
            if (lines[i].isBlank()) {
                continue;
            }
            String[] f = lines[i].split("\t", -1);
            int n = Integer.parseInt(f[0]);
            if (n != records.size() + 1) {
                throw new IllegalStateException("index out of order at record " + n);
            }
            List<String> tags = f[5].isEmpty() ? List.of() : List.of(f[5].split(","));
            records.add(
                    new Record(n, statements.get(n - 1), f[1], Integer.parseInt(f[2]), f[3].equals("ok"), f[4], tags));
        }
        if (records.size() != statements.size()) {
            throw new IllegalStateException(statements.size() + " statements but " + records.size() + " index rows");
        }
        return Collections.unmodifiableList(records);
    }

    private static String resource(String name) {
        try (InputStream in = Corpus.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("missing test resource " + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static final String IDENT = "(?:[A-Za-z_\\u0080-\\uffff][A-Za-z0-9_$\\u0080-\\uffff]*|\"(?:[^\"]|\"\")+\")";
    /**
     * Deliberately independent of the rewriter's own lexer, and greedy: it reads the raw text, so a name in a
     * string or comment is registered too (harmless: one more protected table), and a name is never missed
     * because of how the product tokenises it.
     */
    private static final Pattern WRITE_TARGET =
            Pattern.compile("(?i)\\b(?:INSERT\\s+INTO|UPDATE(?:\\s+ONLY)?|DELETE\\s+FROM(?:\\s+ONLY)?|MERGE\\s+INTO"
                    + "|TRUNCATE(?:\\s+TABLE)?(?:\\s+ONLY)?|COPY)\\s+(" + IDENT + "(?:\\s*\\.\\s*" + IDENT + ")?)");
    /** Words that follow UPDATE/COPY as keywords, not names (DO UPDATE SET, FOR UPDATE OF, ...). */
    private static final Set<String> NOT_NAMES = Set.of("set", "of", "nowait", "skip", "only", "table", "from", "to");

    /**
     * A model catalog for the corpus tables, whose real DDL is not part of the corpus: every table has 99 user
     * columns {@code c1..c99} followed by the fence column (where {@code ALTER TABLE ... ADD COLUMN} puts it),
     * and a primary key on {@code c1}, so column-less INSERTs are named and DELETEs record tombstones. What
     * this model decides is checked against real tables by the integration tests' CorpusExecutionIT.
     */
    static Map<TableName, TableShape> modelShapes(List<ProtectedTable> tables) {
        List<String> columns = new ArrayList<>();
        for (int i = 1; i <= 99; i++) {
            columns.add("c" + i);
        }
        columns.add("last_token");
        Map<TableName, TableShape> shapes = new java.util.LinkedHashMap<>();
        for (ProtectedTable t : tables) {
            shapes.put(t.name(), new TableShape(columns, List.of("c1"), t.name().name()));
        }
        return shapes;
    }

    /** Every relation any statement writes, read lexically: what the test registers as protected. */
    static List<ProtectedTable> writtenTables(List<Record> records) {
        Set<String> names = new TreeSet<>();
        for (Record r : records) {
            Matcher m = WRITE_TARGET.matcher(r.sql());
            while (m.find()) {
                String name = m.group(1).replaceAll("\\s+", "");
                if (!NOT_NAMES.contains(name.toLowerCase(Locale.ROOT))) {
                    names.add(TableName.parse(name).toString());
                }
            }
        }
        List<ProtectedTable> tables = new ArrayList<>();
        for (String n : names) {
            tables.add(new ProtectedTable(TableName.parse(n), "last_token", FencingMode.ENFORCE));
        }
        return tables;
    }
}
