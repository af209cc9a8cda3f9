package dev.fenced.internal.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import dev.fenced.FencingMode;
import dev.fenced.internal.config.ProtectedTable;
import dev.fenced.internal.config.RelativeUpdatePolicy;
import dev.fenced.internal.config.TableName;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Exact rewrites for what the corpus run found; each case names the corpus record it came from. */
class RewriteFixesTest {

    static SqlRewriter rewriter(String... tables) {
        List<ProtectedTable> list = new ArrayList<>();
        for (String t : tables) {
            list.add(new ProtectedTable(TableName.parse(t), "last_token", FencingMode.ENFORCE));
        }
        return new SqlRewriter(FencingTargets.of(list), RelativeUpdatePolicy.ALLOW, Duration.ofSeconds(2));
    }

    static String fenced(SqlRewriter rewriter, String sql) {
        RewritePlan plan = rewriter.plan(sql);
        return assertInstanceOf(RewritePlan.Fenced.class, plan, () -> String.valueOf(plan))
                .sql();
    }

    /** What a refused plan says it could not fence. */
    static String construct(RewritePlan plan) {
        return assertInstanceOf(RewritePlan.Refused.class, plan, () -> String.valueOf(plan))
                .construct();
    }

    /** Corpus #1027 (updatable_views.sql): {@code =-} is two operators in PostgreSQL, not one. */
    @Test
    void equalsMinusIsFencedNotRefused() {
        // fenced by position before the parser is asked (SkeletonFirst): the user's spacing stays
        assertEquals(
                "UPDATE rw_view16 SET aa=-3, last_token = " + SqlRewriterTest.guard(null, "rw_view16") + " WHERE a=3",
                fenced(rewriter("rw_view16"), "UPDATE rw_view16 SET aa=-3 WHERE a=3"));
        // a DELETE too: its WHERE stays as written, and is repeated as written inside the check
        assertEquals(
                "DELETE FROM t WHERE (a=-?) AND CASE WHEN (a=-?) THEN " + SqlRewriterTest.check("t", "t")
                        + " ELSE false END",
                fenced(rewriter("t"), "DELETE FROM t WHERE a=-?"));
    }

    /**
     * Not in the corpus, found probing around it: PostgreSQL runs a data-modifying CTE inside CREATE TABLE
     * ... AS (verified on 18.1: the rows are gone), and the classifier passed every CREATE as DDL.
     */
    @Test
    void createTableAsWithADataModifyingCteIsRefused() {
        SqlRewriter rewriter = rewriter("victim");
        for (String sql : List.of(
                "create table copy1 as with d as (delete from victim returning *) select * from d",
                "CREATE TEMP TABLE t AS WITH u AS (UPDATE victim SET id = 2 RETURNING id) SELECT * FROM u",
                "CREATE UNLOGGED TABLE IF NOT EXISTS t AS (WITH i AS (INSERT INTO victim (id) VALUES (1) RETURNING id)"
                        + " SELECT * FROM i)")) {
            RewritePlan.Refused plan = assertInstanceOf(RewritePlan.Refused.class, rewriter.plan(sql), sql);
            assertEquals(
                    "CREATE TABLE ... AS with a data-modifying statement cannot be fenced; run the write on its"
                            + " own, then create the table from its result",
                    plan.construct());
            assertEquals("victim", plan.tables().get(0));
        }
    }

    @Test
    void createTableThatOnlyNamesAProtectedTableStaysDdl() {
        SqlRewriter rewriter = rewriter("victim");
        for (String sql : List.of(
                "CREATE TABLE child (id int REFERENCES victim ON DELETE CASCADE ON UPDATE CASCADE)",
                "CREATE TABLE copy1 AS SELECT * FROM victim",
                "CREATE TRIGGER t BEFORE INSERT OR UPDATE ON victim FOR EACH ROW EXECUTE FUNCTION f()")) {
            assertInstanceOf(RewritePlan.Passthrough.class, rewriter.plan(sql), sql);
        }
    }

    /**
     * Not in the corpus: a DELETE's WHERE is evaluated twice, so a subquery that may pick other rows the second
     * time (the SKIP LOCKED queue pattern, LIMIT without ORDER BY, TABLESAMPLE) would make the DELETE remove only
     * the rows both evaluations picked, or none while holding extra row locks.
     */
    @Test
    void deleteWhoseWhereCanPickOtherRowsTheSecondTimeIsRefused() {
        SqlRewriter rewriter = rewriter("q");
        String suffix = ": fenced evaluates the WHERE twice to check only the rows it deletes, and the two"
                + " evaluations could pick different rows";
        assertEquals(
                "DELETE whose WHERE has a subquery with FOR UPDATE (a row lock)" + suffix,
                construct(
                        rewriter.plan(
                                "DELETE FROM q WHERE id = (SELECT id FROM q ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED) RETURNING *")));
        assertEquals(
                "DELETE whose WHERE has a subquery with LIMIT but no ORDER BY" + suffix,
                construct(rewriter.plan("DELETE FROM q WHERE id IN (SELECT id FROM q WHERE done LIMIT 1000)")));
        assertEquals(
                "DELETE whose WHERE has a subquery with OFFSET but no ORDER BY" + suffix,
                construct(rewriter.plan("DELETE FROM q WHERE id IN (SELECT id FROM q OFFSET 10)")));
        assertEquals(
                "DELETE whose WHERE has a subquery with TABLESAMPLE" + suffix,
                construct(rewriter.plan("DELETE FROM q WHERE id IN (SELECT id FROM q TABLESAMPLE BERNOULLI (1))")));
        // An ORDER BY at the subquery's own level decides which rows a LIMIT keeps; one in a window does not.
        assertEquals(
                "DELETE whose WHERE has a subquery with LIMIT but no ORDER BY" + suffix,
                construct(
                        rewriter.plan("DELETE FROM q WHERE id IN (SELECT max(id) OVER (ORDER BY id) FROM q LIMIT 5)")));
    }

    @Test
    void deleteWithAnOrderedLimitIsStillFenced() {
        assertEquals(
                "DELETE FROM q WHERE (id IN (SELECT id FROM q ORDER BY id LIMIT ?)) AND CASE WHEN (id IN (SELECT"
                        + " id FROM q ORDER BY id LIMIT ?)) THEN " + SqlRewriterTest.check("q", "q")
                        + " ELSE false END",
                fenced(rewriter("q"), "DELETE FROM q WHERE id IN (SELECT id FROM q ORDER BY id LIMIT ?)"));
    }

    /**
     * Corpus #768 (insert_conflict.sql) writes a table named excluded; with a column list its rewrite named the row
     * excluded.last_token, which PostgreSQL rejects as ambiguous (checked on 18.1): refuse instead of sending SQL
     * that cannot run, and fence it once aliased.
     */
    @Test
    void upsertIntoATableNamedExcludedNeedsAnAlias() {
        SqlRewriter rewriter = rewriter("excluded");
        RewritePlan.Refused plan = assertInstanceOf(
                RewritePlan.Refused.class,
                rewriter.plan(
                        "insert into excluded (key, data) values (1, '2') on conflict (key) do update set data = 3"));
        assertEquals(
                "INSERT ... ON CONFLICT DO UPDATE into a table named excluded without an alias; write INSERT INTO"
                        + " excluded AS t ...",
                plan.construct());
        assertEquals(
                "INSERT INTO excluded AS target (key, data, last_token) VALUES (1, '2', CAST(? AS bigint)) ON"
                        + " CONFLICT (key) DO UPDATE SET data = excluded.data, last_token = "
                        + SqlRewriterTest.guard("target", "excluded") + " RETURNING *",
                fenced(
                        rewriter,
                        "insert into excluded AS target (key, data) values(1, '2') on conflict (key) do update"
                                + " set data = excluded.data RETURNING *"));
        // Without DO UPDATE there is no guard to name the row in (planned by position: the user's text as written).
        assertEquals(
                "insert into excluded (key, data, last_token) values (1, '2', CAST(? AS bigint)) on conflict do"
                        + " nothing",
                fenced(rewriter, "insert into excluded (key, data) values (1, '2') on conflict do nothing"));
    }

    /**
     * Found timing the parser around the corpus: nested ARRAY[...] costs JSqlParser as much as nested subqueries
     * (doubling per level, over a second at 14) but the nesting limit only counted parentheses, so such a statement
     * ran into the parse deadline, twice per plan, instead of being refused at once.
     */
    @Test
    void bracketsCountTowardsTheNestingLimit() {
        SqlRewriter rewriter = rewriter("t");
        String twelve = "1";
        for (int k = 0; k < 12; k++) {
            twelve = "ARRAY[" + twelve + "]";
        }
        RewritePlan.Refused deep =
                assertInstanceOf(RewritePlan.Refused.class, rewriter.plan("UPDATE t SET a = ARRAY[" + twelve + "]"));
        assertEquals("nesting deeper than 12 levels", deep.construct());
        assertEquals(
                "UPDATE t SET a = ARRAY[ARRAY[1]], last_token = " + SqlRewriterTest.guard(null, "t")
                        + " WHERE b[1][2] = 3",
                fenced(rewriter, "UPDATE t SET a = ARRAY[ARRAY[1]] WHERE b[1][2] = 3"));
    }
}
