package dev.fenced.internal.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
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

/** INSERT without a column list: the catalog's live columns name the values, the fence column is added. */
class PositionalInsertTest {

    static final ProtectedTable T = new ProtectedTable(TableName.parse("t"), "last_token", FencingMode.ENFORCE);
    static final ProtectedTable EARLY = new ProtectedTable(TableName.parse("early"), "last_token", FencingMode.ENFORCE);
    static final String TOKEN = "CAST(? AS bigint)";
    /** The token of the first row of an INSERT named from the catalog: checked against t's live columns. */
    static final String CHECKED = "CAST(CASE WHEN pg_catalog.array_eq((SELECT pg_catalog.array_agg(CAST(a.attname AS"
            + " pg_catalog.text) ORDER BY a.attnum) FROM pg_catalog.pg_attribute a WHERE pg_catalog.oideq(a.attrelid,"
            + " CAST('t' AS pg_catalog.regclass)) AND pg_catalog.int24gt(a.attnum, 0) AND NOT a.attisdropped),"
            + " CAST('{\"a\",\"Mixed Case\",\"c\",\"last_token\"}' AS pg_catalog.text[])) THEN CAST(? AS pg_catalog.text)"
            + " ELSE 'fenced: the"
            + " columns of t changed since fenced read the catalog; an INSERT without a column list is refused until it"
            + " reads it again (name the columns)' END AS bigint)";

    static final SqlRewriter REWRITER = new SqlRewriter(
            FencingTargets.modelled(
                    List.of(T, EARLY),
                    Map.of(),
                    Set.of(),
                    Map.of(
                            T.name(),
                            new TableShape(List.of("a", "Mixed Case", "c", "last_token"), List.of("a"), null),
                            EARLY.name(),
                            new TableShape(List.of("a", "last_token", "b"), List.of(), null)),
                    null),
            RelativeUpdatePolicy.ALLOW,
            Duration.ofSeconds(2));

    static String fenced(String sql) {
        RewritePlan p = REWRITER.plan(sql);
        return assertInstanceOf(RewritePlan.Fenced.class, p, () -> sql + " -> " + p)
                .sql();
    }

    static String refused(String sql) {
        RewritePlan p = REWRITER.plan(sql);
        return assertInstanceOf(RewritePlan.Refused.class, p, () -> sql + " -> " + p)
                .construct();
    }

    @Test
    void valuesAreNamedByPosition() {
        assertEquals(
                "INSERT INTO t (a, \"Mixed Case\", last_token) VALUES (1, 2, " + CHECKED + "), (3, DEFAULT, " + TOKEN
                        + ")",
                fenced("INSERT INTO t VALUES (1, 2), (3, DEFAULT)"));
        assertEquals("INSERT INTO t (a, last_token) VALUES (?, " + CHECKED + ")", fenced("INSERT INTO t VALUES (?)"));
    }

    @Test
    void aQueryIsNamedByItsSelectList() {
        assertEquals(
                "INSERT INTO t (a, \"Mixed Case\", c, last_token) SELECT x, y, z, " + CHECKED + " FROM s",
                fenced("INSERT INTO t SELECT x, y, z FROM s"));
        assertTrue(fenced("INSERT INTO t SELECT 1 UNION SELECT 2").startsWith("INSERT INTO t (a, last_token) SELECT"));
    }

    @Test
    void overridingStaysWhereItWas() {
        assertEquals(
                "INSERT INTO t (a, last_token) OVERRIDING USER VALUE VALUES (1, " + CHECKED + ")",
                fenced("INSERT INTO t OVERRIDING USER VALUE VALUES (1)"));
    }

    @Test
    void whatCannotBeCountedOrReachesTheFenceIsRefused() {
        assertTrue(refused("INSERT INTO t SELECT * FROM s").contains("cannot see how many"));
        assertTrue(refused("INSERT INTO t VALUES (1, 2, 3, 4)").contains("reach the fence column"));
        assertTrue(refused("INSERT INTO early VALUES (1, 2)").contains("reach the fence column"));
    }

    @Test
    void aMergeThatPostgreSQLRejectsAsUnreachableStaysRejected() {
        // WHEN MATCHED THEN DELETE WHEN MATCHED THEN UPDATE: an error in PostgreSQL; the guard would make the
        // DELETE conditional and the MERGE valid.
        assertTrue(
                refused("MERGE INTO t USING s ON t.a = s.a WHEN MATCHED THEN DELETE WHEN MATCHED THEN UPDATE SET b = 1")
                        .contains("unreachable"));
        assertTrue(fenced("MERGE INTO t USING s ON t.a = s.a WHEN MATCHED AND s.x THEN DELETE WHEN MATCHED THEN"
                        + " UPDATE SET b = 1 WHEN NOT MATCHED THEN INSERT VALUES (s.a)")
                .contains("INSERT (a, last_token)"));
    }

    @Test
    void updateWhereCurrentOfIsFencedInItsSetList() {
        assertEquals(
                "UPDATE t SET b = ?, last_token = CASE WHEN pg_catalog.int8gt(last_token, ?) THEN pg_catalog.pg_size_bytes("
                        + "pg_catalog.concat('fenced-stale:', last_token, ':" + StaleMarker.nonce() + ":t')) ELSE ? END"
                        + " WHERE CURRENT OF \"My Cursor\" RETURNING a",
                fenced("UPDATE t SET b = ? WHERE CURRENT OF \"My Cursor\" RETURNING a"));
        assertTrue(refused("DELETE FROM t WHERE CURRENT OF c").contains("delete by key"));
        assertTrue(refused("UPDATE t SET b = 1 WHERE a = 1 AND CURRENT OF c") != null);
        assertTrue(refused("UPDATE t SET b = fenced_current_of_0 WHERE CURRENT OF c")
                .contains("fenced's own"));
    }

    @Test
    void aStarAfterTheTargetStaysWhereItWas() {
        assertTrue(fenced("UPDATE t * SET b = 1 WHERE a = 2").startsWith("UPDATE t * SET b = 1, last_token = CASE"));
        assertTrue(fenced("UPDATE public.t * AS x SET b = 1")
                .startsWith("UPDATE public.t * AS x SET b = 1, last_token"
                        + " = CASE WHEN pg_catalog.int8gt(last_token, ?) THEN"));
        assertTrue(
                fenced("DELETE FROM t * WHERE a = 2").startsWith("DELETE FROM t * WHERE (a = 2) AND CASE"),
                () -> fenced("DELETE FROM t * WHERE a = 2"));
        assertTrue(fenced("UPDATE ONLY public.t SET b = 1").startsWith("UPDATE ONLY public.t SET b = 1, last_token"));
        assertTrue(refused("UPDATE ONLY db.public.t SET b = 1").contains("three-part"));
        assertTrue(refused("UPDATE db.public.t * SET b = 1").contains("three-part"));
    }

    @Test
    void transactionControlInTheSameTextIsSentAsWritten() {
        String sql = fenced("BEGIN; UPDATE t SET b = 1 WHERE a = ?; COMMIT");
        assertTrue(
                sql.startsWith("BEGIN; UPDATE t SET b = 1, last_token = CASE") && sql.endsWith("WHERE a = ?; COMMIT"),
                sql);
        assertTrue(fenced("START TRANSACTION ISOLATION LEVEL SERIALIZABLE; DELETE FROM early WHERE a = 1; SAVEPOINT s;"
                        + " RELEASE SAVEPOINT s; END")
                .startsWith("START TRANSACTION ISOLATION LEVEL SERIALIZABLE; DELETE FROM early"));
    }

    @Test
    void withoutACatalogItIsRefused() {
        SqlRewriter bare =
                new SqlRewriter(FencingTargets.of(List.of(T)), RelativeUpdatePolicy.ALLOW, Duration.ofSeconds(2));
        RewritePlan p = bare.plan("INSERT INTO t VALUES (1)");
        assertTrue(
                p instanceof RewritePlan.Refused r && r.construct().contains("catalog did not describe"), p::toString);
    }
}
