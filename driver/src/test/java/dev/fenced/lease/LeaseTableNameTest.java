package dev.fenced.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.FencedProperty;
import org.junit.jupiter.api.Test;

class LeaseTableNameTest {

    @Test
    void unquotedPartsFoldAndEverythingIsRenderedQuoted() {
        LeaseTableName t = LeaseTableName.parse("Locks.Job_Lease");
        assertEquals("\"locks\".\"job_lease\"", t.table());
        assertEquals("\"locks\".\"job_lease_token_seq\"", t.sequence());
        assertEquals("'\"locks\".\"job_lease_token_seq\"'", t.sequenceLiteral());
    }

    @Test
    void quotedPartsAreExact() {
        LeaseTableName t = LeaseTableName.parse("\"My \"\"Odd\"\" Schema\".\"it's\"");
        assertEquals("\"My \"\"Odd\"\" Schema\".\"it's\"", t.table());
        assertEquals("'\"My \"\"Odd\"\" Schema\".\"it''s_token_seq\"'", t.sequenceLiteral());
    }

    @Test
    void theDefaultIsTheConfigurationDefault() {
        assertEquals("\"fenced_lease\"", LeaseTableName.parse(FencedProperty.LEASE_TABLE.defaultValue()).table());
    }

    @Test
    void badNamesAreRefusedWithAReason() {
        for (String bad : new String[] {"", " ", "a;drop table x", "a.b.c", "\"open", "\"\"", "1abc", "a.", ".a",
                "a b", "x".repeat(54)}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> LeaseTableName.parse(bad),
                    "accepted: " + bad);
            assertTrue(e.getMessage().startsWith("fenced: "), e.getMessage());
        }
        LeaseTableName.parse("x".repeat(53)); // 53 + "_token_seq" = 63 bytes, the longest PostgreSQL keeps
    }

    @Test
    void theShippedScriptIsUsedAsIsOrWithTheNamesReplaced() {
        String shipped = LeaseSchema.script();
        assertTrue(shipped.contains("CREATE TABLE IF NOT EXISTS fenced_lease ("), shipped);
        assertTrue(shipped.contains("CREATE SEQUENCE IF NOT EXISTS fenced_lease_token_seq"), shipped);
        assertFalse(shipped.contains("OWNED BY"), "the sequence must outlive the table");

        String custom = LeaseSchema.script(LeaseTableName.parse("locks.job_lease"));
        assertTrue(custom.contains("CREATE TABLE IF NOT EXISTS \"locks\".\"job_lease\" ("), custom);
        assertTrue(custom.contains("CREATE SEQUENCE IF NOT EXISTS \"locks\".\"job_lease_token_seq\""), custom);
        assertFalse(custom.replaceAll("--.*", "").contains("fenced_lease"), custom);
    }
}
