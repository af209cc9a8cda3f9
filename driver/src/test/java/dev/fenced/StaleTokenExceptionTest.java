package dev.fenced;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The stale refusal says what the database knows (which token wrote the row) and no more: the refused writer may
 * still hold a valid lease of another name that writes the same rows, so the message must not claim it lost one.
 */
class StaleTokenExceptionTest {

    @Test
    void namesTheTokenThatWroteTheRowAndClaimsNoLostLease() {
        String m = new StaleTokenException("totals", 100, 101, null).getMessage();
        assertTrue(m.contains("table totals"), m);
        assertTrue(m.contains("token 101 wrote the row"), m);
        assertTrue(m.contains("this write's token 100 is older"), m);
        assertTrue(m.contains("one lease name (or one token domain) per set of rows"), m);
        assertFalse(m.contains("was lost"), m);
    }
}
