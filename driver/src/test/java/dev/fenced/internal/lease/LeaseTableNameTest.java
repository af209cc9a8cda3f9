package dev.fenced.internal.lease;

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
        assertEquals(
                "\"fenced_lease\"",
                LeaseTableName.parse(FencedProperty.LEASE_TABLE.defaultValue()).table());
    }

    @Test
    void badNamesAreRefusedWithAReason() {
        for (String bad : new String[] {
            "", " ", "a;drop table x", "a.b.c", "\"open", "\"\"", "1abc", "a.", ".a", "a b", "x".repeat(54)
        }) {
            IllegalArgumentException e =
                    assertThrows(IllegalArgumentException.class, () -> LeaseTableName.parse(bad), "accepted: " + bad);
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
        assertTrue(
                shipped.contains("CREATE INDEX IF NOT EXISTS fenced_lease_token_idx ON fenced_lease (token);"),
                shipped);

        String custom = LeaseSchema.script(LeaseTableName.parse("locks.job_lease"));
        assertTrue(custom.contains("CREATE TABLE IF NOT EXISTS \"locks\".\"job_lease\" ("), custom);
        assertTrue(custom.contains("CREATE SEQUENCE IF NOT EXISTS \"locks\".\"job_lease_token_seq\""), custom);
        // the index is named without its schema: CREATE INDEX puts it in its table's
        assertTrue(
                custom.contains(
                        "CREATE INDEX IF NOT EXISTS \"job_lease_token_idx\" ON \"locks\".\"job_lease\" (token)"),
                custom);
        assertEquals(
                "CREATE INDEX IF NOT EXISTS \"job_lease_token_idx\" ON \"locks\".\"job_lease\" (token)",
                LeaseSchema.tokenIndexStatement(LeaseTableName.parse("locks.job_lease")));
        assertFalse(custom.replaceAll("--.*", "").contains("fenced_lease"), custom);
    }

    /**
     * Issue 17: a quoted name with a newline ended the script's {@code --} comment it was substituted into, and
     * the rest of the name ran as SQL. Control and line-breaking characters are refused in every part; and the
     * names are substituted into the script's SQL only, never into its comments.
     */
    @Test
    void aQuotedNameCannotCarryALineBreakOrControlCharacter() {
        java.util.Random random = new java.util.Random(17);
        String[] breaks = {"\n", "\r", "\u2028", "\u2029", "\u0000", "\u001b", "\u0085", "\u200b", "\t"};
        for (String br : breaks) {
            for (int i = 0; i < 20; i++) {
                String before = "x".repeat(random.nextInt(5) + 1);
                String name = "\"" + before + br + "; DROP TABLE victim; --\"";
                IllegalArgumentException e = assertThrows(
                        IllegalArgumentException.class, () -> LeaseTableName.parse(name), () -> "accepted: " + name);
                assertTrue(e.getMessage().contains("control or line-breaking character"), e.getMessage());
            }
        }
    }

    @Test
    void namesReachOnlyTheScriptsSqlNotItsComments() {
        LeaseTableName t = LeaseTableName.parse("\"we -- ird\"");
        String custom = LeaseSchema.script(t);
        for (String line : custom.split("\n")) {
            assertFalse(line.strip().startsWith("--"), "comments are dropped from the substituted script: " + line);
        }
        assertTrue(custom.contains("CREATE TABLE IF NOT EXISTS \"we -- ird\" ("), custom);
    }
}
