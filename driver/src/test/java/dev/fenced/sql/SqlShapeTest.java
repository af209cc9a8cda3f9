package dev.fenced.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** Statement shapes: constants replaced, comments dropped, whitespace folded, everything else as written. */
class SqlShapeTest {

    @Test
    void constantsBecomePlaceholdersAndWhitespaceFolds() {
        assertEquals("UPDATE totals SET amount = ? WHERE id = ?",
                SqlShape.of("UPDATE  totals\n\tSET amount = 42 WHERE id = 'x'"));
        assertEquals(SqlShape.of("UPDATE totals SET amount = 7 WHERE id = 'y'"),
                SqlShape.of("UPDATE totals SET amount = 42 WHERE id = 'x'"));
        assertEquals("UPDATE totals SET amount=? WHERE id=?", SqlShape.of("UPDATE totals SET amount=1.5e3 WHERE id=?"));
    }

    @Test
    void commentsAndEveryKindOfStringGo() {
        assertEquals("INSERT INTO t (a, b, c) VALUES (?, ?, ?)",
                SqlShape.of("INSERT INTO t (a, b, c) /* note */ VALUES (E'it''s\\n', $q$x$q$, -- trailing\n 0x1F)"));
    }

    @Test
    void namesAndParametersStay() {
        assertEquals("DELETE FROM \"Sales\".totals WHERE id = $1 AND x = ?",
                SqlShape.of("DELETE FROM \"Sales\".totals WHERE id = $1 AND x = ?"));
        assertEquals("", SqlShape.of(null));
    }
}
