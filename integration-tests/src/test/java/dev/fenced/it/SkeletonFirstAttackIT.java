package dev.fenced.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.Fencing;
import dev.fenced.FencingScope;
import dev.fenced.it.support.EachForm;
import dev.fenced.it.support.Outcome;
import dev.fenced.it.support.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * An outside review of the cold path's fast lane (SkeletonFirst: plain UPDATE ... SET and INSERT ... (columns)
 * VALUES of a protected table fenced by position, before JSqlParser is asked), against a real PostgreSQL. Each
 * statement the lane takes runs raw, and fenced with a current, a stale and no token: with the current token it must
 * change the rows raw PostgreSQL changes (and stamp each with the token); with no token it must change nothing, and
 * with a stale token change no existing row (a new key, which no one holds, is inserted stamped with that token). The
 * statements are the lane's accepted forms with the spellings that could move a fragment or a parameter: comments
 * (nested, line, with ? and quotes in them), dollar quotes, E'' strings, string continuation, operators with ?,
 * aliases, RETURNING, OVERRIDING, multi-row VALUES, DEFAULT, row constructors, JDBC escapes, a leading or trailing
 * semicolon, and tables with tombstones (a stale holder must not insert back a deleted key).
 */
@DisplayName("SkeletonFirstAttackIT: the fast lane's forms, raw vs fenced with a current, stale and no token")
class SkeletonFirstAttackIT {

    static final long ROW = 50;
    static final long CURRENT = 60;
    static final long STALE = 40;

    private static TestDatabase db;

    @BeforeAll
    static void start() {
        db = TestDatabase.create();
        db.execute(
                "CREATE TABLE t (id int PRIMARY KEY, v text, n bigint, j jsonb, last_token bigint)",
                "CREATE TABLE s (id int PRIMARY KEY, v text)");
    }

    @AfterAll
    static void stop() {
        db = null;
    }

    private static void reset() {
        db.clearTombstones();
        db.execute(
                "TRUNCATE t, s",
                "INSERT INTO t VALUES (1, 'one', 1, '{\"k\": 1}', " + ROW + "), (2, 'two', 2, NULL, " + ROW + "),"
                        + " (3, 'three', 3, '[]', " + ROW + ")",
                "INSERT INTO s VALUES (1, 'sone')");
    }

    /** id -> "v|n|j" and id -> last_token. */
    private static Map<Integer, String[]> rows() {
        Map<Integer, String[]> out = new TreeMap<>();
        try (Connection c = db.rawConnection();
                Statement st = c.createStatement();
                var rs = st.executeQuery("SELECT id, v, n, j::text, last_token FROM t ORDER BY id")) {
            while (rs.next()) {
                out.put(rs.getInt(1), new String[] {
                    rs.getString(2) + "|" + rs.getString(3) + "|" + rs.getString(4), rs.getString(5)
                });
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return out;
    }

    private static String data(Map<Integer, String[]> rows) {
        StringBuilder b = new StringBuilder();
        rows.forEach((id, r) -> b.append(id).append('=').append(r[0]).append(';'));
        return b.toString();
    }

    private static String all(Map<Integer, String[]> rows) {
        StringBuilder b = new StringBuilder();
        rows.forEach((id, r) ->
                b.append(id).append('=').append(r[0]).append('@').append(r[1]).append(';'));
        return b.toString();
    }

    private static Connection fenced() throws SQLException {
        return DriverManager.getConnection(db.fencedUrl("fenced.tables=t", "fenced.relativeUpdates=allow"));
    }

    /** What is wrong with fenced's handling of {@code sql}, or null. */
    private static String attack(String sql, boolean prepared) throws SQLException {
        List<String> wrong = new ArrayList<>();
        reset();
        String before = all(rows());
        for (Long token : new Long[] {STALE, null}) {
            reset();
            try (Connection c = fenced();
                    FencingScope ignored = token == null ? null : Fencing.bind(token)) {
                String e = Outcome.of(c, sql, prepared);
                Map<Integer, String[]> now = rows();
                boolean newKeys = token != null && sql.startsWith("INSERT") && e == null;
                if (newKeys) {
                    // a key no one holds yet may be inserted under any token (no row to be stale against, no
                    // tombstone): it must carry that token, and nothing else may change
                    now.keySet()
                            .removeIf(id -> id >= 10 && String.valueOf(token).equals(now.get(id)[1]));
                }
                if (!before.equals(all(now))) {
                    wrong.add(
                            (token == null ? "no token" : "stale token") + " changed rows (" + e + "): " + all(rows()));
                } else if (e == null && !newKeys) {
                    wrong.add((token == null ? "no token" : "stale token") + " was not refused");
                }
            }
        }
        reset();
        Map<Integer, String[]> start = rows();
        String rawError;
        try (Connection c = db.rawConnection()) {
            rawError = Outcome.of(c, sql, prepared);
        }
        String rawAfter = data(rows());
        reset();
        try (Connection c = fenced();
                FencingScope ignored = Fencing.bind(CURRENT)) {
            String e = Outcome.of(c, sql, prepared);
            Map<Integer, String[]> after = rows();
            if ((rawError == null) != (e == null) || !data(after).equals(rawAfter)) {
                wrong.add("current token differs from raw: raw " + rawError + " " + rawAfter + " / fenced " + e + " "
                        + data(after));
            }
            if (e == null) {
                after.forEach((id, r) -> {
                    String[] was = start.get(id);
                    boolean written = was == null || !was[0].equals(r[0]);
                    if (written && !String.valueOf(CURRENT).equals(r[1])) {
                        wrong.add("row " + id + " written without the current token: " + r[1]);
                    }
                });
            }
        }
        return wrong.isEmpty() ? null : String.join("; ", wrong);
    }

    /** The lane's forms: every one is planned by position first (SkeletonFirstAttackTest checks that). */
    static final List<String> LANE_FORMS = List.of(
            "UPDATE t SET v = 'x' WHERE id = 1",
            "UPDATE t SET v = 'x'",
            "UPDATE t AS x SET v = 'x' WHERE x.id = 2",
            "UPDATE t x SET v = upper(x.v) WHERE id <= 2",
            "UPDATE public.t SET v = 'p' WHERE id = 3",
            "UPDATE t SET v = 'x', n = 7 WHERE id = 1 RETURNING last_token, *",
            "UPDATE t SET (v, n) = ('r', 9) WHERE id = 2",
            "UPDATE t SET (v, n) = ROW('r', 9) WHERE id = 2",
            "UPDATE t SET v = DEFAULT WHERE id = 1",
            "UPDATE t SET v = 'c' -- a comment with ? and ' in it\n WHERE id = 1",
            "UPDATE t SET v = 'c' /* nested /* ? */ ' */ WHERE id = 1",
            "UPDATE t SET v = 'c'/**/WHERE id = 1",
            "UPDATE t SET v = $$dollar ? ' -- $$ WHERE id = 1",
            "UPDATE t SET v = $q$it's ?$q$ WHERE id = 1",
            "UPDATE t SET v = E'e\\\\x ?' WHERE id = 1",
            "UPDATE t SET v = 'con'\n'tinued' WHERE id = 1",
            "UPDATE t SET v = 'x' WHERE j ?| array['k']",
            "UPDATE t SET v = 'x' WHERE j @? '$.k'",
            "UPDATE t SET v = {fn ucase('esc')} WHERE id = 1",
            "UPDATE t SET v = 'x' WHERE id = 1;",
            ";UPDATE t SET v = 'x' WHERE id = 1",
            "UPDATE t SET v = 'x' WHERE id = 1; ;",
            "UPDATE t SET v = 'x' WHERE v IS DISTINCT FROM 'one'",
            "UPDATE t SET v = substring(v from 1 for 2) WHERE id = 1",
            "UPDATE t SET v = 'x' WHERE id = 1 AND last_token = " + ROW,
            "UPDATE t SET v = 'x' WHERE id IN (1, 3)",
            "UPDATE t SET n = 5 WHERE n = n + 0",
            "UPDATE t SET v = 'x' RETURNING v AS returning",
            "UPDATE t SET n = n + 1 WHERE id = 1",
            "UPDATE t AS x SET n = x.n * 2",
            "INSERT INTO t (id, v) VALUES (10, 'ten')",
            "INSERT INTO t (id, v, n) VALUES (10, 'ten', 10), (11, 'eleven', DEFAULT) RETURNING *",
            "INSERT INTO t AS x (id, v) VALUES (12, 'x') RETURNING x.last_token",
            "INSERT INTO t (id, v) OVERRIDING USER VALUE VALUES (13, 'o')",
            "INSERT INTO t(id,v)VALUES(14,'tight')",
            "INSERT INTO t (id, v) VALUES (15, $$d ' ?$$) -- trailing ? comment",
            "INSERT INTO t (id, v) VALUES (16, 'x') /* trailing */",
            "INSERT INTO t (id, j) VALUES (17, '{\"a\": 1}')",
            "INSERT INTO t (id, v) VALUES (1, 'duplicate')",
            "INSERT INTO t (\"id\", v) VALUES (18, 'q')",
            "INSERT INTO public.t (id, v) VALUES (19, 's')");

    @Test
    void theLanesFormsDoWhatPostgresqlDoesAndNothingStale() throws SQLException {
        EachForm.holds(LANE_FORMS, SkeletonFirstAttackIT::attack);
    }

    /** A key a newer holder deleted stays deleted for a stale holder whose INSERT the lane plans. */
    @Test
    void aStaleLaneInsertDoesNotBringBackADeletedKey() throws SQLException {
        reset();
        try (Connection c = fenced();
                FencingScope ignored = Fencing.bind(CURRENT)) {
            assertEquals(null, Outcome.of(c, "DELETE FROM t WHERE id = 2", false));
        }
        for (String sql : new String[] {
            "INSERT INTO t (id, v) VALUES (2, 'ghost')",
            "INSERT INTO t (v, id) VALUES ('ghost', 2), ('other', 20)",
            "INSERT INTO t AS x (id) VALUES (2)",
        }) {
            try (Connection c = fenced();
                    FencingScope ignored = Fencing.bind(STALE)) {
                String e = Outcome.of(c, sql, true);
                assertTrue(e != null, sql);
            }
            assertEquals("1=one|1|{\"k\": 1};3=three|3|[];", data(rows()), sql);
        }
    }
}
