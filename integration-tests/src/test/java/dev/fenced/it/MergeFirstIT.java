package dev.fenced.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.Fencing;
import dev.fenced.FencingMode;
import dev.fenced.FencingScope;
import dev.fenced.internal.config.ProtectedTable;
import dev.fenced.internal.config.TableName;
import dev.fenced.internal.sql.FencingTargets;
import dev.fenced.internal.sql.LanePlans;
import dev.fenced.internal.sql.RewritePlan;
import dev.fenced.internal.sql.TableShape;
import dev.fenced.it.support.EachForm;
import dev.fenced.it.support.Outcome;
import dev.fenced.it.support.RawVsFenced;
import dev.fenced.it.support.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * MERGEs the skeleton-first lane plans by position before JSqlParser is asked (SkeletonFencer.fenceFirst): UPDATE,
 * DELETE, INSERT and DO NOTHING actions, conditions (a subquery among them), NOT MATCHED BY SOURCE, RETURNING, a
 * VALUES and a join as the source, ONLY, a relative update (warned, not refused, by default). Each runs raw, and
 * fenced with a current, a stale and no token, on a real PostgreSQL: with the current token it leaves the rows raw
 * PostgreSQL leaves (their tokens aside) and fails or succeeds as raw does; with a stale or no token it changes
 * nothing (every form touches a row holding a newer token, so the stale MERGE fails as a whole). {@code t} keeps
 * tombstones (it has a primary key), {@code nk} has no key. Every form is counted as planned by the lane, and what
 * the driver sends is the lane's text.
 */
@Tag("server-sensitive")
@DisplayName("MergeFirstIT: MERGEs planned by position first, raw vs fenced with a current, stale and no token")
class MergeFirstIT {

    static final long ROW = 50;
    static final long CURRENT = 60;
    static final long STALE = 40;

    private static TestDatabase db;

    @BeforeAll
    static void start() {
        db = TestDatabase.create();
        db.execute(
                "CREATE TABLE t (id int PRIMARY KEY, v text, n bigint, last_token bigint)",
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
                "INSERT INTO t VALUES (1, 'one', 1, " + ROW + "), (2, NULL, -2, " + ROW + "), (3, 'three', 3, " + ROW
                        + "), (4, 'four', 2, " + ROW + ")",
                "INSERT INTO nk VALUES (1, 'one', 1, " + ROW + "), (2, NULL, 2, " + ROW + "), (3, 'three', 3, " + ROW
                        + ")");
    }

    private static String rows() {
        return db.rows("SELECT 't', id, v, n, last_token FROM t UNION ALL"
                + " SELECT 'nk', id, v, n, last_token FROM nk ORDER BY 1, 2");
    }

    private static Connection fenced() throws SQLException {
        return DriverManager.getConnection(db.fencedUrl("fenced.tables=t,nk"));
    }

    /** The tables as the driver's catalog read shows them, for the lane's own plan of each form. */
    private static FencingTargets model() {
        return FencingTargets.modelled(
                List.of(
                        new ProtectedTable(TableName.parse("t"), "last_token", FencingMode.ENFORCE),
                        new ProtectedTable(TableName.parse("nk"), "last_token", FencingMode.ENFORCE)),
                Map.of(),
                Set.of(),
                Map.of(
                        TableName.parse("t"),
                        new TableShape(List.of("id", "v", "n", "last_token"), List.of("id"), "t"),
                        TableName.parse("nk"),
                        new TableShape(List.of("id", "v", "n", "last_token"), List.of(), null)),
                TableName.parse("fenced_tombstone"));
    }

    /** MERGE forms the lane plans; PostgreSQL runs each, and each changes a row holding the token ROW. */
    static final List<String> FORMS = List.of(
            "MERGE INTO t USING src s ON t.id = s.id WHEN MATCHED THEN UPDATE SET v = s.v, n = s.n + 1"
                    + " WHEN NOT MATCHED THEN INSERT (id, v, n) VALUES (s.id, s.v, s.n)",
            "MERGE INTO t AS x USING src s ON x.id = s.id WHEN MATCHED AND s.n > 1 THEN DELETE"
                    + " WHEN MATCHED THEN UPDATE SET n = 9 WHEN NOT MATCHED THEN DO NOTHING",
            "MERGE INTO t USING src s ON t.id = s.id WHEN MATCHED AND t.v IS NULL THEN DELETE"
                    + " WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.v, s.n)",
            "MERGE INTO t USING src s ON t.id = s.id WHEN MATCHED THEN UPDATE SET n = t.n + s.n"
                    + " RETURNING merge_action(), t.id, t.last_token",
            "merge into t using src s on t.id = s.id when matched and s.id = 3 then delete"
                    + " when not matched by source and t.v is not null then update set v = 'gone'",
            "MERGE INTO t USING (VALUES (1, 'x'), (9, 'nine')) AS s (id, v) ON t.id = s.id"
                    + " WHEN MATCHED THEN UPDATE SET v = s.v WHEN NOT MATCHED THEN INSERT (id, v) VALUES (s.id, s.v)",
            "MERGE INTO nk USING src s ON nk.id = s.id WHEN MATCHED AND s.v IS NOT NULL THEN DELETE"
                    + " WHEN MATCHED THEN UPDATE SET n = 5 WHEN NOT MATCHED THEN INSERT (id, v) VALUES (s.id, 'n')",
            "MERGE INTO ONLY t USING src s ON t.id = s.id WHEN MATCHED THEN DELETE",
            "MERGE INTO t USING src s ON t.id = s.id WHEN MATCHED AND (SELECT count(*) FROM src) > 0"
                    + " THEN UPDATE SET v = upper(s.v) WHEN NOT MATCHED BY TARGET AND s.n > 5"
                    + " THEN INSERT (id, v, n) OVERRIDING USER VALUE VALUES (s.id, s.v, s.n)",
            "MERGE INTO t USING src s JOIN (SELECT 1) AS one (x) ON true ON t.id = s.id"
                    + " WHEN MATCHED THEN UPDATE SET (v, n) = (s.v, s.n * 2)",
            "MERGE INTO t USING src s ON t.id = s.id WHEN NOT MATCHED BY SOURCE THEN DELETE"
                    + " WHEN MATCHED AND s.v IS NULL THEN DO NOTHING WHEN MATCHED THEN UPDATE SET v = s.v || '!'",
            "MERGE INTO t /* the target */ USING src AS s ON t.id = s.id"
                    + " WHEN MATCHED AND s.v = 'when then' THEN DELETE WHEN MATCHED THEN UPDATE SET v = $$d$$");

    /**
     * Raw vs fenced with a current, stale and no token: each form runs raw and changes rows; a stale or no token changes none
     * and fails; the current token leaves the rows raw leaves (the tokens aside).
     */
    private static RawVsFenced attack() {
        return RawVsFenced.on(db, "t,nk")
                .reset(MergeFirstIT::reset)
                .untouched(MergeFirstIT::rows)
                .mustChangeAndRun()
                .staleMustFail()
                .tokensIgnored()
                .tokens(CURRENT, STALE)
                .build();
    }

    @Test
    void mergesPlannedFirstAreFencedAsPostgresqlRunsThem() throws SQLException {
        EachForm.holds(formsThisServerRuns(), attack());
    }

    /**
     * The forms raw PostgreSQL can run here: RETURNING and NOT MATCHED BY SOURCE / BY TARGET are PostgreSQL 17's, so an
     * older server (CI's 15) runs the rest; the lane still plans every form (the test below).
     */
    private static List<String> formsThisServerRuns() {
        if (db.serverMajorVersion() >= 17) {
            return FORMS;
        }
        return FORMS.stream()
                .filter(sql ->
                        !sql.toUpperCase(java.util.Locale.ROOT).matches("(?s).*(RETURNING| BY SOURCE| BY TARGET).*"))
                .toList();
    }

    /** Every form is the lane's (counted by the rewriter), and the driver sends exactly the lane's text. */
    @Test
    void everyFormIsPlannedByTheLaneAndSentAsItPlansIt() throws SQLException {
        FencingTargets model = model();
        int plannedFirst = 0;
        Map<String, String> wrong = new TreeMap<>();
        try (Connection c = fenced()) {
            for (String sql : FORMS) {
                RewritePlan.Fenced lane = LanePlans.plannedFirst(model, sql);
                if (lane == null) {
                    wrong.put(sql, "declined by the lane");
                    continue;
                }
                plannedFirst++;
                String sent = c.nativeSQL(sql);
                if (!sent.equals(lane.sql()) || !sent.contains("fenced-stale")) {
                    wrong.put(sql, "sent " + sent + "\n    lane " + lane.sql());
                }
            }
        }
        System.out.println("MergeFirstIT: " + plannedFirst + " of " + FORMS.size() + " MERGE forms planned first");
        assertTrue(wrong.isEmpty(), wrong.toString());
        assertEquals(FORMS.size(), plannedFirst);
    }

    /**
     * A MERGE whose every action is DO NOTHING adds no guard: it runs under a stale token as under the current one,
     * and changes nothing; without a token the driver refuses it, as any write to a protected table.
     */
    @Test
    void aDoNothingMergeIsPlannedFirstAndChangesNothing() throws SQLException {
        String sql = "MERGE INTO t USING src s ON t.id = s.id WHEN MATCHED THEN DO NOTHING"
                + " WHEN NOT MATCHED THEN DO NOTHING";
        RewritePlan.Fenced lane = LanePlans.plannedFirst(model(), sql);
        assertTrue(lane != null && lane.tokenIndexes().length == 0, String.valueOf(lane));
        reset();
        String before = rows();
        for (Long token : new Long[] {STALE, null, CURRENT}) {
            try (Connection c = fenced();
                    FencingScope ignored = token == null ? null : Fencing.bind(token)) {
                String e = Outcome.of(c, sql, true);
                if (token == null) {
                    assertTrue(e != null && e.contains(":FN002:"), String.valueOf(e));
                } else {
                    assertEquals(null, e);
                }
            }
            assertEquals(before, rows());
        }
    }
}
