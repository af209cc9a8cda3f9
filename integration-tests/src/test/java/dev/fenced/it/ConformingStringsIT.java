package dev.fenced.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.Fencing;
import dev.fenced.FencingScope;
import dev.fenced.UnsupportedStatementException;
import dev.fenced.it.support.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * standard_conforming_strings must be on wherever fenced fences: with it off, PostgreSQL reads a backslash in
 * '...' as an escape and the text fenced checked is not the text the server lexes.
 */
@Tag("server-sensitive")
class ConformingStringsIT {

    static TestDatabase db;

    @BeforeAll
    static void start() {
        db = TestDatabase.create();
        db.execute(
                "CREATE TABLE cs (id int PRIMARY KEY, v text, last_token bigint)",
                "CREATE FUNCTION cs_off() RETURNS text LANGUAGE sql AS"
                        + " $$ SELECT set_config('standard_conforming_strings', 'off', false) $$");
    }

    @BeforeEach
    void rows() {
        db.execute("TRUNCATE cs", "INSERT INTO cs VALUES (1, 'one', 50)");
    }

    static String valueOfRowOne() throws SQLException {
        try (Connection c = db.rawConnection();
                Statement s = c.createStatement();
                var rs = s.executeQuery("SELECT v FROM cs WHERE id = 1")) {
            assertTrue(rs.next());
            return rs.getString(1);
        }
    }

    static Connection connect(String url) throws SQLException {
        return DriverManager.getConnection(url);
    }

    @Test
    void aConnectionWithTheSettingOffIsRefused() {
        String url = db.fencedUrl("fenced.tables=cs", "options=-c%20standard_conforming_strings%3Doff");
        SQLException e = assertThrows(SQLException.class, () -> connect(url).close());
        assertTrue(e.getMessage().contains("standard_conforming_strings"), e::getMessage);
    }

    @Test
    void statementsTurningItOffAreRefused() throws SQLException {
        try (Connection c = connect(db.fencedUrl("fenced.tables=cs"));
                Statement s = c.createStatement()) {
            for (String sql : new String[] {
                "SET standard_conforming_strings = off",
                "SET SESSION standard_conforming_strings TO 'off'",
                "SET LOCAL standard_conforming_strings = false",
                "SELECT set_config('standard_conforming_strings', 'off', false)",
                "SELECT set_config(E'standard\\137conforming_strings', 'off', false)",
                "DO $$ BEGIN PERFORM set_config('standard_conforming_strings', 'off', false); END $$",
            }) {
                assertThrows(UnsupportedStatementException.class, () -> s.execute(sql), sql);
            }
            s.execute("SET standard_conforming_strings = on");
            s.execute("RESET standard_conforming_strings");
            try (var rs = s.executeQuery("SHOW standard_conforming_strings")) {
                assertTrue(rs.next());
                assertEquals("on", rs.getString(1));
            }
        }
    }

    @Test
    void aProtectedWriteOnAConnectionWhereItWentOffIsRefused() throws SQLException {
        try (Connection c = connect(db.fencedUrl("fenced.tables=cs"));
                Statement s = c.createStatement();
                FencingScope ignored = Fencing.bind(40)) {
            var ps = c.prepareStatement("UPDATE cs SET v = 'x' WHERE id = 1"); // planned while the setting is on
            s.execute("SELECT cs_off()"); // invisible to fenced; pgjdbc hears the server's ParameterStatus
            assertThrows(UnsupportedStatementException.class, ps::executeUpdate);
            assertThrows(UnsupportedStatementException.class, () -> c.prepareStatement("UPDATE cs SET v = 'y'"));
            assertThrows(
                    UnsupportedStatementException.class, () -> s.executeUpdate("UPDATE cs SET v = 'x' WHERE id = 1"));
        }
        assertEquals("one", valueOfRowOne());
    }

    @Test
    void aTextThatLexesDifferentlyWithTheSettingOffIsRefused() throws SQLException {
        // Pipelined behind cs_off() in one batch, the server would lex it with the setting off: the first quote
        // pair is then '\' WHERE id = 1 OR v = ' and the guard would sit in a string.
        try (Connection c = connect(db.fencedUrl("fenced.tables=cs"));
                Statement s = c.createStatement();
                FencingScope ignored = Fencing.bind(40)) {
            s.addBatch("SELECT cs_off()");
            assertThrows(
                    UnsupportedStatementException.class,
                    () -> s.addBatch("UPDATE cs SET v = '\\' WHERE id = 1 OR v = ' -- '"));
        }
        assertEquals("one", valueOfRowOne());
    }
}
