package dev.fenced.internal.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The token layout: timeline in the high bits, sequence value in the low {@value Tokens#SEQUENCE_BITS}. */
class TokensTest {

    @Test
    void theBitsAddUpToAPositiveBigint() {
        assertEquals(63, Tokens.SEQUENCE_BITS + Tokens.TIMELINE_BITS);
        long largest = Tokens.token(Tokens.TIMELINE_LIMIT - 1, Tokens.SEQUENCE_LIMIT - 1);
        assertEquals(Long.MAX_VALUE, largest, "the largest token is the largest positive bigint, not a wrap");
    }

    @Test
    void timelineAndSequenceComeBackOut() {
        for (long[] tc : new long[][] {
            {1, 1}, {1, Tokens.SEQUENCE_LIMIT - 1}, {2, 0}, {7, 123_456_789}, {Tokens.TIMELINE_LIMIT - 1, 5}
        }) {
            long token = Tokens.token(tc[0], tc[1]);
            assertTrue(token > 0, () -> "positive: " + token);
            assertEquals(tc[0], Tokens.timelineOf(token));
            assertEquals(tc[1], Tokens.sequenceOf(token));
        }
    }

    @Test
    void everyTokenOfALaterTimelineExceedsEveryTokenOfAnEarlierOne() {
        // a promoted standby's first grant outranks the old primary's last, however far its sequence was behind
        assertTrue(Tokens.token(2, 1) > Tokens.token(1, Tokens.SEQUENCE_LIMIT - 1));
        assertTrue(Tokens.token(1, 2) > Tokens.token(1, 1), "within a timeline, the sequence orders them");
    }

    @Test
    void theNextTokenIsNullBeyondEitherLimitRatherThanWrapped() {
        String sql = Tokens.nextTokenSql(LeaseTableName.parse("fenced_lease"));
        assertTrue(sql.contains("s.v OPERATOR(pg_catalog.<) " + Tokens.SEQUENCE_LIMIT), sql);
        assertTrue(sql.contains("e.tli OPERATOR(pg_catalog.<) " + Tokens.TIMELINE_LIMIT), sql);
        assertTrue(sql.contains("pg_catalog.nextval('\"fenced_lease_token_seq\"')"), sql);
        assertTrue(sql.contains("END FROM"), "no ELSE branch: NULL past the limits");
    }

    @Test
    void aTokenNotAboveThePreviousFailsNamingTheMarker() {
        String sql = Tokens.aboveSql("n()", "p()");
        assertTrue(sql.contains("n.v OPERATOR(pg_catalog.>) COALESCE(p(), 0)"), sql);
        assertTrue(sql.contains("CAST('" + Tokens.BEHIND_MARKER + "' OPERATOR(pg_catalog.||) p() AS bigint)"), sql);
    }
}
