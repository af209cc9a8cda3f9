package dev.fenced.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.Fencing;
import dev.fenced.FencingScope;
import dev.fenced.it.support.EachForm;
import dev.fenced.it.support.Outcome;
import dev.fenced.it.support.RawVsFenced;
import dev.fenced.it.support.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * MERGEs JSqlParser cannot read (IS chains, unary chains, ROW(...), jsonpath and jsonb operators, {@code ^@}, OFFSET
 * and FETCH orders it rewrites), which fenced refused (FN003) though PostgreSQL runs them, now fenced by position
 * (MergeSkeleton, MergeByPosition): each runs raw, and fenced with a current, a stale and no token, against a real
 * PostgreSQL. With the current token it must leave exactly the rows raw PostgreSQL leaves and fail or succeed as raw
 * does; with a stale or no token it must change nothing: every form touches a row holding a newer token, so the
 * stale MERGE fails as a whole, its inserts too. {@code t} keeps tombstones (it has a primary key): a key deleted by
 * such a MERGE stays deleted for a stale holder's MERGE INSERT. {@code nk} has no key, so no tombstones.
 */
@Tag("server-sensitive")
@DisplayName("MergeByPositionIT: MERGEs JSqlParser cannot read, raw vs fenced with a current, stale and no token")
class MergeByPositionIT {

    static final long ROW = 50;
    static final long CURRENT = 60;
    static final long STALE = 40;

    private static TestDatabase db;

    @BeforeAll
    static void start() {
        db = TestDatabase.create();
        db.execute(
                "CREATE TABLE t (id int PRIMARY KEY, v text, n bigint, j jsonb, last_token bigint)",
                "CREATE TABLE nk (id int, v text, n bigint, last_token bigint)",
                "CREATE TABLE src (id int, v text, n bigint)",
                "INSERT INTO src VALUES (1, 'one', 1), (2, NULL, -2), (3, 'three', 3), (7, 'seven', 7)");
    }

    @AfterAll
    static void stop() {
        db = null;
    }

    private static void reset() {
        db.clearTombstones();
        db.execute(
                "TRUNCATE t, nk",
                "INSERT INTO t VALUES (1, 'one', 1, '{\"k\": 1}', " + ROW + "),"
                        + " (2, NULL, -2, '{\"k\": 2}', " + ROW + "),"
                        + " (3, 'three', 3, '[]', " + ROW + "),"
                        + " (4, 'four', 2, NULL, " + ROW + ")",
                "INSERT INTO nk VALUES (1, 'one', 1, " + ROW + "), (2, NULL, 2, " + ROW + "), (3, 'three', 3, " + ROW
                        + ")");
    }

    /** Every row of both tables with its token, in a stable order. */
    private static String rows() {
        return db.rows("SELECT 't', id, v, n, j::text, last_token FROM t UNION ALL"
                + " SELECT 'nk', id, v, n, NULL, last_token FROM nk ORDER BY 1, 2");
    }

    private static Connection fenced() throws SQLException {
        return DriverManager.getConnection(db.fencedUrl("fenced.tables=t,nk"));
    }

    /** MERGE forms JSqlParser cannot read; PostgreSQL runs each, and each changes a row of the target. */
    static final List<String> FORMS = List.of(
            "MERGE INTO t USING src s ON t.id = s.id WHEN MATCHED AND s.v IS NOT NULL IS TRUE THEN UPDATE SET v ="
                    + " s.v || '!', n = - - s.n WHEN NOT MATCHED THEN INSERT (id, v, n) VALUES (s.id, s.v, - + 7)",
            "MERGE INTO t AS x USING src s ON x.id = s.id WHEN MATCHED AND x.j @? '$.k' THEN DELETE"
                    + " WHEN MATCHED THEN UPDATE SET n = - - 9 WHEN NOT MATCHED THEN DO NOTHING",
            "MERGE INTO t USING src s ON t.id = s.id WHEN MATCHED AND (t.v IS NULL) IS TRUE THEN DELETE"
                    + " WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.v, - - s.n, NULL)",
            "MERGE INTO t USING src s ON t.id = s.id WHEN MATCHED THEN UPDATE SET j = t.j #- '{k}'"
                    + " RETURNING merge_action(), t.id, t.last_token",
            "MERGE INTO t USING src s ON ROW(t.id, t.n) = ROW(s.id, s.n) WHEN MATCHED THEN UPDATE SET v = 'row'",
            "merge into t using src s on t.id = s.id when matched and t.v ^@ 'o' then delete"
                    + " when not matched by source and t.v IS NOT NULL IS TRUE then update set v = 'gone'",
            "MERGE INTO t USING (SELECT id, v, n FROM src ORDER BY id OFFSET 1 ROWS FETCH FIRST 2 ROWS ONLY) s"
                    + " ON t.id = s.id WHEN MATCHED AND CASE WHEN - - s.n > 0 THEN true ELSE false END THEN UPDATE"
                    + " SET v = CASE WHEN s.v IS NULL IS TRUE THEN 'when' ELSE 'then' END",
            "MERGE INTO t USING src s ON t.id = s.id WHEN NOT MATCHED BY SOURCE AND t.v IS NULL IS NOT FALSE THEN"
                    + " DELETE WHEN MATCHED AND s.id = 3 /* ' WHEN */ THEN DELETE WHEN MATCHED THEN UPDATE SET n = 8",
            "MERGE INTO nk USING src s ON nk.id = s.id WHEN MATCHED AND s.v IS NOT NULL IS TRUE THEN DELETE"
                    + " WHEN MATCHED THEN UPDATE SET n = - - 5 WHEN NOT MATCHED THEN INSERT (id, v) VALUES (s.id, 'n')",
            "MERGE INTO t USING src s ON t.id = s.id WHEN MATCHED THEN DELETE;");

    /**
     * Raw vs fenced with a current, stale and no token: each form changes rows raw; a stale or no token changes none
     * and fails; the current token leaves the rows raw leaves (the tokens aside: fenced writes the current one).
     */
    private static RawVsFenced attack() {
        return RawVsFenced.on(db, "t,nk")
                .reset(MergeByPositionIT::reset)
                .untouched(MergeByPositionIT::rows)
                .mustChange()
                .staleMustFail()
                .tokensIgnored()
                .tokens(CURRENT, STALE)
                .build();
    }

    @Test
    void formsJsqlparserCannotReadAreFencedAsPostgresqlRunsThem() throws SQLException {
        EachForm.holds(FORMS, attack());
    }

    /** Each form is fenced, not passed: what fenced sends holds the stale check and keeps the user's text. */
    @Test
    void theSentTextCarriesTheGuards() throws SQLException {
        try (Connection c = fenced()) {
            Map<String, String> wrong = new TreeMap<>();
            for (String sql : FORMS) {
                String sent = c.nativeSQL(sql);
                if (!sent.contains("fenced-stale") || !sent.startsWith(sql.substring(0, 20))) {
                    wrong.put(sql, sent);
                }
            }
            assertTrue(wrong.isEmpty(), wrong.toString());
        }
    }

    /** A key deleted by such a MERGE stays deleted for a stale holder's MERGE INSERT JSqlParser cannot read either. */
    @Test
    void aStaleMergeInsertDoesNotBringBackAKeyDeletedByPosition() throws SQLException {
        reset();
        try (Connection c = fenced();
                FencingScope ignored = Fencing.bind(CURRENT)) {
            assertEquals(
                    null,
                    Outcome.of(
                            c,
                            "MERGE INTO t USING src s ON t.id = s.id WHEN MATCHED AND s.v IS NULL IS TRUE THEN DELETE",
                            true));
        }
        String afterDelete = rows();
        assertTrue(!afterDelete.contains("t,2,"), afterDelete);
        for (String sql : new String[] {
            "MERGE INTO t USING (VALUES (2, 'ghost')) s (id, v) ON t.id = s.id WHEN NOT MATCHED AND s.v IS NOT NULL"
                    + " IS TRUE THEN INSERT (id, v) VALUES (s.id, s.v)",
            "MERGE INTO t USING (VALUES (2)) s (id) ON t.id = s.id WHEN NOT MATCHED THEN INSERT VALUES (s.id, 'g',"
                    + " - - 2, NULL)",
        }) {
            for (boolean prepared : new boolean[] {false, true}) {
                try (Connection c = fenced();
                        FencingScope ignored = Fencing.bind(STALE)) {
                    String e = Outcome.of(c, sql, prepared);
                    assertTrue(e != null && !e.contains(":FN003:"), sql + ": " + e);
                }
                assertEquals(afterDelete, rows(), sql);
            }
        }
        // the newer holder itself may put the key back
        try (Connection c = fenced();
                FencingScope ignored = Fencing.bind(CURRENT)) {
            assertEquals(
                    null,
                    Outcome.of(
                            c,
                            "MERGE INTO t USING (VALUES (2)) s (id) ON t.id = s.id WHEN NOT MATCHED THEN INSERT VALUES"
                                    + " (s.id, 'back', - - 2, NULL)",
                            true));
        }
    }
}
