package dev.fenced.internal.sql;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.FencingMode;
import dev.fenced.internal.config.ProtectedTable;
import dev.fenced.internal.config.RelativeUpdatePolicy;
import dev.fenced.internal.config.TableName;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Exact output for each shape the rewriter handles, and the construct named for each it refuses. */
class SqlRewriterTest {

    static final String T = "CAST(? AS bigint)";
    /** The UPDATE guard on row {@code q} of a table labelled {@code label}, as the rewriter prints it. */
    static String guard(String q, String label) {
        String c = q == null ? "last_token" : q + ".last_token";
        return "CASE WHEN pg_catalog.int8gt(" + c
                + ", ?) THEN pg_catalog.pg_size_bytes(pg_catalog.concat('fenced-stale:', " + c + ", ':"
                + StaleMarker.nonce() + ":" + label + "')) ELSE ? END";
    }

    /** The DELETE check, likewise. */
    static String check(String q, String label) {
        return "CASE WHEN pg_catalog.int8gt(" + q + ".last_token, " + T
                + ") THEN CAST(pg_catalog.concat('fenced-stale:', " + q + ".last_token, ':" + StaleMarker.nonce() + ":"
                + label + "') AS boolean) ELSE true END";
    }

    private final SqlRewriter rewriter = rewriter(RelativeUpdatePolicy.WARN);

    static SqlRewriter rewriter(RelativeUpdatePolicy policy) {
        return new SqlRewriter(
                FencingTargets.modelled(
                        List.of(
                                new ProtectedTable(TableName.parse("totals"), "last_token", FencingMode.ENFORCE),
                                new ProtectedTable(TableName.parse("sales.orders"), "last_token", FencingMode.OBSERVE)),
                        Map.of(
                                TableName.parse("public.totals_view"),
                                "view public.totals_view reads a protected table"),
                        Set.of("my_volatile"),
                        Map.of(),
                        null),
                policy,
                Duration.ofSeconds(2));
    }

    private RewritePlan.Fenced fenced(String sql) {
        RewritePlan plan = rewriter.plan(sql);
        return assertInstanceOf(RewritePlan.Fenced.class, plan, () -> sql + " -> " + plan);
    }

    private String refused(String sql) {
        RewritePlan plan = rewriter.plan(sql);
        return assertInstanceOf(RewritePlan.Refused.class, plan, () -> sql + " -> " + plan)
                .construct();
    }

    private static String guard(String q) {
        return guard(q, "totals");
    }

    @Test
    void anEnforcedUpdateRequiresATokenAndItsNullTokenTextKeepsTheRowsFenceValue() {
        String sql = "UPDATE totals SET amount = ? WHERE restaurant_id = ?";
        RewritePlan.Fenced fast = fenced(sql);
        assertTrue(fast.tokenRequired());
        RewritePlan.Fenced unfenced = assertInstanceOf(RewritePlan.Fenced.class, rewriter.planForNullToken(sql));
        assertTrue(!unfenced.tokenRequired(), unfenced::toString);
        assertEquals(fast.sql().replace("ELSE ? END", "ELSE COALESCE(?, last_token) END"), unfenced.sql());
        // the same parameters at the same places: a statement can bind either text alike
        assertArrayEquals(fast.tokenIndexes(), unfenced.tokenIndexes());
        assertArrayEquals(fast.delegateIndexes(2), unfenced.delegateIndexes(2));
        // ON CONFLICT DO UPDATE and MERGE's WHEN MATCHED UPDATE carry the same guard
        assertTrue(fenced("INSERT INTO totals (restaurant_id, amount) VALUES (?, ?) ON CONFLICT (restaurant_id)"
                        + " DO UPDATE SET amount = excluded.amount")
                .tokenRequired());
        // nothing else needs a token to be right: observe mode (GREATEST), INSERT, DELETE
        assertFalse(fenced("UPDATE sales.orders SET amount = 1 WHERE id = 2").tokenRequired());
        assertFalse(fenced("INSERT INTO totals (restaurant_id, amount) VALUES (1, 2)")
                .tokenRequired());
        assertFalse(fenced("DELETE FROM totals WHERE restaurant_id = 1").tokenRequired());
    }

    @Test
    void updateSetsTheTokenThroughTheGuardAndMapsParameters() {
        RewritePlan.Fenced p = fenced("UPDATE totals SET amount = ? WHERE restaurant_id = ?");
        assertEquals("UPDATE totals SET amount = ?, last_token = " + guard(null) + " WHERE restaurant_id = ?", p.sql());
        assertArrayEquals(new int[] {1}, p.delegateIndexes(1));
        assertArrayEquals(new int[] {4}, p.delegateIndexes(2));
        assertArrayEquals(new int[] {2, 3}, p.tokenIndexes());
        assertEquals(2, p.userParameterCount());
        assertEquals(4, p.delegateParameterCount());
        assertEquals(List.of("totals"), p.tables());
    }

    @Test
    void aliasesSchemasQuotesFromAndReturningAreKept() {
        RewritePlan.Fenced p =
                fenced("update public.\"totals\" t set amount = x.v from x where x.id = t.id returning t.*");
        // planned by position first (a plain FROM list): the user's spelling is kept, the guard names the row
        assertEquals(
                "update public.\"totals\" t set amount = x.v, last_token = " + guard("t")
                        + " from x where x.id = t.id returning t.*",
                p.sql());
    }

    @Test
    void onlyIsLiftedBeforeParsingAndPutBack() {
        assertEquals(
                "UPDATE ONLY totals SET amount = 1, last_token = " + guard(null),
                fenced("UPDATE ONLY totals SET amount = 1").sql());
        assertTrue(fenced("DELETE FROM ONLY totals WHERE id = ?")
                .sql()
                .startsWith("DELETE FROM ONLY totals WHERE (id = ?)"));
    }

    @Test
    void deleteChecksOnlyTheRowsItsWhereSelects() {
        RewritePlan.Fenced p = fenced("DELETE FROM totals WHERE id = ? OR id = ?");
        assertEquals(
                "DELETE FROM totals WHERE (id = ? OR id = ?) AND CASE WHEN (id = ? OR id = ?) THEN "
                        + check("totals", "totals") + " ELSE false END",
                p.sql());
        assertArrayEquals(new int[] {1, 3}, p.delegateIndexes(1));
        assertArrayEquals(new int[] {2, 4}, p.delegateIndexes(2));
        assertArrayEquals(new int[] {5}, p.tokenIndexes());
        assertEquals(
                "DELETE FROM totals WHERE " + check("totals", "totals"),
                fenced("DELETE FROM totals").sql());
    }

    @Test
    void insertSuppliesTheTokenInEveryRow() {
        RewritePlan.Fenced p = fenced("INSERT INTO totals (restaurant_id, amount) VALUES (?, ?)");
        assertEquals("INSERT INTO totals (restaurant_id, amount, last_token) VALUES (?, ?, " + T + ")", p.sql());
        assertArrayEquals(new int[] {3}, p.tokenIndexes());
        assertEquals(
                "INSERT INTO totals (restaurant_id, amount, last_token) VALUES (1, 2, " + T + "), (3, 4, " + T + ")",
                fenced("INSERT INTO totals (restaurant_id, amount) VALUES (1, 2), (3, 4)")
                        .sql());
        assertEquals(
                "INSERT INTO totals (last_token) VALUES (" + T + ")",
                fenced("INSERT INTO totals DEFAULT VALUES").sql());
        assertEquals(
                "INSERT INTO totals (a, last_token) VALUES ('it''s ?', " + T + ")",
                fenced("INSERT INTO totals (a) VALUES ('it''s ?')").sql());
    }

    @Test
    void insertFromAQueryCarriesTheTokenAsAColumn() {
        RewritePlan.Fenced p = fenced("INSERT INTO totals (restaurant_id, amount) SELECT id, ? FROM r WHERE x = ?");
        assertEquals(
                "INSERT INTO totals (restaurant_id, amount, last_token) SELECT id, ?, " + T + " FROM r WHERE x = ?",
                p.sql());
        assertArrayEquals(new int[] {1}, p.delegateIndexes(1));
        assertArrayEquals(new int[] {3}, p.delegateIndexes(2));
        assertEquals(
                "INSERT INTO totals (restaurant_id, amount, last_token) SELECT fenced_src.*, " + T + " FROM"
                        + " (SELECT id, 0 FROM r UNION SELECT 9, 9) AS fenced_src",
                fenced("INSERT INTO totals (restaurant_id, amount) SELECT id, 0 FROM r UNION SELECT 9, 9")
                        .sql());
    }

    @Test
    void upsertGuardsItsUpdatePath() {
        assertEquals(
                "INSERT INTO totals AS t (restaurant_id, amount, last_token) VALUES (?, ?, " + T + ") ON CONFLICT"
                        + " (restaurant_id) DO UPDATE SET amount = EXCLUDED.amount, last_token = " + guard("t"),
                fenced("INSERT INTO totals AS t (restaurant_id, amount) VALUES (?, ?)"
                                + " ON CONFLICT (restaurant_id) DO UPDATE SET amount = EXCLUDED.amount")
                        .sql());
        assertEquals(
                "INSERT INTO totals (restaurant_id, last_token) VALUES (1, " + T + ") ON CONFLICT DO NOTHING",
                fenced("INSERT INTO totals (restaurant_id) VALUES (1) ON CONFLICT DO NOTHING")
                        .sql());
    }

    @Test
    void dataModifyingCtesAndMultiStatementTextsAreFencedEach() {
        RewritePlan.Fenced p =
                fenced("WITH u AS (UPDATE totals SET amount = 1 WHERE id = ? RETURNING *) SELECT * FROM u");
        assertEquals(
                "WITH u AS (UPDATE totals SET amount = 1, last_token = " + guard(null)
                        + " WHERE id = ? RETURNING *) SELECT * FROM u",
                p.sql());
        RewritePlan.Fenced two = fenced("UPDATE totals SET a = 1; DELETE FROM totals WHERE id = 2");
        assertEquals(List.of("totals", "totals"), two.tables());
        assertEquals(3, two.tokenIndexes().length);
    }

    @Test
    void observeModeRecordsTheTokenWithoutChecking() {
        assertEquals(
                "UPDATE sales.orders SET a = ?, last_token = GREATEST(last_token, " + T + ")",
                fenced("UPDATE sales.orders SET a = ?").sql());
        assertEquals(
                FencingMode.OBSERVE, fenced("UPDATE sales.orders SET a = ?").mode());
        assertEquals(
                "DELETE FROM sales.orders WHERE a = ?",
                fenced("DELETE FROM sales.orders WHERE a = ?").sql());
    }

    @Test
    void renderWritesTheTokenAsALiteralForPlainStatements() {
        RewritePlan.Fenced p = fenced("INSERT INTO totals (a) VALUES (1)");
        assertEquals("INSERT INTO totals (a, last_token) VALUES (1, CAST(42 AS bigint))", p.render(42));
        assertEquals("INSERT INTO totals (a, last_token) VALUES (1, CAST(NULL AS bigint))", p.render(0));
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "SELECT * FROM totals WHERE id = ? FOR UPDATE",
                "SELECT * FROM totals FOR NO KEY UPDATE",
                "SELECT * FROM totals OFFSET ? LIMIT ?",
                "ALTER TABLE totals ADD COLUMN x int",
                "CREATE INDEX ON totals (amount)",
                "COPY totals TO STDOUT",
                "UPDATE other SET a = (SELECT max(amount) FROM totals)",
                "INSERT INTO archive SELECT * FROM totals",
                "UPDATE totals_history SET a = 1",
                "SELECT 'UPDATE totals SET a = 1'",
                "UPDATE t SET a = 1 -- totals",
                "EXPLAIN UPDATE totals SET a = 1",
            })
    void statementsThatCannotWriteAProtectedTablePassUntouched(String sql) {
        RewritePlan plan = rewriter.plan(sql);
        assertTrue(plan instanceof RewritePlan.Passthrough, () -> sql + " -> " + plan);
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "TRUNCATE totals|TRUNCATE|",
                "MERGE INTO totals t USING s ON t.id = s.id WHEN MATCHED THEN UPDATE SET last_token = 1|fence column|",
                "COPY totals FROM STDIN|COPY ... FROM|",
                "COPY (DELETE FROM totals RETURNING *) TO STDOUT|COPY of a data-modifying query|",
                "DELETE FROM totals WHERE CURRENT OF c|WHERE CURRENT OF|",
                "UPDATE totals SET last_token = 5|sets the fence column last_token|",
                "INSERT INTO totals (a, last_token) VALUES (1, 2)|sets the fence column last_token|",
                "INSERT INTO totals (a) VALUES (1) ON CONFLICT (a) DO UPDATE SET last_token = 9|sets the fence column|",
                "INSERT INTO totals VALUES (1, 2)|without a column list|",
                "INSERT INTO totals SELECT * FROM x|without a column list|",
                "INSERT INTO totals (arr[1], last_token.x) VALUES (1, 2)|sets the fence column|",
                "INSERT INTO totals (f3.if1) VALUES (1), (2, 3)|the SQL parser would change the statement|",
                "INSERT INTO totals (f3.if1) VALUES (1) ON CONFLICT (a) DO UPDATE SET b = 1|the SQL parser would change|",
                "UPDATE U&\"tot\\0061ls\" SET a = 1|Unicode-escaped|U&\"tot\\0061ls\"",
                "DO $$ BEGIN UPDATE totals SET a = 1; END $$|anonymous code block|",
                "EXPLAIN ANALYZE UPDATE totals SET a = 1|EXPLAIN ANALYZE|",
                "PREPARE p AS UPDATE totals SET a = $1|PREPARE of a write|",
                "DELETE FROM totals WHERE random() < 0.5|volatile function random|",
                "DELETE FROM totals WHERE id IN (SELECT id FROM x WHERE my_volatile(id))|volatile function my_volatile|",
                "UPDATE totals SET a = 1 WHERE b ?? 'k'|escaped ? operator|",
                "UPDATE totals_view SET a = 1|view public.totals_view reads a protected table|totals_view",
                "UPDATE totals SET a = (SELECT 1|SQL the parser cannot read|",
                "UPDATE totals SET a = 'unterminated|cannot be read|",
                "GO UPDATE totals SET a = 1|unrecognised statement 'GO'|",
            })
    void unfenceableWritesAreRefusedNamingTheConstruct(String sql, String construct, String table) {
        String reason = refused(sql);
        assertTrue(reason.contains(construct), () -> sql + " -> " + reason);
        assertEquals(table == null ? "totals" : table, ((RewritePlan.Refused) rewriter.plan(sql)).table());
    }

    @Test
    void relativeUpdatesAreFlaggedOrRefused() {
        assertTrue(fenced("UPDATE totals SET amount = amount + ? WHERE id = ?").relativeUpdate());
        assertTrue(fenced("UPDATE totals t SET amount = t.amount + 1").relativeUpdate());
        assertTrue(!fenced("UPDATE totals t SET amount = x.amount + 1 FROM x").relativeUpdate());
        assertTrue(!fenced("UPDATE totals SET amount = ?").relativeUpdate());
        assertTrue(fenced("INSERT INTO totals AS t (id, amount) VALUES (1, 2) ON CONFLICT (id)"
                        + " DO UPDATE SET amount = t.amount + EXCLUDED.amount")
                .relativeUpdate());
        RewritePlan refused = rewriter(RelativeUpdatePolicy.REFUSE).plan("UPDATE totals SET amount = amount + 1");
        assertTrue(
                refused instanceof RewritePlan.Refused r && r.construct().contains("relative update of column amount"),
                refused::toString);
    }

    /**
     * Issue 26's differential campaign: {@code trim(leading FROM v)} (what pgjdbc makes of {@code {fn ltrim(v)}})
     * threw a NullPointerException out of the rewriter, and the column in a trim's FROM operand was not seen as read.
     */
    @Test
    void trimReadsTheColumnInItsFromOperand() {
        assertTrue(fenced("UPDATE totals SET note = trim(leading FROM note) WHERE id = 1")
                .relativeUpdate());
        assertTrue(fenced("UPDATE totals SET note = trim(both 'x' FROM note) WHERE id = 1")
                .relativeUpdate());
        assertTrue(fenced("UPDATE totals SET note = trim(note) WHERE id = 1").relativeUpdate());
        assertTrue(!fenced("UPDATE totals SET note = trim(leading FROM ?) WHERE id = 1")
                .relativeUpdate());
        RewritePlan refused =
                rewriter(RelativeUpdatePolicy.REFUSE).plan("UPDATE totals SET note = trim(trailing ' ' FROM note)");
        assertTrue(
                refused instanceof RewritePlan.Refused r && r.construct().contains("relative update of column note"),
                refused::toString);
    }

    @Test
    void nonAsciiNamesMatchHoweverTheServerFoldsThem() {
        SqlRewriter r = new SqlRewriter(
                FencingTargets.of(
                        List.of(new ProtectedTable(TableName.parse("\"Äpfel\""), "last_token", FencingMode.ENFORCE))),
                RelativeUpdatePolicy.ALLOW,
                Duration.ofSeconds(2));
        // a UTF-8 database folds only A-Z: ÄPFEL is the table "Äpfel"; a LATIN1 one would say "äpfel"
        assertTrue(r.plan("UPDATE ÄPFEL SET a = 1") instanceof RewritePlan.Fenced);
        assertTrue(r.plan("UPDATE äpfel SET a = 1") instanceof RewritePlan.Fenced);
        assertTrue(r.plan("UPDATE \"Äpfel\" SET a = 1") instanceof RewritePlan.Fenced);
        assertEquals("Äpfel", TableName.fold("ÄPFEL"));
    }

    @Test
    void quotedAsciiNamesStayExact() {
        SqlRewriter r = new SqlRewriter(
                FencingTargets.of(
                        List.of(new ProtectedTable(TableName.parse("\"Totals\""), "last_token", FencingMode.ENFORCE))),
                RelativeUpdatePolicy.ALLOW,
                Duration.ofSeconds(2));
        assertTrue(r.plan("UPDATE \"Totals\" SET a = 1") instanceof RewritePlan.Fenced);
        assertTrue(
                r.plan("UPDATE totals SET a = 1") instanceof RewritePlan.Passthrough,
                "unquoted totals is another table");
    }

    @Test
    void theRewrittenTextIsTheSameForEveryToken() {
        String a =
                fenced("UPDATE totals SET amount = ? WHERE restaurant_id = ?").sql();
        String b = ((RewritePlan.Fenced) rewriter(RelativeUpdatePolicy.WARN)
                        .plan("UPDATE totals SET amount = ? WHERE restaurant_id = ?"))
                .sql();
        assertEquals(a, b);
        assertTrue(
                !a.replace(StaleMarker.nonce(), "").matches(".*\\d{2,}.*"),
                "no token value is written into prepared SQL: " + a);
    }

    /** PostgreSQL reads {@code TABLE src} as {@code SELECT * FROM src}; fenced spells it out so the parser can read it. */
    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "INSERT INTO totals (restaurant_id, amount) TABLE src"
                        + "|INSERT INTO totals (restaurant_id, amount, last_token) SELECT *, CAST(? AS bigint) FROM src",
                "INSERT INTO totals (restaurant_id, amount) TABLE src UNION TABLE \"Src2\""
                        + "|INSERT INTO totals (restaurant_id, amount, last_token) SELECT fenced_src.*, CAST(? AS bigint)"
                        + " FROM (SELECT * FROM src UNION SELECT * FROM \"Src2\") AS fenced_src",
                "WITH s AS (TABLE src) INSERT INTO totals (restaurant_id, amount) SELECT s.table, 1 AS table FROM s"
                        + "|WITH s AS (SELECT * FROM src) INSERT INTO totals (restaurant_id, amount, last_token)"
                        + " SELECT s.table, 1 AS table, CAST(? AS bigint) FROM s"
            })
    void aTableQueryIsFencedAsTheSelectItStandsFor(String sql, String expected) {
        assertEquals(expected, fenced(sql).sql());
    }

    /**
     * JSqlParser reads these but cannot read back its own fenced printout (it prints the VALUES of a set operation
     * where its grammar does not take them): they were refused ("the fenced statement does not parse") and are fenced
     * by position instead, the token added around the query (TABLE spelled out, as everywhere).
     */
    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "INSERT INTO totals (restaurant_id, amount) VALUES (1, 2) UNION ALL TABLE src"
                        + "|INSERT INTO totals (restaurant_id, amount, last_token) SELECT fenced_src.*, CAST(? AS bigint)"
                        + " FROM (VALUES (1, 2) UNION ALL SELECT * FROM src) AS fenced_src",
                "INSERT INTO totals (restaurant_id, amount) VALUES (1, ?) UNION ALL TABLE src RETURNING amount"
                        + "|INSERT INTO totals (restaurant_id, amount, last_token) SELECT fenced_src.*, CAST(? AS bigint)"
                        + " FROM (VALUES (1, ?) UNION ALL SELECT * FROM src) AS fenced_src RETURNING amount"
            })
    void aStatementWhoseFencedPrintoutTheParserCannotReadIsFencedByPosition(String sql, String expected) {
        assertEquals(expected, fenced(sql).sql());
    }

    @Test
    void aTableQueryWithoutAColumnListIsStillRefusedAndDdlIsNotTouched() {
        assertTrue(refused("INSERT INTO totals TABLE src").contains("without a column list"));
        assertEquals(RewritePlan.Passthrough.PASSTHROUGH, rewriter.plan("LOCK TABLE totals IN SHARE MODE"));
    }

    /** JSqlParser drops {@code f3.} and rewrites subscripts; the skeleton keeps the user's text and adds the fence. */
    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "INSERT INTO totals (arr[1], f3.if1) VALUES (1, ?), (2, 3) RETURNING *"
                        + "|INSERT INTO totals (arr[1], f3.if1, last_token) VALUES (1, ?, CAST(? AS bigint)),"
                        + " (2, 3, CAST(? AS bigint)) RETURNING *",
                "INSERT INTO totals AS t (f3.if1, f3.if2) OVERRIDING USER VALUE SELECT a, b AS from FROM s ON CONFLICT DO"
                        + " NOTHING|INSERT INTO totals AS t (f3.if1, f3.if2, last_token) OVERRIDING USER VALUE"
                        + " SELECT a, b AS from, CAST(? AS bigint) FROM s ON CONFLICT DO NOTHING",
                "INSERT INTO totals (f3.if1) SELECT 1 UNION SELECT 2"
                        + "|INSERT INTO totals (f3.if1, last_token) SELECT fenced_src.*, CAST(? AS bigint) FROM ("
                        + "SELECT 1 UNION SELECT 2) AS fenced_src"
            })
    void anInsertTheParserWouldChangeIsFencedByPosition(String sql, String expected) {
        RewritePlan.Fenced plan = fenced(sql);
        // each fragment follows the token before it, as JSqlParser prints an added item; the user's spacing stays
        assertEquals(expected, plan.sql());
        assertFalse(plan.tokenRequired());
    }
}
