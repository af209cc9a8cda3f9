package dev.fenced.it;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.Fencing;
import dev.fenced.FencingScope;
import dev.fenced.it.size.LongRun;
import dev.fenced.it.support.Outcome;
import dev.fenced.it.support.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * An outside review of the DELETE fencer by position (DeleteSkeleton, in the SkeletonFirst lane and as the fallback
 * for DELETEs JSqlParser cannot read), against a real PostgreSQL. Every probe runs raw, and fenced with a current, a
 * stale and no token, as a plain and as a prepared statement. The safe outcome: a stale or no token deletes no row
 * (of any table); a current token deletes exactly the rows raw PostgreSQL deletes, or is refused (FN003) before
 * anything runs; a key of {@code t} (which keeps tombstones) the current holder deleted cannot be inserted again by a
 * stale holder. The probes are the spellings that could move the guard or change the WHERE it repeats: comments
 * (nested, line, between keywords), dollar quotes, E'' strings, {@code U&""} names, quoted names equal to keywords,
 * aliases (none, AS, equal to another table, to the fence column), schema-qualified targets and a shadowing table,
 * ONLY, {@code t *}, inheritance, USING, WITH, CURRENT OF, RETURNING with subqueries, operators with {@code --} and
 * {@code /*}, {@code ?} operators, JDBC escapes, multi-statement texts, volatile WHEREs written so that a lexical
 * check cannot see the call (attribute notation, an operator, a view, {@code {fn rand()}}), standard_conforming_strings
 * off, long and deep texts, and DELETEs from a seeded generator.
 */
@DisplayName("DeleteLaneAttackIT: DELETE by position, raw vs fenced with a current, stale and no token")
class DeleteLaneAttackIT {

    static final long ROW = 50;
    static final long CURRENT = 60;
    static final long STALE = 40;

    private static TestDatabase db;

    @BeforeAll
    static void start() {
        db = TestDatabase.create();
        db.execute(
                "CREATE TABLE t (id int PRIMARY KEY, v text, n bigint, j jsonb, \"where\" int, \"returning\" text,"
                        + " last_token bigint)",
                "CREATE TABLE nk (id int, v text, last_token bigint)",
                "CREATE TABLE ip (id int PRIMARY KEY, v text, last_token bigint)",
                "CREATE TABLE ic () INHERITS (ip)",
                "CREATE TABLE free (id int, v text)",
                "CREATE SCHEMA other",
                "CREATE SEQUENCE s",
                // volatile, and deterministic over a restarted sequence: every second call is true
                "CREATE FUNCTION coin(t) RETURNS boolean VOLATILE LANGUAGE sql AS 'SELECT nextval(''s'') % 2 = 0'",
                "CREATE FUNCTION flip(int, int) RETURNS boolean VOLATILE LANGUAGE sql"
                        + " AS 'SELECT nextval(''s'') % 2 = 0'",
                "CREATE OPERATOR ~~~ (LEFTARG = int, RIGHTARG = int, FUNCTION = flip)",
                "CREATE VIEW every_second AS SELECT id FROM free WHERE nextval('s') % 2 = 0",
                "CREATE VIEW unused AS SELECT 1");
    }

    @AfterAll
    static void stop() {
        db = null;
    }

    private static void reset() {
        db.clearTombstones();
        db.execute(
                "TRUNCATE t, nk, ip, free",
                "ALTER SEQUENCE s RESTART",
                "INSERT INTO t VALUES (1, 'one', 1, '{\"k\": 1}', 1, 'r1', " + ROW + "),"
                        + " (2, NULL, -2, '{\"k\": 2}', 2, 'r2', " + ROW + "),"
                        + " (3, 'three', 3, '[]', 3, NULL, " + ROW + "),"
                        + " (4, 'four', 2, NULL, NULL, 'r4', " + ROW + "),"
                        + " (5, ')', 5, NULL, 5, '(', " + ROW + "),"
                        + " (6, 'a''b', 6, NULL, 6, 'x', " + ROW + ")",
                "INSERT INTO nk VALUES (1, 'one', " + ROW + "), (2, NULL, " + ROW + ")",
                "INSERT INTO ip VALUES (1, 'p1', " + ROW + ")",
                "INSERT INTO ic VALUES (2, 'c2', " + ROW + ")",
                "INSERT INTO free SELECT g, 'f' || g FROM generate_series(1, 6) g");
    }

    /** Every row of every table, in a stable order. */
    private static String rows() {
        return db.rows("SELECT 't', id, v || '|' || coalesce(n, 0), last_token FROM public.t"
                + " UNION ALL SELECT 'nk', id, v, last_token FROM nk"
                + " UNION ALL SELECT 'ip', id, v, last_token FROM ONLY ip"
                + " UNION ALL SELECT 'ic', id, v, last_token FROM ic ORDER BY 1, 2");
    }

    /** The ids of public.t. */
    private static Set<Integer> keysOfT() {
        Set<Integer> keys = new TreeSet<>();
        try (Connection c = db.rawConnection();
                Statement st = c.createStatement();
                var rs = st.executeQuery("SELECT id FROM public.t")) {
            while (rs.next()) {
                keys.add(rs.getInt(1));
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return keys;
    }

    private static Connection fenced() throws SQLException {
        return DriverManager.getConnection(db.fencedUrl("fenced.tables=t,nk,ip"));
    }

    /**
     * One probe: session settings run on both connections first, then the DELETE text, with {@code binds} bound
     * when prepared (a probe with binds runs prepared only).
     */
    record Probe(String sql, List<String> setup, Object... binds) {
        static Probe of(String sql) {
            return new Probe(sql, List.of());
        }

        static Probe after(String setup, String sql) {
            return new Probe(sql, List.of(setup));
        }

        @Override
        public String toString() {
            String s = sql.replace("\n", "\\n");
            return (setup.isEmpty() ? "" : setup + " ; ") + (s.length() > 140 ? s.substring(0, 140) + "..." : s);
        }
    }

    /** The probes; each must come out safe. */
    static List<Probe> probes() {
        List<Probe> p = new ArrayList<>();
        for (String sql : List.of(
                // plain forms, spellings of the target and alias
                "DELETE FROM t WHERE id = 1",
                "DELETE FROM t",
                "DELETE FROM t RETURNING *",
                "DELETE FROM t x",
                "DELETE FROM t x WHERE x.id = 1",
                "DELETE FROM t AS x WHERE x.id <= 2 RETURNING x.*",
                "DELETE FROM t AS \"where\" WHERE \"where\".\"where\" = 1",
                "DELETE FROM t AS \"returning\" WHERE \"returning\".id = 2 RETURNING \"returning\".\"returning\"",
                "DELETE FROM t \"WHERE\" WHERE \"WHERE\".id = 1",
                "DELETE FROM t AS last_token WHERE last_token.id = 1",
                "DELETE FROM t last_token WHERE last_token.last_token = 50 AND last_token.id = 2",
                "DELETE FROM t AS nk WHERE nk.id = 1",
                "DELETE FROM nk AS t WHERE t.id = 1",
                "DELETE FROM t AS ip WHERE ip.id IN (SELECT id FROM ip)",
                "DELETE FROM t AS free WHERE free.id IN (SELECT id FROM free WHERE id < 3)",
                "DELETE FROM t AS t WHERE t.id = 1",
                "DELETE FROM public.t WHERE t.id = 1",
                "DELETE FROM public.t WHERE public.t.id = 1",
                "DELETE FROM \"public\".\"t\" WHERE \"t\".id = 1",
                "DELETE FROM PUBLIC.T WHERE T.ID = 1",
                "DELETE FROM other.t WHERE id = 1",
                "DELETE FROM U&\"t\" WHERE id = 1",
                "DELETE FROM U&\"\\0074\" WHERE id = 1",
                "DELETE FROM public.U&\"\\0074\" WHERE id = 1",
                "DELETE FROM U&\"!0074\" UESCAPE '!' WHERE id = 1",
                "DELETE FROM t WHERE U&\"i\\0064\" = 1",
                "DELETE FROM t AS U&\"x\" WHERE U&\"x\".id = 1",
                "DELETE FROM t WHERE \"where\" = 2 RETURNING \"returning\"",
                "DELETE FROM t WHERE t.returning = 'r1'",
                "DELETE FROM t WHERE t.\"returning\" = 'r1' RETURNING id AS returning",
                "DELETE FROM t WHERE id = 1 RETURNING id AS \"where\", (SELECT count(*) FROM t) AS n",
                "DELETE FROM t WHERE id = 1 RETURNING *, (SELECT max(last_token) FROM t WHERE id > 1)",
                "DELETE FROM t WHERE id IN (SELECT id FROM t WHERE id < 3) RETURNING (SELECT 1 WHERE true)",
                // comments, strings, dollar quotes around keywords
                "DELETE FROM t WHERE v = 'a'/* RETURNING */ RETURNING id",
                "DELETE FROM t WHERE v = $$ RETURNING $$ OR id = 2",
                "DELETE FROM t WHERE v = $r$ ' RETURNING $$ $r$ OR id = 2 RETURNING $x$)$x$",
                "DELETE FROM t WHERE v = E'\\' RETURNING ' OR id = 2",
                "DELETE FROM t WHERE v = E'\\\\' OR id = 1 --'\n RETURNING id",
                "DELETE FROM t WHERE v = 'x' -- RETURNING\n OR id = 3",
                "DELETE FROM t WHERE v = 'x' -- ) OR true\n OR id = 3",
                "DELETE FROM t WHERE id = 1 /* a /* b */ OR true */",
                "DELETE FROM t WHERE id = 1 /* a /* b */ OR true */ RETURNING id",
                "DELETE FROM t WHERE id = 1 --",
                "DELETE FROM t WHERE id = 1 RETURNING id --",
                "DELETE /* WHERE */ FROM t WHERE id = 1",
                "DELETE--\nFROM t--\nWHERE--\nid = 1",
                "DELETE FROM t/**/WHERE/**/id=1/**/RETURNING/**/id",
                "DELETE FROM t WHERE v = ')' OR id = 2",
                "DELETE FROM t WHERE (v = ')') OR \"returning\" = '('",
                "DELETE FROM t WHERE v = 'a''b' OR v = '('",
                "DELETE FROM t WHERE v = 'one' 'x'",
                "DELETE FROM t WHERE v = 'on'\n'e'",
                "DELETE FROM t WHERE v = U&'\\0074hree'",
                "DELETE FROM t WHERE v = $1$x$1$",
                "DELETE FROM t WHERE v = B'1'::text",
                // operators
                "DELETE FROM t WHERE id =-- x\n1",
                "DELETE FROM t WHERE id =/**/1 RETURNING id",
                "DELETE FROM t WHERE n <-1",
                "DELETE FROM t WHERE n =- 2",
                "DELETE FROM t WHERE id @-- \n 1 > 0",
                "DELETE FROM t WHERE j ?? 'k'",
                "DELETE FROM t WHERE j ??| array['k']",
                "DELETE FROM t WHERE j @? '$.k ? (@ == 1)'",
                "DELETE FROM t WHERE v COLLATE \"C\" = 'one'",
                "DELETE FROM t WHERE (array[1, 2])[1] = id",
                "DELETE FROM t WHERE v::text = 'one' OR CAST(n AS int) = 3",
                "DELETE FROM t WHERE t IS NOT NULL AND id = 1",
                "DELETE FROM t WHERE t.* IS NOT NULL AND id = 2",
                "DELETE FROM t x WHERE x = x AND x.id = 3",
                "DELETE FROM t WHERE (SELECT true) RETURNING 1",
                "DELETE FROM t WHERE last_token = 50 AND id = 4",
                "DELETE FROM t WHERE id = 1 OR id = 2 RETURNING id, v; ",
                // JDBC escapes
                "DELETE FROM t WHERE v = {fn lcase('ONE')}",
                "DELETE FROM t WHERE {fn ucase(v)} = 'FOUR' OR id = {fn abs(-1)}",
                "DELETE FROM t WHERE v LIKE 'o_e' {escape '\\'}",
                "DELETE FROM t WHERE {fn length(v)} = 3 RETURNING {fn ucase(v)}",
                // the forms the lane declines (other paths must still fence or refuse)
                "DELETE FROM ONLY t WHERE id = 1",
                "DELETE FROM ONLY ip WHERE id = 1",
                "DELETE FROM t * WHERE id = 1",
                "DELETE FROM ip WHERE id IN (1, 2)",
                "DELETE FROM ic WHERE id = 2",
                "DELETE FROM t USING nk WHERE t.id = nk.id",
                "DELETE FROM free USING t WHERE free.id = t.id",
                "WITH x AS (SELECT 1 AS id) DELETE FROM t WHERE id IN (SELECT id FROM x)",
                "WITH d AS (DELETE FROM t WHERE id = 1 RETURNING id) SELECT * FROM d",
                "DELETE FROM t WHERE CURRENT OF c",
                "DELETE FROM t WHERE id = 1 /* unclosed",
                "DELETE FROM t WHERE v = 'unclosed",
                "DELETE FROM t WHERE (id = 1",
                "DELETE FROM t WHERE id = 1)",
                "DELETE FROM t WHERE",
                "DELETE FROM t WHERE id = 1 RETURNING",
                "DELETE FROM t x y WHERE id = 1",
                "DELETE FROM t AS WHERE id = 1",
                "DELETE FROM t.t WHERE id = 1",
                "DELETE FROM db.public.t WHERE id = 1",
                // multi-statement texts
                "DELETE FROM t WHERE id = 1; DELETE FROM t WHERE id = 2",
                "DELETE FROM t WHERE id = 1; SELECT 1",
                "SELECT 1; DELETE FROM t WHERE id = 1",
                "DELETE FROM free; DELETE FROM t WHERE id = 1",
                "DELETE FROM t WHERE id = 1;;",
                ";DELETE FROM t WHERE id = 1",
                "DELETE FROM t WHERE v = ';' OR id = 1; DELETE FROM nk",
                // volatile or unrepeatable WHEREs: refused, or the WHERE is evaluated twice
                "DELETE FROM t WHERE random() < 2",
                "DELETE FROM t WHERE \"random\"() < 2",
                "DELETE FROM t WHERE pg_catalog.random() < 2",
                "DELETE FROM t WHERE U&\"r\\0061ndom\"() < 2",
                "DELETE FROM t WHERE id = nextval('s')",
                "DELETE FROM t WHERE coin(t)",
                "DELETE FROM t WHERE id IN (SELECT id FROM every_second)",
                "DELETE FROM t WHERE id IN (SELECT id FROM t LIMIT 1)",
                "DELETE FROM t WHERE id IN (SELECT id FROM t ORDER BY id LIMIT 1)",
                "DELETE FROM t WHERE id IN (SELECT id FROM t FOR UPDATE SKIP LOCKED)",
                "DELETE FROM t WHERE id IN (SELECT id FROM t FOR /*x*/ UPDATE SKIP LOCKED)",
                "DELETE FROM t WHERE id IN (SELECT id FROM t TABLESAMPLE BERNOULLI (50))",
                "DELETE FROM t WHERE id IN (SELECT id FROM free ORDER BY id FETCH FIRST 2 ROWS ONLY)",
                "DELETE FROM t WHERE id = (SELECT id FROM free OFFSET 5)",
                "DELETE FROM t WHERE id = (SELECT id FROM free ORDER BY random() LIMIT 1)",
                "DELETE FROM t WHERE id = (SELECT count(*) FROM free WHERE nextval('s') > 0)",
                "DELETE FROM t WHERE id IN (SELECT nextval('s'))")) {
            p.add(Probe.of(sql));
        }
        p.add(Probe.after("SELECT setseed(0.5)", "DELETE FROM t WHERE {fn rand()} < 0.5"));
        p.add(Probe.after("SELECT setseed(0.25)", "DELETE FROM t WHERE {fn rand()} < 0.5 RETURNING id"));
        // search_path: a schema without t before public (a second t would make every DELETE of t refused: the
        // catalog read could not tell which table's key to record tombstones for)
        p.add(Probe.after("SET search_path = other, public", "DELETE FROM t WHERE id = 1"));
        p.add(Probe.after("SET search_path = other, public", "DELETE FROM public.t WHERE id = 1"));
        p.add(Probe.after(
                "SET search_path = other, public", "DELETE FROM t x WHERE x.id IN (SELECT id FROM public.t)"));
        // standard_conforming_strings off: a backslash escapes the quote
        for (String sql : List.of(
                "DELETE FROM t WHERE v = 'x\\' OR id > 0 --'",
                "DELETE FROM t WHERE v = 'x\\' OR id > 0 --'\n RETURNING id",
                "DELETE FROM t WHERE v = 'a\\'b' OR id = 2",
                "DELETE FROM t WHERE v = 'x\\' RETURNING id; DELETE FROM t WHERE id > 0 --'",
                "DELETE FROM t WHERE v = E'a\\'b' OR id = 3")) {
            p.add(Probe.after("SET standard_conforming_strings = off", sql));
        }
        // long and deep texts
        p.add(Probe.of("DELETE FROM t WHERE " + "(".repeat(300) + "id = 1" + ")".repeat(300)));
        StringBuilder ors = new StringBuilder("DELETE FROM t WHERE id = -1");
        for (int k = 0; k < 3000; k++) {
            ors.append(" OR id = ").append(k % 7 == 3 ? 3 : 100 + k);
        }
        p.add(Probe.of(ors.toString()));
        p.add(Probe.of("DELETE FROM t WHERE v = '" + "x".repeat(100_000) + "' OR id = 2"));
        p.add(Probe.of("DELETE FROM t WHERE id = 1 " + "/* c */ ".repeat(5000)));
        // parameters: the repeated WHERE binds the same values
        p.add(new Probe("DELETE FROM t WHERE id = ? OR v = ?", List.of(), 1, "three"));
        p.add(new Probe("DELETE FROM t x WHERE x.v = ? /* ? */ OR x.id = ? RETURNING ?", List.of(), "four", 2, "r"));
        p.add(new Probe("DELETE FROM t WHERE v = ? OR j ?? 'k' AND id = ?", List.of(), "'", 1));
        p.addAll(generated(new Random(67), LongRun.cases(30, 120)));
        return p;
    }

    /** DELETEs from a seeded generator over the pieces above. */
    static List<Probe> generated(Random r, int count) {
        String[] heads = {"DELETE FROM ", "delete from ", "DELETE/**/FROM ", "DELETE\n--c\nFROM\t", "Delete From "};
        String[] targets = {
            "t",
            "public.t",
            "\"t\"",
            "t x",
            "t AS x",
            "t AS \"where\"",
            "t last_token",
            "public.t AS nk",
            "nk",
            "ip",
            "U&\"t\""
        };
        String[] conditions = {
            "id = 1",
            "id <= 2",
            "v IS NULL",
            "v = ')'",
            "v = 'a''b'",
            "v = $$ RETURNING $$",
            "n =- 2",
            "\"where\" = 3",
            "\"returning\" = 'r4'",
            "j ?? 'k'",
            "id IN (SELECT id FROM free WHERE id < 3)",
            "v = E'\\''",
            "id = 1 /* ) */",
            "id = 2 -- ) OR true\n",
            "(id = 5)",
            "{fn abs(n)} = 2",
            "id = ANY (array[1, 3])",
            "true",
            "false",
            "NOT (id = 1)"
        };
        String[] tails = {"", " RETURNING *", " RETURNING id", ";", " RETURNING id AS returning", " -- ?\n"};
        List<Probe> out = new ArrayList<>();
        for (int k = 0; k < count; k++) {
            String target = targets[r.nextInt(targets.length)];
            String q = target.contains(" ") ? target.substring(target.lastIndexOf(' ') + 1) : null;
            StringBuilder b = new StringBuilder(heads[r.nextInt(heads.length)]).append(target);
            if (r.nextInt(5) != 0) {
                b.append(r.nextBoolean() ? " WHERE " : "\nwhere/**/");
                String c = conditions[r.nextInt(conditions.length)];
                b.append(q != null && r.nextBoolean() && Character.isLetter(c.charAt(0)) ? q + "." + c : c);
                if (r.nextInt(3) == 0) {
                    b.append(r.nextBoolean() ? " AND " : " OR ").append(conditions[r.nextInt(conditions.length)]);
                }
            }
            b.append(tails[r.nextInt(tails.length)]);
            out.add(Probe.of(b.toString()));
        }
        return out;
    }

    /**
     * Runs the probe on {@code c}: null when it ran, else the error (a session setting fenced refuses, such as
     * standard_conforming_strings off, is the probe's error: nothing runs after it).
     */
    private static @Nullable String run(Connection c, Probe probe, boolean prepared) {
        for (String s : probe.setup()) {
            String e = Outcome.of(c, s, false);
            if (e != null) {
                return e;
            }
        }
        if (probe.binds().length == 0) {
            return Outcome.of(c, probe.sql(), prepared);
        }
        try (PreparedStatement ps = c.prepareStatement(probe.sql())) {
            for (int k = 0; k < probe.binds().length; k++) {
                ps.setObject(k + 1, probe.binds()[k]);
            }
            ps.execute();
            return null;
        } catch (SQLException e) {
            return e.getClass().getSimpleName() + ":" + e.getSQLState() + ":" + e.getMessage();
        }
    }

    /** Counts over all probes, printed at the end. */
    static final int[] COUNTS = new int[6];

    /** The refusals met, for the report. */
    static final Set<String> REASONS = new TreeSet<>();

    static final String[] COUNTED = {
        "runs",
        "current as raw",
        "current refused",
        "stale/none refused or errored",
        "stale/none ran (raw no-op)",
        "tombstone checks"
    };

    /** What is wrong with fenced's handling of the probe, or null. */
    private static @Nullable String attack(Probe probe, boolean prepared) throws SQLException {
        List<String> wrong = new ArrayList<>();
        reset();
        String before = rows();
        String rawError;
        try (Connection c = db.rawConnection()) {
            rawError = run(c, probe, prepared);
        }
        String rawAfter = rows();
        for (Long token : new Long[] {STALE, null}) {
            reset();
            try (Connection c = fenced();
                    FencingScope ignored = token == null ? null : Fencing.bind(token)) {
                String e = run(c, probe, prepared);
                String who = token == null ? "no token" : "stale token";
                String after = rows();
                COUNTS[e == null ? 4 : 3]++;
                if (!before.equals(after)) {
                    wrong.add(who + " DELETED ROWS (" + e + "): " + after);
                } else if (e == null && !before.equals(rawAfter)) {
                    wrong.add(who + " ran without deleting and without failing (raw deletes)");
                }
            }
        }
        reset();
        Set<Integer> keysBefore = keysOfT();
        try (Connection c = fenced();
                FencingScope ignored = Fencing.bind(CURRENT)) {
            String e = run(c, probe, prepared);
            String after = rows();
            boolean refused = e != null && e.contains(":FN003:") && after.equals(before);
            if (refused) {
                COUNTS[2]++;
                String reason = e.replaceAll("[0-9]+", "N");
                REASONS.add(reason.substring(0, Math.min(reason.length(), 220)));
            } else if ((rawError == null) != (e == null) || !after.equals(rawAfter)) {
                wrong.add("CURRENT TOKEN DIFFERS FROM RAW: raw " + rawError + " " + rawAfter + " / fenced " + e + " "
                        + after);
            } else {
                COUNTS[1]++;
            }
        }
        TreeSet<Integer> deleted = new TreeSet<>(keysBefore);
        deleted.removeAll(keysOfT());
        for (int key : deleted) {
            COUNTS[5]++;
            String afterDelete = rows();
            try (Connection c = fenced();
                    FencingScope ignored = Fencing.bind(STALE)) {
                String e = Outcome.of(c, "INSERT INTO t (id, v) VALUES (" + key + ", 'ghost')", false);
                if (e == null || !afterDelete.equals(rows())) {
                    wrong.add("TOMBSTONE ESCAPED: a stale INSERT of deleted key " + key + " landed");
                }
            }
        }
        COUNTS[0]++;
        return wrong.isEmpty() ? null : String.join("; ", wrong);
    }

    /**
     * Volatile WHEREs whose call the text does not show as {@code name(}: attribute notation calls coin(t), and an
     * operator calls flip(int, int). Fenced evaluates the WHERE twice (the guard repeats it), so with the current
     * token the DELETE removes other rows than raw PostgreSQL does (here none, where raw deletes ids 2, 4 and 6),
     * and a stale token "succeeds" deleting nothing; no stale delete. The lexical check (DeleteFencer
     * .refuseUnrepeatable, shared by the parser's path and the lane) does not see these: a hole, reported.
     */
    static List<Probe> hiddenVolatileProbes() {
        return List.of(
                Probe.of("DELETE FROM t WHERE t.coin"),
                Probe.of("DELETE FROM t x WHERE x.coin"),
                Probe.of("DELETE FROM t x WHERE (x).coin"),
                Probe.of("DELETE FROM t WHERE id ~~~ 0"),
                Probe.of("DELETE FROM t WHERE id OPERATOR(public.~~~) 0"));
    }

    @TestFactory
    Stream<DynamicTest> everyProbeComesOutSafe() {
        return cases(probes());
    }

    @TestFactory
    Stream<DynamicTest> aVolatileWhereTheTextDoesNotShowIsRefused() {
        return cases(hiddenVolatileProbes());
    }

    private static Stream<DynamicTest> cases(List<Probe> probes) {
        List<DynamicTest> tests = new ArrayList<>();
        for (Probe probe : probes) {
            for (boolean prepared : new boolean[] {false, true}) {
                if (probe.binds().length > 0 && !prepared) {
                    continue;
                }
                tests.add(DynamicTest.dynamicTest((prepared ? "PS " : "ST ") + probe, () -> {
                    String wrong = attack(probe, prepared);
                    assertTrue(wrong == null, wrong);
                }));
            }
        }
        tests.add(DynamicTest.dynamicTest("counts", () -> {
            StringBuilder b = new StringBuilder("DeleteLaneAttackIT counts:");
            for (int k = 0; k < COUNTS.length; k++) {
                b.append(String.format(Locale.ROOT, " %s=%d", COUNTED[k], COUNTS[k]));
            }
            System.out.println(b);
            REASONS.forEach(r -> System.out.println("  refused: " + r));
        }));
        return tests.stream();
    }
}
