package dev.fenced.it;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.FencingMode;
import dev.fenced.internal.config.ProtectedTable;
import dev.fenced.internal.config.TableName;
import dev.fenced.internal.sql.FencingTargets;
import dev.fenced.internal.sql.LanePlans;
import dev.fenced.internal.sql.RewritePlan;
import dev.fenced.internal.sql.TableShape;
import dev.fenced.it.support.EachForm;
import dev.fenced.it.support.RawVsFenced;
import dev.fenced.it.support.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * INSERT sources whose untyped literals ({@code '5'}, {@code NULL}) PostgreSQL types from the target columns or not,
 * depending on the source's shape: a top-level SELECT's output list and VALUES rows are typed by the columns (also
 * inside parentheses around the whole source, which leave no trace in PostgreSQL's parse tree, and with an ORDER BY
 * or LIMIT after them, which PostgreSQL merges into the query inside); a set operation's, DISTINCT's, ORDER BY's or
 * VALUES-with-clauses' are resolved as text first. Where the token goes must not change which: every form runs raw,
 * and fenced with a stale, no and the current token ({@link RawVsFenced}); with the current token fenced must fail
 * where raw fails (in the same SQLSTATE class) and succeed where raw succeeds, writing and returning the same rows.
 * Int, text, date and jsonb columns; with and without ON CONFLICT and RETURNING.
 */
@DisplayName("InsertSourceTypingIT: INSERT sources with untyped literals, parenthesised or not, raw vs fenced")
class InsertSourceTypingIT {

    static final long ROW = 50;
    static final long CURRENT = 60;
    static final long STALE = 40;

    private static TestDatabase db;

    @BeforeAll
    static void start() {
        db = TestDatabase.create();
        db.execute(
                "CREATE TABLE t (id int PRIMARY KEY, a int, s text, d date, j jsonb, last_token bigint)",
                "CREATE TABLE src (id int, a int, s text, d date, j jsonb)",
                "INSERT INTO src VALUES (21, 1, 'p', '2024-03-04', '{\"p\": 1}'), (22, NULL, NULL, NULL, NULL)");
    }

    @AfterAll
    static void stop() {
        db = null;
    }

    private static void reset() {
        db.clearTombstones();
        db.execute(
                "TRUNCATE t",
                "INSERT INTO t VALUES (1, 1, 'one', '2020-01-01', '1', " + ROW + "), (2, 2, 'two', NULL, NULL, " + ROW
                        + "), (3, 3, NULL, '2020-03-03', '[3]', " + ROW + "), (4, 4, 'four', NULL, 'null', " + ROW
                        + ")");
    }

    /** The rows there before the statement (keys 1 to 4), fence column included. */
    private static String existing() {
        return db.rows("SELECT id, a, s, d, j, last_token FROM t WHERE id <= 4 ORDER BY id");
    }

    /** Every row's data, without the fence column, which raw PostgreSQL does not write. */
    private static String data() {
        return db.rows("SELECT id, a, s, d, j FROM t ORDER BY id");
    }

    private static final String COLUMNS = "(id, a, s, d, j)";

    /** Pairs of rows: untyped literals and NULLs; typed literals and expressions. */
    static final List<String[]> ROWS = List.of(
            new String[] {"'5', NULL, 'x', '2024-01-02', '{\"k\": 1}'", "'7', '8', NULL, '2024-02-03', NULL"},
            new String[] {
                "2 + 3, length('abcdef'), text 'x', date '2024-01-01' + 1, jsonb '{\"k\": 1}'",
                "'7'::int, 8, upper('y'), '2024-02-03'::date, to_jsonb(2)"
            });

    /** A first row whose key is there already, for ON CONFLICT ... DO UPDATE of the unwrapped shapes. */
    static final String[] EXISTING_KEY = {"'1', '9', 'z', '2024-05-05', '{}'", "'7', '8', 'y', '2024-02-03', '[1]'"};

    /** Source shapes: {@code %1$s} the first row, {@code %2$s} the second. */
    static final List<String> SHAPES = List.of(
            "SELECT %1$s",
            "(SELECT %1$s)",
            "((SELECT %1$s))",
            "(SELECT %1$s) ORDER BY 1",
            "(SELECT %1$s) LIMIT 1",
            "(SELECT %1$s) OFFSET 0 LIMIT 1",
            "((SELECT %1$s) LIMIT 1)",
            "(SELECT %1$s FROM src ORDER BY 1 LIMIT 1) OFFSET 0",
            "SELECT DISTINCT %1$s",
            "(SELECT DISTINCT %1$s)",
            "SELECT %1$s FROM src GROUP BY src.id HAVING src.id = 21",
            "(SELECT %1$s FROM src GROUP BY src.id HAVING src.id = 21)",
            "VALUES (%1$s)",
            "VALUES (%1$s), (%2$s)",
            "(VALUES (%1$s))",
            "((VALUES (%1$s), (%2$s)))",
            "VALUES (%1$s) ORDER BY 1",
            "VALUES (%1$s), (%2$s) LIMIT 1",
            "(VALUES (%1$s), (%2$s)) LIMIT 1",
            "SELECT %1$s UNION SELECT %2$s",
            "(SELECT %1$s) UNION ALL (SELECT %2$s)",
            "((SELECT %1$s) UNION (SELECT %2$s))",
            "SELECT %1$s INTERSECT SELECT %1$s",
            "(SELECT %1$s) EXCEPT (SELECT %2$s)",
            "VALUES (%1$s) UNION ALL VALUES (%2$s)",
            "WITH w AS (SELECT 1) (SELECT %1$s)",
            "(WITH w AS (SELECT 1) SELECT %1$s)",
            "(SELECT * FROM src)",
            "(TABLE src) LIMIT 1");

    static final List<String> SUFFIXES = List.of(
            "",
            " RETURNING id, a, s, d, j",
            " ON CONFLICT DO NOTHING",
            " ON CONFLICT (id) DO UPDATE SET a = excluded.a, s = excluded.s, d = excluded.d, j = excluded.j"
                    + " RETURNING id, a, s, d, j");

    /**
     * The parenthesised shapes whose query inside is a plain SELECT or bare VALUES rows: the token goes inside the
     * parentheses, as without them; never into a wrapper around them.
     */
    static final Set<String> UNWRAPPED = Set.of(
            "(SELECT %1$s)",
            "((SELECT %1$s))",
            "(SELECT %1$s) ORDER BY 1",
            "(SELECT %1$s) LIMIT 1",
            "(SELECT %1$s) OFFSET 0 LIMIT 1",
            "((SELECT %1$s) LIMIT 1)",
            "(SELECT %1$s FROM src ORDER BY 1 LIMIT 1) OFFSET 0",
            "(SELECT DISTINCT %1$s)",
            "(SELECT %1$s FROM src GROUP BY src.id HAVING src.id = 21)",
            "(VALUES (%1$s))",
            "((VALUES (%1$s), (%2$s)))",
            "WITH w AS (SELECT 1) (SELECT %1$s)",
            "(WITH w AS (SELECT 1) SELECT %1$s)",
            "(SELECT * FROM src)",
            "(TABLE src) LIMIT 1");

    /**
     * Each form's text and its shape: every shape with both pairs of rows, the suffixes taken in turn (with and
     * without ON CONFLICT and RETURNING, kept few: each form runs eight times), and the unwrapped shapes and the bare
     * ones again with a key that is there, upserted.
     */
    static Map<String, String> formsByShape() {
        Map<String, String> forms = new java.util.LinkedHashMap<>();
        int turn = 0;
        for (String shape : SHAPES) {
            for (String[] rows : ROWS) {
                forms.putIfAbsent(form(shape, rows, SUFFIXES.get(turn++ % SUFFIXES.size())), shape);
            }
            if (UNWRAPPED.contains(shape) || !shape.startsWith("(")) {
                forms.putIfAbsent(form(shape, EXISTING_KEY, SUFFIXES.get(SUFFIXES.size() - 1)), shape);
            }
        }
        return forms;
    }

    private static String form(String shape, String[] rows, String suffix) {
        return "INSERT INTO t " + COLUMNS + " " + String.format(java.util.Locale.ROOT, shape, rows[0], rows[1])
                + suffix;
    }

    static List<String> forms() {
        return List.copyOf(formsByShape().keySet());
    }

    /** The SQLSTATE of each side's last run of a form: raw's, and fenced's (the current token runs last). */
    private final Map<String, String> lastState = new HashMap<>();

    private RawVsFenced.Runner recorded(String side, RawVsFenced.Runner runner) {
        return (c, sql, prepared) -> {
            RawVsFenced.Ran ran = runner.run(c, sql, prepared);
            String error = ran.error();
            // "Class:SQLSTATE:message"
            lastState.put(side, error == null ? null : error.split(":", 3)[1]);
            return ran;
        };
    }

    private RawVsFenced harness() {
        return RawVsFenced.on(db, "t")
                .reset(InsertSourceTypingIT::reset)
                .untouched(InsertSourceTypingIT::existing)
                .compared(InsertSourceTypingIT::data)
                .returnedRows()
                .runners(
                        recorded("raw", RawVsFenced.WITH_RETURNED_ROWS),
                        recorded("fenced", RawVsFenced.WITH_RETURNED_ROWS))
                .afterCurrent(() -> {
                    String untokened = db.rows("SELECT id FROM t WHERE (id > 4 OR last_token <> " + ROW + ")"
                            + " AND last_token IS DISTINCT FROM " + CURRENT + " ORDER BY id");
                    return untokened.isBlank() ? null : "rows the current holder wrote lack its token: " + untokened;
                })
                .tokens(CURRENT, STALE)
                .build();
    }

    /**
     * Raw vs fenced for each form: same success or failure (and, when both fail, the same SQLSTATE class), same rows
     * written and returned with the current token; no existing row changed by a stale or no token.
     */
    @Test
    void fencedInsertsWhatRawPostgresqlInserts() throws SQLException {
        RawVsFenced harness = harness();
        int[] rawFailed = {0};
        List<String> forms = forms();
        EachForm.holds(forms, (sql, prepared) -> {
            String wrong = harness.wrong(sql, prepared);
            String raw = lastState.get("raw");
            String fenced = lastState.get("fenced");
            rawFailed[0] += raw != null ? 1 : 0;
            if (raw != null && fenced != null && !raw.substring(0, 2).equals(fenced.substring(0, 2))) {
                String classes = "raw failed with " + raw + ", fenced with " + fenced;
                wrong = wrong == null ? classes : wrong + "; " + classes;
            }
            return wrong;
        });
        System.out.printf(
                java.util.Locale.ROOT,
                "InsertSourceTypingIT: %d forms, each plain and prepared; raw failed %d of %d runs%n",
                forms.size(),
                rawFailed[0],
                forms.size() * 2);
        // the family tests both sides of PostgreSQL's typing: neither all failures nor none
        assertTrue(rawFailed[0] > 0 && rawFailed[0] < forms.size(), "raw failed " + rawFailed[0]);
    }

    private static FencingTargets model() {
        return FencingTargets.modelled(
                List.of(new ProtectedTable(TableName.parse("t"), "last_token", FencingMode.ENFORCE)),
                Map.of(),
                Set.of(),
                Map.of(
                        TableName.parse("t"),
                        new TableShape(List.of("id", "a", "s", "d", "j", "last_token"), List.of("id"), "t")),
                TableName.parse("fenced_tombstone"));
    }

    /**
     * Which path planned each form ({@link LanePlans}): the driver sends the lane's text where the lane planned it;
     * the parenthesised SELECT and VALUES sources the lane reads keep the token inside the parentheses, never in a
     * wrapper around them (a wrapper types their untyped literals as text before the INSERT sees them).
     */
    @Test
    void theLanesTextIsSentAndParenthesesAreNotWrapped() throws SQLException {
        FencingTargets model = model();
        int byLane = 0;
        Map<String, String> wrong = new TreeMap<>();
        try (Connection c = DriverManager.getConnection(db.fencedUrl("fenced.tables=t"))) {
            for (Map.Entry<String, String> form : formsByShape().entrySet()) {
                String sql = form.getKey();
                String shape = form.getValue();
                String sent = c.nativeSQL(sql);
                RewritePlan.Fenced lane = LanePlans.plannedFirst(model, sql);
                if (lane != null) {
                    byLane++;
                    if (!sent.equals(lane.sql())) {
                        wrong.put(sql, "sent " + sent + "\n    lane " + lane.sql());
                    }
                }
                if (UNWRAPPED.contains(shape) && sent.contains("fenced_src")) {
                    wrong.put(sql, "wrapped: " + sent);
                }
            }
        }
        System.out.printf(
                java.util.Locale.ROOT,
                "InsertSourceTypingIT: %d of %d forms planned by the lane%n",
                byLane,
                forms().size());
        assertTrue(wrong.isEmpty(), wrong.size() + " wrong:\n" + String.join("\n", wrong.keySet()) + "\n" + wrong);
        assertTrue(byLane > forms().size() / 2, "the lane planned only " + byLane);
    }
}
