package dev.fenced.internal.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.FencingException;
import dev.fenced.internal.pg.PgStates;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;

/**
 * How a refused grant is explained (the cases that need no answer from the server; a read-only store asks it
 * whether it is a standby, which the lease integration tests cover).
 */
class StoreErrorsTest {

    private static final LeaseTableName TABLE = LeaseTableName.parse("locks.job_lease");

    private static FencingException explained(SQLException e) {
        FencingException f = assertInstanceOf(FencingException.class, StoreErrors.onGrant(null, TABLE, "nightly", e));
        assertEquals(FencingException.LEASE_STORE, f.getSQLState());
        assertSame(e, f.getCause());
        assertTrue(f.getMessage().contains("'nightly'"), f.getMessage());
        return f;
    }

    @Test
    void aMissingTableSaysHowToCreateIt() {
        String m = explained(new SQLException("relation does not exist", PgStates.UNDEFINED_TABLE))
                .getMessage();
        assertTrue(m.contains(TABLE.table()) && m.contains(TABLE.sequence()), m);
        assertTrue(m.contains("fenced-lease.sql") && m.contains("createTable(true)"), m);
    }

    @Test
    void aSequenceBehindTheGrantedTokensIsNamed() {
        String m = explained(new SQLException(
                        "invalid input syntax for type bigint: \"" + Tokens.BEHIND_MARKER + "77\"",
                        PgStates.INVALID_TEXT_REPRESENTATION))
                .getMessage();
        assertTrue(m.contains("not above the highest token already granted") && m.contains("setval"), m);
    }

    @Test
    void exhaustedTokensAreNamedWithTheirLimits() {
        String m = explained(new SQLException("null value in column \"token\"", PgStates.NOT_NULL_VIOLATION))
                .getMessage();
        assertTrue(m.contains("no token is left"), m);
        assertTrue(
                m.contains(Long.toString(Tokens.SEQUENCE_LIMIT)) && m.contains(Long.toString(Tokens.TIMELINE_LIMIT)),
                m);
    }

    @Test
    void missingPrivilegesSayWhatToGrant() {
        String m = explained(new SQLException("permission denied", PgStates.INSUFFICIENT_PRIVILEGE))
                .getMessage();
        assertTrue(m.contains("grant SELECT, INSERT, UPDATE on the table and USAGE on the sequence"), m);
    }

    @Test
    void anythingElseKeepsTheDriversErrorAndSqlState() {
        // a dropped connection or a timeout: retry logic keys on the original SQLSTATE
        for (String state : new String[] {"08006", "57014", "40001", null}) {
            SQLException e = new SQLException("boom", state);
            assertSame(e, StoreErrors.onGrant(null, TABLE, "nightly", e));
        }
    }
}
