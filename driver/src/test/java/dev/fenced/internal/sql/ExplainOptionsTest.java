package dev.fenced.internal.sql;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ExplainOptionsTest {

    private static boolean executes(String sql) {
        return ExplainOptions.executes(SqlLexer.tokenize(sql));
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "EXPLAIN ANALYZE UPDATE t SET a = 1",
                "explain analyse verbose UPDATE t SET a = 1",
                "EXPLAIN (analyze) UPDATE t SET a = 1",
                "EXPLAIN (ANALYSE) UPDATE t SET a = 1",
                "EXPLAIN (\"analyze\") UPDATE t SET a = 1",
                "EXPLAIN (\"analyse\") UPDATE t SET a = 1",
                "EXPLAIN (\"analyze\" true) UPDATE t SET a = 1",
                "EXPLAIN (U&\"analyze\") UPDATE t SET a = 1",
                "EXPLAIN (U&\"\\0061nalyze\") UPDATE t SET a = 1",
                "EXPLAIN (U&\"!0061nalyze\" UESCAPE '!' false) UPDATE t SET a = 1",
                "EXPLAIN (costs off, analyze 'on') UPDATE t SET a = 1",
                "EXPLAIN (analyze 1) UPDATE t SET a = 1",
                "EXPLAIN (analyze on) UPDATE t SET a = 1",
                "EXPLAIN (analyze \"true\") UPDATE t SET a = 1",
                "EXPLAIN (analyze E'off') UPDATE t SET a = 1", // not read: counted as on
                "EXPLAIN (analyze 'o''ff') UPDATE t SET a = 1",
                "EXPLAIN (analyze false, analyze) UPDATE t SET a = 1",
                "EXPLAIN (analyze 0.0) UPDATE t SET a = 1",
                "EXPLAIN (format json, \"analyze\" TRUE) UPDATE t SET a = 1",
                "EXPLAIN (analyze UPDATE t SET a = 1", // unclosed
                "EXPLAIN (analyze) CREATE TABLE x AS WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d",
            })
    void anExplainThatMayRunItsStatementExecutes(String sql) {
        assertTrue(executes(sql), sql);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "EXPLAIN UPDATE t SET a = 1",
                "EXPLAIN VERBOSE UPDATE t SET a = 1",
                "EXPLAIN (verbose, costs off) UPDATE t SET a = 1",
                "EXPLAIN (analyze false) UPDATE t SET a = 1",
                "EXPLAIN (analyze OFF) UPDATE t SET a = 1",
                "EXPLAIN (\"analyze\" 'off') UPDATE t SET a = 1",
                "EXPLAIN (analyze \"false\") UPDATE t SET a = 1",
                "EXPLAIN (analyze 0) UPDATE t SET a = 1",
                "EXPLAIN (analyze -0, costs) UPDATE t SET a = 1",
                "EXPLAIN (format 'json', analyze FALSE) UPDATE t SET a = 1",
                "EXPLAIN \"analyze\" UPDATE t SET a = 1", // a quoted name is no keyword in the legacy form
            })
    void anExplainThatOnlyPlansDoesNot(String sql) {
        assertFalse(executes(sql), sql);
    }
}
