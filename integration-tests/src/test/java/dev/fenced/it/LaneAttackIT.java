package dev.fenced.it;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.Fencing;
import dev.fenced.FencingScope;
import dev.fenced.it.support.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * An attacker's look at the skeleton-first lane as widened by ON CONFLICT ({@code ConflictClause}) and read-only
 * subqueries ({@code ReadOnlySubqueries}): statements chosen to make the lane fence wrongly (the existing row read
 * through {@code excluded}, aliases and whole-row references, tables and aliases named excluded, conflict targets
 * with predicates, expressions and constraints, subqueries that lock, sample, limit without order, nest, read the
 * target or protected tables, hide words in comments, strings and quoted names), and seeded generated ones. Each
 * runs raw and fenced, plain and prepared, against a real PostgreSQL: with the current token fenced must end as raw
 * does (error or not) and leave the same data and the same RETURNING rows (the fence column aside, which raw does
 * not write); with a stale token or none, no row that existed before may change (a refusal is fine). Statements
 * fenced refuses as unsupported (FN003) are counted, never run.
 */
@DisplayName(
        "LaneAttackIT: the widened lane (upserts, subqueries) attacked, raw vs fenced with current, stale, no token")
class LaneAttackIT {

    static final long ROW = 50;
    static final long CURRENT = 60;
    static final long STALE = 40;

    /** The generated probes' seed; {@code -Dlanattack.seed=...} replays another run. */
    static final long SEED = Long.getLong("lanattack.seed", 20261206L);

    private static TestDatabase db;

    @BeforeAll
    static void start() {
        db = TestDatabase.create();
        db.execute(
                "CREATE TABLE t (id int CONSTRAINT t_pkey PRIMARY KEY, v text, n bigint, last_token bigint)",
                "CREATE TABLE k (id int PRIMARY KEY, v text, n bigint, last_token bigint)",
                "CREATE TABLE excluded (id int PRIMARY KEY, v text, n bigint, last_token bigint)",
                "CREATE TABLE p (id int, v text, n bigint, last_token bigint)",
                "CREATE UNIQUE INDEX p_lower_v ON p (lower(v))",
                "CREATE UNIQUE INDEX p_id_positive ON p (id) WHERE n >= 0",
                "CREATE TABLE s (id int, v text, n bigint)",
                "CREATE SEQUENCE q",
                "CREATE FUNCTION bumped(t) RETURNS bigint LANGUAGE sql AS 'SELECT $1.n + 100'");
    }

    @AfterAll
    static void stop() {
        db = null;
    }

    private static void reset() {
        db.clearTombstones();
        db.execute(
                "TRUNCATE t, k, excluded, p, s",
                "INSERT INTO t VALUES (1, 'one', 1, " + ROW + "), (2, NULL, -2, " + ROW + "), (3, 'three', 3, " + ROW
                        + "), (4, 'four', 2, " + ROW + ")",
                "INSERT INTO k VALUES (2, 'k2', 20, " + ROW + "), (3, 'k3', 30, " + ROW + ")",
                "INSERT INTO excluded VALUES (1, 'e1', 10, " + ROW + "), (2, 'e2', 20, " + ROW + ")",
                "INSERT INTO p VALUES (1, 'One', 1, " + ROW + "), (2, 'Two', 2, " + ROW + "), (3, 'neg', -3, " + ROW
                        + ")",
                "INSERT INTO s VALUES (1, 'one', 10), (3, 'x', 30), (4, 'four', 40), (4, 'again', 41)");
    }

    /** Every protected row, fence column included, one entry a row keyed by table and id. */
    private static Map<String, String> protectedRows() {
        Map<String, String> rows = new LinkedHashMap<>();
        for (String table : new String[] {"t", "k", "excluded", "p"}) {
            String all = db.rows("SELECT '" + table + "', id, v, n, last_token FROM " + table + " ORDER BY id, v");
            for (String row : all.split("; ?")) {
                if (!row.isBlank()) {
                    String[] cells = row.split(",", 3);
                    rows.put(cells[0] + ":" + cells[1] + ":" + cells[2].split(",")[0], row);
                }
            }
        }
        return rows;
    }

    /** The data raw PostgreSQL writes: every table without the fence column. */
    private static String data() {
        return db.rows("SELECT 't', id, v, n FROM t UNION ALL SELECT 'k', id, v, n FROM k UNION ALL"
                + " SELECT 'excluded', id, v, n FROM excluded UNION ALL SELECT 'p', id, v, n FROM p"
                + " ORDER BY 1, 2, 3, 4");
    }

    /** How many rows that existed in {@code before} are changed or gone in {@code after}. */
    private static int changedRows(Map<String, String> before, Map<String, String> after) {
        int changed = 0;
        for (Map.Entry<String, String> row : before.entrySet()) {
            changed += row.getValue().equals(after.get(row.getKey())) ? 0 : 1;
        }
        return changed;
    }

    private static Connection fenced() throws SQLException {
        return DriverManager.getConnection(db.fencedUrl("fenced.tables=t,k,excluded,p"));
    }

    /** How a statement ended: its error, or its update count and RETURNING rows with the fence column masked. */
    private static String run(Connection c, String sql, boolean prepared) {
        try (Statement plain = prepared ? null : c.createStatement();
                PreparedStatement ps = prepared ? c.prepareStatement(sql) : null) {
            boolean rows;
            if (prepared) {
                for (int p = 1; p <= ps.getParameterMetaData().getParameterCount(); p++) {
                    ps.setObject(p, "3", java.sql.Types.OTHER); // typed by PostgreSQL, as the literal is
                }
                rows = ps.execute();
            } else {
                rows = plain.execute(sql);
            }
            Statement s = prepared ? ps : plain;
            if (!rows) {
                return "count " + s.getUpdateCount();
            }
            List<String> out = new ArrayList<>();
            try (ResultSet rs = s.getResultSet()) {
                ResultSetMetaData md = rs.getMetaData();
                while (rs.next()) {
                    StringBuilder b = new StringBuilder();
                    for (int i = 1; i <= md.getColumnCount(); i++) {
                        boolean fence = md.getColumnLabel(i).equalsIgnoreCase("last_token");
                        b.append(fence ? "<fence>" : rs.getString(i)).append(',');
                    }
                    out.add(b.toString());
                }
            }
            out.sort(null);
            return "rows " + out;
        } catch (SQLException e) {
            return "error " + e.getClass().getSimpleName() + ":" + e.getSQLState() + ":" + e.getMessage();
        }
    }

    private static boolean refused(String outcome) {
        return outcome.startsWith("error ") && outcome.contains(":FN003:");
    }

    /** The tally of a run of probes. */
    static final class Tally {
        int probes;
        int cases;
        int refused;
        int rowsWronglyChanged;
        final List<String> problems = new ArrayList<>();
    }

    /** Runs {@code sql} raw and fenced (current, stale, no token), plain or prepared ({@code ?} bound to an untyped 3, written {@code '3'} raw). */
    private static void attack(String sql, boolean prepared, Tally tally) throws SQLException {
        String raw = sql.replace("?", "'3'");
        reset();
        Map<String, String> before = protectedRows();
        String rawOutcome;
        try (Connection c = db.rawConnection()) {
            rawOutcome = run(c, raw, false);
        }
        String rawData = data();
        String where = (prepared ? "PS " : "ST ") + sql + "\n    ";
        for (Long token : new Long[] {STALE, null}) {
            reset();
            String outcome;
            try (Connection c = fenced();
                    FencingScope ignored = token == null ? null : Fencing.bind(token)) {
                outcome = run(c, prepared ? sql : raw, prepared);
            }
            tally.cases++;
            int changed = changedRows(before, protectedRows());
            if (changed > 0) {
                tally.rowsWronglyChanged += changed;
                tally.problems.add(where + (token == null ? "no token" : "stale token") + " changed " + changed
                        + " existing rows (" + outcome + "): " + protectedRows());
            }
        }
        reset();
        String outcome;
        try (Connection c = fenced();
                FencingScope ignored = Fencing.bind(CURRENT)) {
            outcome = run(c, prepared ? sql : raw, prepared);
        }
        tally.cases++;
        if (refused(outcome)) {
            tally.refused++;
            return;
        }
        String after = data();
        boolean sameEnd = rawOutcome.startsWith("error ") == outcome.startsWith("error ");
        boolean sameRows = rawOutcome.startsWith("error ") || rawOutcome.equals(outcome);
        if (!sameEnd || !sameRows || !after.equals(rawData)) {
            tally.problems.add(where + "current token differs from raw: raw " + rawOutcome + " / " + rawData
                    + "\n    fenced " + outcome + " / " + after);
        }
    }

    private static Tally attackAll(List<String> probes) throws SQLException {
        Tally tally = new Tally();
        for (String sql : probes) {
            tally.probes++;
            for (boolean prepared : new boolean[] {false, true}) {
                attack(sql, prepared, tally);
            }
        }
        return tally;
    }

    private static void report(String what, Tally tally) {
        System.out.printf(
                Locale.ROOT,
                "LaneAttackIT %s: %d probes, %d fenced cases, %d refused (FN003) with the current token, %d existing"
                        + " rows wrongly changed, %d problems%n",
                what,
                tally.probes,
                tally.cases,
                tally.refused,
                tally.rowsWronglyChanged,
                tally.problems.size());
        assertTrue(
                tally.problems.isEmpty(), tally.problems.size() + " problems:\n" + String.join("\n", tally.problems));
    }

    /** Upserts aimed at the lane's reading of ON CONFLICT and of what DO UPDATE reads. */
    static final List<String> UPSERTS = List.of(
            // the existing row read whole, or through the row's name in odd spellings
            "INSERT INTO t AS x (id, v) VALUES (1, 'a') ON CONFLICT (id) DO UPDATE SET v = x::text",
            "INSERT INTO t AS x (id, v) VALUES (1, 'a') ON CONFLICT (id) DO UPDATE SET v = row(x.*)::text",
            "INSERT INTO t AS x (id, n) VALUES (1, 5) ON CONFLICT (id) DO UPDATE SET n = (x).n + excluded.n",
            "INSERT INTO t (id, v) VALUES (1, 'a') ON CONFLICT (id) DO UPDATE SET v = t::text",
            "INSERT INTO t (id, v) VALUES (1, 'a') ON CONFLICT (id) DO UPDATE SET v = (t.*)::text",
            "INSERT INTO t AS \"X\" (id, n) VALUES (2, 5) ON CONFLICT (id) DO UPDATE SET n = \"X\".n + excluded.n",
            "INSERT INTO t AS X (id, n) VALUES (2, 5) ON CONFLICT (id) DO UPDATE SET n = x.n * 10 RETURNING X.n",
            "INSERT INTO t AS \"Excluded\" (id, n) VALUES (3, 7) ON CONFLICT (id) DO UPDATE SET n = excluded.n"
                    + " + \"Excluded\".n RETURNING \"Excluded\".id, excluded.n",
            "INSERT INTO public.t (id, n) VALUES (1, 1) ON CONFLICT (id) DO UPDATE SET n = t.n + 1",
            "INSERT INTO public.t (id, n) VALUES (1, 1) ON CONFLICT (id) DO UPDATE SET n = public.t.n + 1",
            "INSERT INTO \"t\" (id, n) VALUES (1, 1) ON CONFLICT (id) DO UPDATE SET n = \"t\".n - excluded.n",
            // excluded as the target's name or alias, and as a column's qualifier in odd spellings
            "INSERT INTO excluded AS e (id, n) VALUES (1, 5) ON CONFLICT (id) DO UPDATE SET n = e.n + excluded.n",
            "INSERT INTO excluded (id, n) VALUES (1, 5) ON CONFLICT (id) DO UPDATE SET n = excluded.n",
            "INSERT INTO excluded (id, n) VALUES (1, 5) ON CONFLICT (id) DO NOTHING",
            "INSERT INTO t AS excluded (id, n) VALUES (1, 5) ON CONFLICT (id) DO UPDATE SET n = excluded.n",
            "INSERT INTO t (id, n) VALUES (1, 5) ON CONFLICT (id) DO UPDATE SET n = EXCLUDED . n + \"excluded\".n",
            "INSERT INTO t (id, n) VALUES (4, 9) ON CONFLICT (id) DO UPDATE SET n = excluded.n WHERE excluded.n > t.n",
            "INSERT INTO t (id, n) VALUES (4, 1) ON CONFLICT (id) DO UPDATE SET n = excluded.n WHERE excluded.n > t.n",
            "INSERT INTO t (id, n) VALUES (1, 5) ON CONFLICT (id) DO UPDATE SET (n, v) = (excluded.n, v || '+')",
            "INSERT INTO t (id, n) VALUES (1, 5) ON CONFLICT (id) DO UPDATE SET (n, v) = ROW(excluded.n, v)",
            "INSERT INTO t (id, n) VALUES (1, 5) ON CONFLICT (id) DO UPDATE SET n = n OPERATOR(pg_catalog.+) 1",
            "INSERT INTO t (id, n) VALUES (1, 5) ON CONFLICT (id) DO UPDATE SET n = -n, v = $$d$$ || v",
            "INSERT INTO t (id, n) VALUES (1, 5) ON CONFLICT (id) DO UPDATE SET n = coalesce(n, 0) /* excluded.n */",
            "INSERT INTO t (id, n) VALUES (1, 5) ON CONFLICT (id) DO UPDATE SET n = excluded.n -- t.n\n RETURNING n",
            // conflict targets: predicates, expressions, constraints, none; RETURNING
            "INSERT INTO p (id, v, n) VALUES (1, 'x', 5) ON CONFLICT (id) WHERE n >= 0 DO UPDATE SET v = excluded.v",
            "INSERT INTO p (id, v, n) VALUES (9, 'ONE', 5) ON CONFLICT (lower(v)) DO UPDATE SET n = excluded.n",
            "INSERT INTO p (id, v, n) VALUES (9, 'two', 5) ON CONFLICT ((lower(v))) DO NOTHING RETURNING id",
            "INSERT INTO p (id, v, n) VALUES (1, 'y', 5) ON CONFLICT (id) WHERE n >= 0 AND id > 0 DO NOTHING",
            "INSERT INTO t (id, v) VALUES (1, 'c') ON CONFLICT ON CONSTRAINT t_pkey DO UPDATE SET v = excluded.v",
            "INSERT INTO t (id, v) VALUES (1, 'c'), (7, 'd') ON CONFLICT DO NOTHING RETURNING id, v",
            "INSERT INTO t (id, v) VALUES (1, 'c') ON CONFLICT (id COLLATE \"C\") DO UPDATE SET v = excluded.v",
            "INSERT INTO t (id, v) VALUES (1, 'c') ON CONFLICT (id int4_ops) DO UPDATE SET v = excluded.v",
            "INSERT INTO t (id, v) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET v = t.v || ? WHERE t.n <> ?"
                    + " RETURNING id, v, ?",
            "INSERT INTO t (id, v) VALUES (1, 'w') ON CONFLICT (id) DO UPDATE SET v = excluded.v WHERE EXISTS"
                    + " (SELECT 1 FROM s WHERE s.id = t.id)",
            "INSERT INTO t (id, v) VALUES (1, 'w'), (2, 'w') ON CONFLICT (id) DO UPDATE SET v = excluded.v || t.id"
                    + " RETURNING t.*",
            "INSERT INTO t (id, v) OVERRIDING USER VALUE VALUES (3, 'o') ON CONFLICT (id) DO UPDATE SET v ="
                    + " excluded.v",
            "INSERT INTO t (id, v) VALUES (2, 'z') ON CONFLICT (id) DO UPDATE SET v = excluded.v; ");

    /** UPDATEs and DELETEs aimed at the lane's reading of subqueries. */
    static final List<String> SUBQUERIES = List.of(
            // correlated reads of the target's own columns (relative updates), by name, alias, whole row
            "UPDATE t SET n = (SELECT n + 1) WHERE id = 1",
            "UPDATE t SET n = (SELECT t.n + s.n FROM s WHERE s.id = t.id) WHERE id = 1",
            "UPDATE t AS x SET v = (SELECT x::text) WHERE id = 2",
            "UPDATE t SET v = (SELECT (t).v || '!') WHERE id = 3",
            "UPDATE t SET (v, n) = (SELECT s.v, s.n FROM s WHERE s.id = t.id ORDER BY s.n LIMIT 1) WHERE id = 4",
            "UPDATE t SET v = ARRAY(SELECT v FROM s ORDER BY v)::text WHERE id = 1",
            // subqueries over the target itself and over another protected table
            "UPDATE t SET n = (SELECT max(n) FROM t) WHERE id = 2",
            "UPDATE t SET v = 'self' WHERE id IN (SELECT id FROM t WHERE n > 1)",
            "UPDATE t SET v = 'k' WHERE id IN (SELECT id FROM k)",
            "DELETE FROM t WHERE id IN (SELECT id FROM t WHERE n > 2)",
            "DELETE FROM t WHERE id IN (SELECT id FROM k) RETURNING id, v",
            "DELETE FROM t x WHERE x.n < (SELECT max(n) FROM t) RETURNING x.*",
            // locks, samples, limits, WITH, volatile functions: declined in the lane or refused for a DELETE
            "UPDATE t SET v = 'l' WHERE id IN (SELECT id FROM s FOR SHARE)",
            "UPDATE t SET v = 'l' WHERE id IN ((SELECT id FROM s) FOR SHARE)",
            "UPDATE t SET v = 'l' WHERE id IN ((SELECT id FROM s) FOR KEY SHARE)",
            "DELETE FROM t WHERE id IN ((SELECT id FROM s) FOR SHARE)",
            "DELETE FROM t WHERE id IN (SELECT id FROM s FOR/**/SHARE)",
            "DELETE FROM t WHERE id IN (SELECT id FROM s TABLESAMPLE SYSTEM (100))",
            "DELETE FROM t WHERE id IN (SELECT id FROM s LIMIT 1)",
            "DELETE FROM t WHERE id IN ((SELECT id FROM s) LIMIT 1)",
            "DELETE FROM t WHERE id IN (SELECT id FROM s ORDER BY id LIMIT 1)",
            "DELETE FROM t WHERE id IN (SELECT id FROM s WHERE n > random())",
            "DELETE FROM t WHERE id IN (SELECT id FROM s WHERE n > s.random)",
            "DELETE FROM t WHERE id = (SELECT nextval('q'))",
            "DELETE FROM t WHERE id IN (WITH w AS (SELECT 1 AS id) SELECT id FROM w)",
            "DELETE FROM t WHERE id IN (SELECT generate_series(1, 2))",
            "DELETE FROM t WHERE id = ANY (ARRAY(SELECT id FROM s ORDER BY id))",
            "DELETE FROM t WHERE id = ANY (ARRAY(SELECT id FROM s LIMIT 2))",
            // nested, set operations, comments, strings, quoted names hiding words
            "DELETE FROM t WHERE id IN (SELECT id FROM s WHERE id IN (SELECT id FROM k)) /* FOR UPDATE */",
            "DELETE FROM t WHERE id IN ((SELECT id FROM s) UNION (SELECT id FROM k))",
            "DELETE FROM t WHERE id IN (SELECT id FROM s WHERE v = 'FOR UPDATE' OR v = $q$ LIMIT 1 $q$)",
            "DELETE FROM t WHERE id IN (SELECT \"id\" FROM s AS \"SELECT\" WHERE \"SELECT\".n > 20)",
            "UPDATE t SET v = (SELECT \"SELECT\".v FROM s AS \"SELECT\" WHERE \"SELECT\".id = t.id LIMIT 1)"
                    + " WHERE id = 1",
            "UPDATE t SET v = 'q' WHERE id IN (SELECT id FROM s WHERE v <> ?) RETURNING id, v",
            "DELETE FROM t WHERE id IN (SELECT id FROM s WHERE n > ?) RETURNING id",
            "DELETE FROM t WHERE EXISTS (SELECT FROM s WHERE s.id = t.id)",
            "DELETE FROM t WHERE id IN (SELECT id FROM s OPERATOR(pg_catalog.=) id)",
            "DELETE FROM t WHERE id IN (SELECT id FROM s WHERE n OPERATOR(pg_catalog.>) 20)",
            "UPDATE t SET n = n + (SELECT count(*) FROM s WHERE s.id = t.id) WHERE id IN (SELECT id FROM s)");

    @Test
    void handWrittenUpsertProbes() throws SQLException {
        report("upserts", attackAll(UPSERTS));
    }

    @Test
    void handWrittenSubqueryProbes() throws SQLException {
        report("subqueries", attackAll(SUBQUERIES));
    }

    @Test
    void generatedProbes() throws SQLException {
        System.out.println("LaneAttackIT generated probes: seed " + SEED + " (-Dlanattack.seed to replay)");
        report("generated (seed " + SEED + ")", attackAll(generated(new Random(SEED), 160)));
    }

    /**
     * {@code x.bumped} is PostgreSQL's attribute notation for {@code bumped(x)}: a function of the whole existing row,
     * here reading n, the column the statement assigns. A relative update, which fenced.relativeUpdates=refuse must
     * refuse on the lane's path (upserts, subqueries) as on the parser's and the fallback's; all three once took it
     * for an ordinary column of the row.
     */
    static final List<String> ATTRIBUTE_CALLS = List.of(
            "INSERT INTO t AS x (id, n) VALUES (1, 5) ON CONFLICT (id) DO UPDATE SET n = x.bumped",
            "INSERT INTO t (id, n) VALUES (1, - - 5) ON CONFLICT (id) DO UPDATE SET n = t.bumped",
            "UPDATE t SET n = t.bumped WHERE id = 1",
            "UPDATE t AS x SET n = (SELECT x.bumped) WHERE id IN (SELECT id FROM s)");

    @Test
    void theRowReadWholeInAttributeNotationIsARelativeUpdate() throws SQLException {
        List<String> wrong = new ArrayList<>();
        for (String sql : ATTRIBUTE_CALLS) {
            reset();
            try (Connection c = db.rawConnection()) {
                run(c, sql, false);
            }
            // raw PostgreSQL reads the existing row: row 1's n (1) + 100
            assertTrue(data().contains("t,1,one,101;"), sql + ": " + data());
            for (boolean prepared : new boolean[] {false, true}) {
                reset();
                String before = data();
                String outcome;
                try (Connection c = DriverManager.getConnection(
                                db.fencedUrl("fenced.tables=t,k,excluded,p", "fenced.relativeUpdates=refuse"));
                        FencingScope ignored = Fencing.bind(CURRENT)) {
                    outcome = run(c, sql, prepared);
                }
                // refused: as a relative update, or (JSqlParser cannot read - - 5) as unreadable, never run
                if (!outcome.contains(":FN003:") || !before.equals(data())) {
                    wrong.add((prepared ? "PS " : "ST ") + sql + "\n    " + outcome + " / " + data());
                }
            }
        }
        System.out.printf(
                Locale.ROOT,
                "LaneAttackIT attribute notation: %d statements x 2, %d not refused as relative updates%n",
                ATTRIBUTE_CALLS.size(),
                wrong.size());
        assertTrue(wrong.isEmpty(), wrong.size() + " not refused:\n" + String.join("\n", wrong));
    }

    private static final String[] G_TARGETS = {"t", "t AS x", "public.t", "\"t\"", "k", "k AS \"K\""};
    private static final String[] G_UPSERT_VALUES = {
        "excluded.n", "excluded.n + 1", "n + excluded.n", "-n", "coalesce(n, 0) * 2", "excluded.n * n", "7", "?"
    };
    private static final String[] G_UPSERT_WHERES = {
        "", "", " WHERE excluded.n > 0", " WHERE n IS NOT NULL", " WHERE excluded.v IS DISTINCT FROM v"
    };
    private static final String[] G_SUBQUERIES = {
        "(SELECT id FROM s)",
        "(SELECT id FROM s WHERE n > 20)",
        "(SELECT id FROM k)",
        "(SELECT id FROM t WHERE n > 1)",
        "(SELECT id FROM s ORDER BY n LIMIT 2)",
        "(SELECT id FROM s ORDER BY id OFFSET 1 ROWS FETCH NEXT 1 ROWS ONLY)",
        "(SELECT id FROM s WHERE id IN (SELECT id FROM k))",
        "(SELECT id FROM s /* c ? */ WHERE v <> 'x')",
        "(SELECT s.id FROM s JOIN k ON k.id = s.id)",
        "(SELECT id FROM s GROUP BY id HAVING count(*) > 1)",
        "(SELECT id FROM s LIMIT 1)",
        "(SELECT id FROM s FOR SHARE)"
    };
    private static final String[] G_SET_VALUES = {
        "'g'",
        "v || 'g'",
        "(SELECT max(v) FROM s)",
        "(SELECT s.v FROM s WHERE s.id = q.id ORDER BY s.n LIMIT 1)",
        "(SELECT count(*) FROM s WHERE s.n > q.n)::text",
        "(SELECT v)",
        "?"
    };

    /** Seeded upserts, UPDATEs and DELETEs over the pieces above ({@code q} stands for the row's qualifier). */
    static List<String> generated(Random random, int count) {
        List<String> out = new ArrayList<>();
        while (out.size() < count) {
            String target = pick(random, G_TARGETS);
            String table = target.split(" ")[0];
            String qualifier = target.contains(" AS ") ? target.substring(target.indexOf(" AS ") + 4) : "t";
            if (table.equals("k")) {
                qualifier = target.contains(" AS ") ? qualifier : "k";
            }
            switch (random.nextInt(3)) {
                case 0 -> {
                    StringBuilder b = new StringBuilder("INSERT INTO ")
                            .append(target)
                            .append(" (id, n, v) VALUES (")
                            .append(1 + random.nextInt(5))
                            .append(", ")
                            .append(random.nextInt(9))
                            .append(", 'u')");
                    if (random.nextInt(3) == 0) {
                        b.append(", (").append(6 + random.nextInt(3)).append(", 1, 'w')");
                    }
                    if (random.nextInt(4) == 0) {
                        b.append(" ON CONFLICT")
                                .append(pick(random, "", " (id)"))
                                .append(" DO NOTHING");
                    } else {
                        b.append(pick(
                                        random,
                                        " ON CONFLICT (id)",
                                        " on conflict (\"id\")",
                                        " ON CONFLICT (id) WHERE" + " id > 0"))
                                .append(" DO UPDATE SET n = ")
                                .append(pick(random, G_UPSERT_VALUES)
                                        .replace("n + excluded", qualifier + ".n + excluded"));
                        if (random.nextBoolean()) {
                            b.append(", v = ").append(pick(random, "excluded.v", "v || excluded.v", "'x'"));
                        }
                        b.append(pick(random, G_UPSERT_WHERES));
                    }
                    b.append(pick(random, "", " RETURNING id, n", " RETURNING *"));
                    out.add(b.toString());
                }
                case 1 ->
                    out.add("UPDATE " + target + " SET v = "
                            + pick(random, G_SET_VALUES).replace("q.", qualifier + ".") + " WHERE id "
                            + pick(random, "IN ", "NOT IN ", "= ANY ") + pick(random, G_SUBQUERIES)
                            + pick(random, "", " RETURNING id, v"));
                default ->
                    out.add("DELETE FROM " + target + " WHERE "
                            + pick(random, "id IN ", "id NOT IN ", "EXISTS ") + pick(random, G_SUBQUERIES)
                            + pick(random, "", " AND n < 10", " OR v IS NULL") + pick(random, "", " RETURNING id"));
            }
        }
        return out;
    }

    private static String pick(Random random, String... options) {
        return options[random.nextInt(options.length)];
    }
}
