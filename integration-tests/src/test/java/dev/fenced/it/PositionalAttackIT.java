package dev.fenced.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariDataSource;
import dev.fenced.Fencing;
import dev.fenced.FencingScope;
import dev.fenced.UnsupportedStatementException;
import dev.fenced.it.support.Pools;
import dev.fenced.it.support.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Attacks on INSERT without a column list: fenced must map positional values exactly as PostgreSQL does, or
 * refuse; never put a value in another column than the raw statement would, nor in the fence column.
 */
@Tag("server-sensitive")
class PositionalAttackIT {

    static TestDatabase db;
    static HikariDataSource pool;

    @BeforeAll
    static void start() {
        db = TestDatabase.create();
        db.execute(
                "CREATE TABLE shifty (id int PRIMARY KEY, a int, b int, last_token bigint)",
                "CREATE TABLE gen (id int PRIMARY KEY, v int, d int GENERATED ALWAYS AS (v * 2) STORED, last_token bigint)",
                "CREATE TABLE ident (id int GENERATED ALWAYS AS IDENTITY PRIMARY KEY, v int, last_token bigint)",
                "CREATE TABLE early (id int PRIMARY KEY, last_token bigint, v int)",
                "CREATE TABLE holes (id int PRIMARY KEY, x int, v int, last_token bigint)",
                "ALTER TABLE holes DROP COLUMN x");
        pool = Pools.fenced(db, 2, "fenced.tables=shifty,gen,ident,early,holes");
    }

    @AfterAll
    static void stop() {
        pool.close();
    }

    static int run(long token, String sql) throws SQLException {
        try (FencingScope ignored = Fencing.bind(token);
                Connection c = pool.getConnection();
                Statement s = c.createStatement()) {
            return s.executeUpdate(sql);
        }
    }

    static List<String> rows(String table, String columns) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Connection c = db.rawConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT " + columns + " FROM " + table + " ORDER BY 1")) {
            while (rs.next()) {
                StringBuilder b = new StringBuilder();
                for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
                    b.append(rs.getString(i)).append('|');
                }
                out.add(b.toString());
            }
        }
        return out;
    }

    @Test
    void columnsReorderedByAnotherProcessAfterTheCatalogReadAreNotMappedByTheOldOrder() throws SQLException {
        assertEquals(1, run(5, "INSERT INTO shifty VALUES (1, 10, 20)"));
        assertEquals(List.of("1|10|20|5|"), rows("shifty", "id, a, b, last_token"));
        // another process (not through fenced) moves column a to the end: PostgreSQL now maps (id, b, last_token)
        db.execute("ALTER TABLE shifty DROP COLUMN a", "ALTER TABLE shifty ADD COLUMN a int");
        SQLException e = assertThrows(SQLException.class, () -> run(5, "INSERT INTO shifty VALUES (2, 30)"));
        assertTrue(e.getMessage().contains("the columns of shifty changed"), e.getMessage());
        // but never a=30 where PostgreSQL would have put 30 into b
        assertEquals(0, db.queryLong("SELECT count(*) FROM shifty WHERE id = 2 AND a IS NOT NULL"));
        e = assertThrows(
                SQLException.class,
                () -> run(
                        5,
                        "MERGE INTO shifty t USING (VALUES (3, 30)) s(id, v) ON t.id = s.id"
                                + " WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.v)"));
        assertTrue(e.getMessage().contains("the columns of shifty changed"), e.getMessage());
        assertEquals(0, db.queryLong("SELECT count(*) FROM shifty WHERE id = 3 AND a IS NOT NULL"));
    }

    @Test
    void generatedIdentityDroppedAndEarlyFenceColumns() throws SQLException {
        assertEquals(1, run(5, "INSERT INTO gen VALUES (1, 2)"));
        assertEquals(1, run(5, "INSERT INTO gen VALUES (2, 3, DEFAULT)"));
        assertThrows(SQLException.class, () -> run(5, "INSERT INTO gen VALUES (3, 3, 99)"));
        assertEquals(List.of("1|2|4|5|", "2|3|6|5|"), rows("gen", "id, v, d, last_token"));

        assertEquals(1, run(5, "INSERT INTO ident VALUES (DEFAULT, 7)"));
        assertThrows(SQLException.class, () -> run(5, "INSERT INTO ident VALUES (50, 7)"));
        assertEquals(1, run(5, "INSERT INTO ident OVERRIDING SYSTEM VALUE VALUES (60, 8)"));
        assertEquals(List.of("1|7|5|", "60|8|5|"), rows("ident", "id, v, last_token"));

        assertThrows(UnsupportedStatementException.class, () -> run(5, "INSERT INTO early VALUES (1, 2)"));
        assertEquals(1, run(5, "INSERT INTO early VALUES (1)"));
        assertEquals(List.of("1|5|null|"), rows("early", "id, last_token, v"));

        assertEquals(1, run(5, "INSERT INTO holes VALUES (1, 2)"));
        assertEquals(2, run(5, "INSERT INTO holes SELECT g, g * 10 FROM generate_series(2, 3) g"));
        assertEquals(1, run(5, "INSERT INTO holes SELECT 4, 40 UNION SELECT 4, 40"));
        assertThrows(UnsupportedStatementException.class, () -> run(5, "INSERT INTO holes SELECT 5, 50, 999"));
        assertThrows(
                UnsupportedStatementException.class, () -> run(5, "INSERT INTO holes VALUES (6, 60), (7, 70, 999)"));
        assertEquals(List.of("1|2|5|", "2|20|5|", "3|30|5|", "4|40|5|"), rows("holes", "id, v, last_token"));
    }
}
