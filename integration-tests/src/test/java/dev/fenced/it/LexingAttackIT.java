package dev.fenced.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.Fencing;
import dev.fenced.FencingScope;
import dev.fenced.StaleTokenException;
import dev.fenced.UnsupportedStatementException;
import dev.fenced.it.support.Outcome;
import dev.fenced.it.support.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Texts that PostgreSQL lexes differently from a naive reader, on a real PostgreSQL (issue 16): with a stale token
 * no row may change (refused with FN003, or fenced and refused as stale with FN001); with no token a write is
 * refused; with a current token fenced does what raw pgjdbc does. One nested class per review round.
 */
@Tag("server-sensitive")
class LexingAttackIT {

    /**
     * Issue 16's attacks on a real PostgreSQL: texts JSqlParser lexes differently from PostgreSQL, so that the guard
     * would land inside what PostgreSQL reads as a string or a comment. With a stale token no row may change: the
     * statement is refused (FN003), or fenced and refused as stale (FN001).
     */
    @Nested
    @DisplayName("issue 16, first review: texts JSqlParser lexes differently from PostgreSQL (was LexicalAttackTest)")
    class JSqlParserDisagreements {

        static TestDatabase db;
        static final long NEWER = 50;
        static final long STALE = 40;

        @BeforeAll
        static void start() {
            db = TestDatabase.create();
            db.execute(
                    "CREATE TABLE lx (id int PRIMARY KEY, v text, n bigint, last_token bigint)",
                    "CREATE TABLE ord (id int PRIMARY KEY, v text, \"order\" bigint)",
                    "CREATE SCHEMA \"Sales\"",
                    "CREATE TABLE \"Sales\".\"Totals\" (id int PRIMARY KEY, v text, last_token bigint)");
        }

        @BeforeEach
        void rows() {
            db.execute(
                    "TRUNCATE lx, ord, \"Sales\".\"Totals\"",
                    "INSERT INTO lx VALUES (1, 'one', 1, " + NEWER + "), (2, 'two', 2, " + NEWER + ")",
                    "INSERT INTO ord VALUES (1, 'one', " + NEWER + ")",
                    "INSERT INTO \"Sales\".\"Totals\" VALUES (1, 'one', " + NEWER + ")");
        }

        static Connection connect(String... params) throws SQLException {
            Properties p = new Properties();
            p.setProperty("fenced.tables", "lx,ord,\"Sales\".\"Totals\"");
            p.setProperty("fenced.table.ord.column", "order");
            for (int i = 0; i < params.length; i += 2) {
                p.setProperty(params[i], params[i + 1]);
            }
            return DriverManager.getConnection(db.fencedUrl(), p);
        }

        static String snapshot() {
            StringBuilder b = new StringBuilder();
            try (Connection c = db.rawConnection();
                    Statement s = c.createStatement();
                    var rs = s.executeQuery("SELECT id, v, n, last_token FROM lx ORDER BY id")) {
                while (rs.next()) {
                    b.append(rs.getInt(1))
                            .append('|')
                            .append(rs.getString(2))
                            .append('|')
                            .append(rs.getLong(3))
                            .append('|')
                            .append(rs.getLong(4))
                            .append(';');
                }
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
            return b.toString();
        }

        /** Runs {@code sql} (a Statement, or a PreparedStatement without parameters) under a stale token. */
        static void staleChangesNothing(String sql, boolean prepared) throws SQLException {
            String before = snapshot();
            try (Connection c = connect();
                    FencingScope ignored = Fencing.bind(STALE)) {
                SQLException e = assertThrows(
                        SQLException.class,
                        () -> {
                            if (prepared) {
                                try (PreparedStatement ps = c.prepareStatement(sql)) {
                                    ps.executeUpdate();
                                }
                            } else {
                                try (Statement s = c.createStatement()) {
                                    s.executeUpdate(sql);
                                }
                            }
                        },
                        sql);
                assertTrue(
                        e instanceof UnsupportedStatementException || e instanceof StaleTokenException,
                        () -> sql + " -> " + e);
            }
            assertEquals(before, snapshot(), sql);
        }

        @Test
        void aTaggedDollarQuoteDoesNotSwallowTheGuard() throws SQLException {
            staleChangesNothing("UPDATE lx SET v = $a$x WHERE y$a$", false);
            staleChangesNothing("UPDATE lx SET v = $a$x WHERE y$a$", true);
            staleChangesNothing(
                    "INSERT INTO lx (id, v) VALUES (1, 'q') ON CONFLICT (id) DO UPDATE SET v = $a$x WHERE y$a$", false);
        }

        @Test
        void anEscapeStringDoesNotHideTheGuardInAComment() throws SQLException {
            staleChangesNothing("UPDATE lx SET v = E'\\' || '--' WHERE v = '\nWHERE id = 1 --'", false);
            staleChangesNothing("UPDATE lx SET v = E'\\' || '--' WHERE v = '\nWHERE id = 1 --'", true);
        }

        @Test
        void nestedCommentsMeanWhatPostgresMeans() throws SQLException {
            String sql = "UPDATE lx SET n = 100 - /* /* */ ( --*/\n10 - 1 /* /* */ ) --*/\nWHERE id = 1";
            staleChangesNothing(sql, false);
            try (Connection c = connect();
                    FencingScope ignored = Fencing.bind(NEWER + 1);
                    Statement s = c.createStatement()) {
                try {
                    assertEquals(1, s.executeUpdate(sql));
                    assertEquals(89, db.queryLong("SELECT n FROM lx WHERE id = 1"), "PostgreSQL reads 100 - 10 - 1");
                } catch (UnsupportedStatementException refused) {
                    assertEquals(1, db.queryLong("SELECT n FROM lx WHERE id = 1"));
                }
            }
        }

        @Test
        void dataShapedLikeTheMarkerIsNotAStaleToken() throws SQLException {
            db.execute("UPDATE lx SET v = 'fenced-stale:99:lx' WHERE id = 1");
            try (Connection c = connect();
                    FencingScope ignored = Fencing.bind(NEWER + 1);
                    PreparedStatement ps = c.prepareStatement("UPDATE lx SET n = CAST(v AS bigint) WHERE id = 1")) {
                SQLException e = assertThrows(SQLException.class, ps::executeUpdate);
                assertFalse(e instanceof StaleTokenException, e::toString);
                assertEquals("22P02", e.getSQLState());
            }
            // the same through the function the UPDATE guard fails in: 22023, still no nonce, still not stale
            try (Connection c = connect();
                    FencingScope ignored = Fencing.bind(NEWER + 1);
                    PreparedStatement ps =
                            c.prepareStatement("UPDATE lx SET n = pg_catalog.pg_size_bytes(v) WHERE id = 1")) {
                SQLException e = assertThrows(SQLException.class, ps::executeUpdate);
                assertFalse(e instanceof StaleTokenException, e::toString);
                assertEquals("22023", e.getSQLState());
            }
        }

        @Test
        void aQuotedTableIsNamedInTheStaleError() throws SQLException {
            try (Connection c = connect();
                    FencingScope ignored = Fencing.bind(STALE);
                    PreparedStatement ps = c.prepareStatement("UPDATE \"Sales\".\"Totals\" SET v = 'x' WHERE id = 1")) {
                StaleTokenException e = assertThrows(StaleTokenException.class, ps::executeUpdate);
                assertEquals("\"Sales\".\"Totals\"", e.table());
                assertEquals(NEWER, e.rowToken());
            }
        }

        @Test
        void aReservedWordAsFenceColumnIsQuoted() throws SQLException {
            try (Connection c = connect();
                    Statement s = c.createStatement()) {
                try (FencingScope ignored = Fencing.bind(NEWER + 1)) {
                    assertEquals(1, s.executeUpdate("UPDATE ord SET v = 'new' WHERE id = 1"));
                    assertEquals(1, s.executeUpdate("INSERT INTO ord (id, v) VALUES (2, 'two')"));
                }
                try (FencingScope ignored = Fencing.bind(STALE)) {
                    assertThrows(
                            StaleTokenException.class, () -> s.executeUpdate("UPDATE ord SET v = 'old' WHERE id = 1"));
                    assertThrows(StaleTokenException.class, () -> s.executeUpdate("DELETE FROM ord WHERE id = 2"));
                }
            }
            assertEquals(NEWER + 1, db.queryLong("SELECT \"order\" FROM ord WHERE id = 1"));
            assertEquals(NEWER + 1, db.queryLong("SELECT \"order\" FROM ord WHERE id = 2"));
        }
    }

    /**
     * An outsider's attacks on fenced's PostgreSQL-exact reading (issue 16, second round), on a real PostgreSQL: for
     * each text, a stale token changes no row, a write with no token is refused, and with a current token fenced
     * does what raw pgjdbc does.
     */
    @Nested
    @DisplayName(
            "issue 16, second review: an outsider's attacks on the PostgreSQL-exact reading (was LexingAttackTest)")
    class OutsiderReview {

        static TestDatabase db;
        static final long ROW = 50;
        static final long CURRENT = 60;
        static final long STALE = 40;
        static final String LONG = "t234567890123456789012345678901234567890123456789012345678901_3"; // 63 characters
        static final String MULTIBYTE = "\u00e9".repeat(31) + "x"; // 63 bytes in UTF-8

        @BeforeAll
        static void start() {
            db = TestDatabase.create();
            db.execute(
                    "CREATE TABLE IF NOT EXISTS t (id int PRIMARY KEY, v text, n bigint, last_token bigint)",
                    "CREATE TABLE IF NOT EXISTS " + LONG + " (id int PRIMARY KEY, v text, n bigint, last_token bigint)",
                    "CREATE TABLE IF NOT EXISTS " + MULTIBYTE
                            + " (id int PRIMARY KEY, v text, n bigint, last_token bigint)");
        }

        static void reset() {
            db.clearTombstones(); // a fenced DELETE of an earlier case left tombstones; the rows come back as fixtures
            db.execute(
                    "TRUNCATE t, " + LONG + ", " + MULTIBYTE,
                    "INSERT INTO " + MULTIBYTE + " VALUES (1, 'one', 1, " + ROW + ")",
                    "INSERT INTO t VALUES (1, 'one', 1, " + ROW + "), (2, 'two', 2, " + ROW + ")",
                    "INSERT INTO " + LONG + " VALUES (1, 'one', 1, " + ROW + ")");
        }

        static Connection fenced() throws SQLException {
            Properties p = new Properties();
            p.setProperty("fenced.tables", "t," + LONG + "," + MULTIBYTE);
            return DriverManager.getConnection(db.fencedUrl(), p);
        }

        static String snapshot() {
            StringBuilder b = new StringBuilder();
            try (Connection c = db.rawConnection();
                    Statement s = c.createStatement()) {
                for (String table : new String[] {"t", LONG, MULTIBYTE}) {
                    try (var rs = s.executeQuery("SELECT id, v, n, last_token FROM " + table + " ORDER BY id")) {
                        while (rs.next()) {
                            b.append(rs.getInt(1))
                                    .append('|')
                                    .append(rs.getString(2))
                                    .append('|')
                                    .append(rs.getLong(3))
                                    .append('|')
                                    .append(rs.getLong(4))
                                    .append(';');
                        }
                    }
                }
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
            return b.toString();
        }

        /** What is wrong with fenced's handling of {@code sql}, or null. */
        static String attack(String sql, boolean prepared) throws SQLException {
            List<String> wrong = new ArrayList<>();
            reset();
            String before = snapshot();
            try (Connection c = fenced();
                    FencingScope ignored = Fencing.bind(STALE)) {
                String e = Outcome.of(c, sql, prepared);
                if (!before.equals(snapshot())) {
                    wrong.add("stale token changed rows (" + e + ")");
                }
            }
            reset();
            try (Connection c = fenced()) {
                String e = Outcome.of(c, sql, prepared);
                if (!before.equals(snapshot())) {
                    wrong.add("no token changed rows (" + e + ")");
                }
            }
            reset();
            String rawError;
            try (Connection c = db.rawConnection()) {
                rawError = Outcome.of(c, sql, prepared);
            }
            String rawAfter = snapshot().replace("|" + ROW + ";", "|X;");
            reset();
            try (Connection c = fenced();
                    FencingScope ignored = Fencing.bind(CURRENT)) {
                String e = Outcome.of(c, sql, prepared);
                String after = snapshot().replace("|" + ROW + ";", "|X;").replace("|" + CURRENT + ";", "|X;");
                boolean refused = e != null && e.startsWith("UnsupportedStatement");
                System.out.println((refused ? "refused   " : e != null ? "error     " : "fenced    ")
                        + (prepared ? "PS " : "ST ")
                        + sql.replace("\n", "\\n").replace("\r", "\\r").substring(0, Math.min(sql.length(), 120))
                        + (refused ? "  -- " + e : ""));
                if (!refused && ((rawError == null) != (e == null) || !after.equals(rawAfter))) {
                    wrong.add("current token differs from raw: raw " + rawError + " " + rawAfter + " / fenced " + e
                            + " " + after);
                }
            }
            return wrong.isEmpty() ? null : String.join("; ", wrong);
        }

        static final String[] ATTACKS = {
            "UPDATE U&\"\\0074\" SET v = 'x'",
            "UPDATE t SET v = 'x' WHERE id = 1 --",
            "UPDATE t SET v = 'x' --c\rWHERE id = 1",
            "UPDATE t SET n = 2 *-- x\n 3 WHERE id = 1",
            "UPDATE t SET n = 2 */* x */ 3 WHERE id = 1",
            "UPDATE t SET n = n+-1 WHERE id = 1",
            "UPDATE t SET n = 5 /*/ x */ - 1 WHERE id = 1",
            "UPDATE t SET n = 5 /* /*/ x */ */ - 1 WHERE id = 1",
            "UPDATE t SET v = 'a' -- c\n'b' WHERE id = 1",
            "UPDATE t SET v = 'a'\n'b' WHERE id = 1",
            "UPDATE t SET v = 'a' /* c */\n'b' WHERE id = 1",
            "UPDATE t SET v = e'\\x27' WHERE id = 1",
            "UPDATE t SET v = E'\\\\' WHERE id = 1",
            "UPDATE t SET v = E'\\'' WHERE id = 1",
            "UPDATE t SET v = U&'d!0061t' UESCAPE '!' WHERE id = 1",
            "UPDATE t SET v = U&'d\\0061t' WHERE id = 1",
            "UPDATE t SET v = B'101'::text WHERE id = 1",
            "UPDATE t SET v = X'ff'::text WHERE id = 1",
            "UPDATE t SET v = N'x' WHERE id = 1",
            "UPDATE t SET n = 1.e1 WHERE id = 1",
            "UPDATE t SET n = 0x1F WHERE id = 1",
            "UPDATE t SET n = 1_000 WHERE id = 1",
            "UPDATE t SET v = $_$x$_$ WHERE id = 1",
            "UPDATE t SET v = $é$x$é$ WHERE id = 1",
            "UPDATE t SET v = ''||$a$ -- $a$ WHERE id = 1",
            "UPDATE t SET v = $a$;$a$ WHERE id = 1",
            "SELECT $$;$$; UPDATE t SET v = 'x' WHERE id = 1",
            "SELECT 1 /* ; /* ; */ ; */; UPDATE t SET v = 'x' WHERE id = 1",
            "DELETE FROM t WHERE id = 1 OR id = 2",
            "DELETE FROM t WHERE id = 1 OR true RETURNING id",
            "DELETE FROM t WHERE id = 1 \u0000 OR true",
            "UPDATE t SET v = 'x' WHERE id = 1\u000B",
            "UPDATE t SET v = 'x' WHERE\u00A0id = 1",
            "UPDATE t SET v = {fn ucase('x')} WHERE id = 1",
            "DELETE FROM t WHERE v LIKE 'o!%' {escape '!'}",
            "UPDATE t SET v = 'x' WHERE '{\"a\":1}'::jsonb ? 'a' AND id = 1",
            "UPDATE public.t SET v = 'x' WHERE id = 1",
            "UPDATE \"public\".\"t\" SET v = 'x' WHERE id = 1",
            "UPDATE PUBLIC.T SET v = 'x' WHERE id = 1",
            "UPDATE t AS a$b$c SET v = 'x' WHERE id = 1",
            "UPDATE t SET v = 'x' WHERE id = 1; UPDATE t SET v = 'y' WHERE id = 2",
            "WITH u AS (UPDATE t SET v = 'x' RETURNING 1) SELECT count(*) FROM u",
            "EXPLAIN ANALYZE UPDATE t SET v = 'x'",
            "COPY (UPDATE t SET v = 'x' RETURNING 1) TO STDOUT",
            "INSERT INTO t (id, v) VALUES (1, 'x') ON CONFLICT (id) DO UPDATE SET v = 'y'",
            "INSERT INTO t (id, v) SELECT 1, 'z' ON CONFLICT (id) DO UPDATE SET v = excluded.v",
            "UPDATE t SET v = 'x' WHERE id = 1 RETURNING $$;$$",
            "UPDATE t SET n = n::text::bigint WHERE id = 1",
            "UPDATE t SET n = 3 WHERE id = $1",
            "UPDATE t SET n = 3 WHERE id = 1$a$",
            "UPDATE t SET v = x.v FROM (SELECT 'q' AS v) x WHERE t.id = 1",
            "UPDATE t SET v = 'x' WHERE id IN (SELECT id FROM t FOR UPDATE)",
            "UPDATE t SET v = 'x' WHERE '{\"a\":1}'::jsonb \uD800 'a' AND id = 1",
            "UPDATE t SET v = 'x\uD800' WHERE id = 1",
            "\uFEFFUPDATE t SET v = 'x' WHERE id = 1",
            "UPDATE t SET v = 'x' WHERE id = 1 AND \uD800-- c\n true",
            "UPDATE t SET v = 'x' WHERE id = 1\u2028",
            "UPDATE t SET v = 'x' WHERE id = 1 AND \u212A IS NULL",
            "UPDATE t AS " + "a".repeat(70) + " SET v = 'x' WHERE " + "a".repeat(64) + ".id = 1",
            "DELETE FROM t AS " + "a".repeat(70) + " WHERE " + "a".repeat(64) + ".id = 1",
            "UPDATE t SET v = 'x' WHERE '{\"a\":1}'::jsonb ?| array['a'] AND id = 1",
            "UPDATE t SET v = 'x' WHERE '{\"a\":1}'::jsonb ?& array['a'] AND id = 1",
            "UPDATE t SET v = 'x' WHERE '{\"a\":1}'::jsonb @? '$.a' AND id = 1",
            "UPDATE t SET v = 'x' WHERE id = 1 AND NOT '{\"a\":1}'::jsonb ?'b'",
            "UPDATE t SET v = 'x' WHERE '{\"a\":1}'::jsonb ?? 'a' AND id = 1",
            "UPDATE t SET v = 'x' WHERE '{\"a\":1}'::jsonb ??| array['a'] AND id = 1",
            "UPDATE t SET v = ('{\"a\":1}'::jsonb ? 'a')::text WHERE id = 1",
            "UPDATE t SET v = 'x' WHERE point(1,1) ?- point(2,1) AND id = 1",
            "UPDATE t SET v = 'x' WHERE lseg '((0,0),(0,1))' ?| lseg '((0,0),(1,0))' AND id = 1",
            "DELETE FROM t WHERE '{\"a\":1}'::jsonb ?| array['a'] AND id = 1",
            "DELETE FROM t WHERE '{\"a\":1}'::jsonb ?'a'",
            "UPDATE t SET n = n WHERE id = 1 AND v ~ '^o' AND v !~ 'x' AND v ~* 'O'",
            "UPDATE t SET n = @ -3 WHERE id = 1",
            "UPDATE t SET n = |/ 16 WHERE id = 1",
            "UPDATE t SET n = 2 ^ 3 WHERE id = 1",
            "UPDATE t SET n = 7 % 3 WHERE id = 1",
            "UPDATE t SET n = n WHERE id = 1 AND B'101' & B'001' = B'001'",
            "UPDATE t SET v = 'x' WHERE id = 1 AND 'a' COLLATE \"C\" < 'b'",
            "UPDATE t SET v = 'x' WHERE id BETWEEN SYMMETRIC 2 AND 1",
            "UPDATE t SET n = - - n WHERE id = 1",
            "UPDATE t SET v = 'x' WHERE (id = 1) = true",
            "UPDATE t SET v = 'x' WHERE v IS NOT NULL IS TRUE AND id = 1",
            "UPDATE t SET v = 'x' WHERE id = 1 AND v::text IS DISTINCT FROM 'y'",
            "UPDATE t SET v = 'x' WHERE id = 1 AND n OPERATOR(pg_catalog.=) 1",
            "UPDATE t SET v = 'x' WHERE id = 1 AND ARRAY[1] <@ ARRAY[1, 2]",
            "UPDATE t SET v = 'x' WHERE id = 1 AND 1 = ANY ('{1}')",
            "UPDATE t SET v = 'x' WHERE id = 1 AND (n, id) > (0, 0)",
            "UPDATE t SET v = 'x' WHERE id = 1 AND v LIKE 'o%' ESCAPE '!'",
            "UPDATE t SET v = 'x' WHERE id = 1 AND v SIMILAR TO 'o%'",
            "UPDATE t SET v = 'x' WHERE id = 1 AND interval '1 day' > interval '1 hour'",
            "UPDATE t SET v = format('%s', $$x$$) WHERE id = 1",
            "UPDATE t SET v = 'x' WHERE id = 1 AND now() > '2000-01-01'::timestamptz AT TIME ZONE 'UTC'",
            "UPDATE t SET v = U&'\\0027' WHERE id = 1",
            "UPDATE t SET v = U&'x' UESCAPE '''' WHERE id = 1",
            "UPDATE t SET v = {fn concat('a', 'b')} WHERE id = 1",
            "UPDATE t SET v = '{fn ucase(1)}' WHERE id = 1",
            "UPDATE t SET v = $${fn ucase('x')}$$ WHERE id = 1",
            "UPDATE t SET v = 'x' -- {fn ucase('y')}\nWHERE id = 1",
            "UPDATE t SET v = {d '2020-01-01'}::text WHERE id = 1",
            "UPDATE t SET v = 'a\\' , n = n WHERE id = 1 -- '",
            "UPDATE t SET v = E'a\\' , n = n WHERE id = 1 -- '",
            "UPDATE t SET n = " + "(".repeat(300) + "1" + ")".repeat(300) + " WHERE id = 1",
            "UPDATE t SET n = 0" + " + 1".repeat(20000) + " WHERE id = 1",
            "UPDATE t SET n = ARRAY" + "[".repeat(40) + "1" + "]".repeat(40) + " WHERE id = 1",
            "UPDATE t SET n = n WHERE id = 1 /* unterminated",
            "UPDATE t SET v = 'unterminated",
            "UPDATE t SET v = $a$ unterminated",
            "UPDATE t SET v = 'x' WHERE id = 1 \\; UPDATE t SET v = 'y'",
            "UPDATE t SET v = 'x' WHERE id = 1;;; DELETE FROM t WHERE id = 2",
            "DELETE FROM t WHERE id = (SELECT 1) OR id = 2",
            "DELETE FROM t USING (VALUES (1)) x(k) WHERE t.id = x.k OR true",
            "DELETE FROM ONLY t WHERE id = 1",
            "UPDATE ONLY t SET v = 'x'",
            "UPDATE t * SET v = 'x'",
            "UPDATE \"t\" SET v = 'x'",
            "UPDATE T SET v = 'x'",
            "INSERT INTO t VALUES (3, 'x', 3, 999)",
            "INSERT INTO t (id, v, last_token) VALUES (3, 'x', 999)",
            "INSERT INTO t (id, v) VALUES (1, 'x') ON CONFLICT (id) DO UPDATE SET last_token = 999",
            "INSERT INTO t (id, v) VALUES (1, 'x') ON CONFLICT ON CONSTRAINT t_pkey DO UPDATE SET v = 'y' WHERE t.id = 1",
            "UPDATE t SET (v, n) = (SELECT 'x', 9) WHERE id = 1",
            "UPDATE t SET (v, n) = ROW('x', 9) WHERE id = 1",
            "UPDATE t SET v = 'x' WHERE id = 1 RETURNING last_token",
            "BEGIN; UPDATE t SET v = 'x' WHERE id = 1; COMMIT",
            "UPDATE t SET v = 'x' WHERE id = 1\f",
            "UPDATE t SET v = 'x'\rWHERE id = 1",
            "UPDATE t SET v = 'a'\r'b' WHERE id = 1",
            "UPDATE t SET v = 'a' --c\r'b' WHERE id = 1",
            "UPDATE t SET v = 'a'\t\n\f'b' WHERE id = 1",
            "UPDATE t SET v = 'a' -- x",
            "UPDATE t SET v = 'a'\n-- x\n'b' WHERE id = 1",
            "UPDATE t SET v = 'a'\n-- x",
        };

        @Test
        void aNameCutTo63BytesByPostgresIsTheProtectedTable() throws SQLException {
            for (String sql : new String[] {
                "UPDATE " + LONG + "xyz SET v = 'x' WHERE id = 1",
                "UPDATE \"" + LONG + "_tail\" SET v = 'x' WHERE id = 1",
                "DELETE FROM public." + LONG + "0",
                "INSERT INTO " + LONG + "1 (id, v) VALUES (1, 'x') ON CONFLICT (id) DO UPDATE SET v = 'y'",
                "UPDATE " + MULTIBYTE + "\u00e9 SET v = 'x' WHERE id = 1"
            }) {
                for (boolean prepared : new boolean[] {false, true}) {
                    String wrong = attack(sql, prepared);
                    assertTrue(wrong == null, () -> sql + " => " + wrong);
                }
            }
        }

        /**
         * standard_conforming_strings turned off by a statement fenced lets through, then a text that means something
         * else with it off: no row may change under a stale token, nor with no token.
         */
        @Test
        void turningConformingStringsOffAroundAWriteChangesNothing() throws SQLException {
            String[] offs = {
                "SELECT set_config('standard_conforming_strings', 'off', false)",
                "SELECT set_config(lower('STANDARD_CONFORMING_STRINGS'), 'off', false)",
                "SELECT set_config('standard_conforming_strings', 'of' || 'f', false)",
                "SELECT set_config(E'standard\\137conforming_strings', 'off', false)",
                "SET SESSION standard_conforming_strings = off",
                "SET standard_conforming_strings TO 'off'",
                "SET \"standard_conforming_strings\" = false",
                "SELECT set_config(U&'standard!005Fconforming_strings' UESCAPE '!', 'off', false)",
                "SELECT set_config(s, 'off', false) FROM (VALUES ('standard_conforming_strings')) v(s)",
                "DO $$BEGIN PERFORM set_config('standard_conforming_strings', 'off', false); END$$",
            };
            String[] writes = {
                "UPDATE t SET v = 'a\\', n = n WHERE id = 1 -- '", "UPDATE t SET v = 'a\\' WHERE id = 1 OR v = ' --'",
            };
            for (String off : offs) {
                for (String write : writes) {
                    for (boolean oneText : new boolean[] {false, true}) {
                        for (Long token : new Long[] {STALE, null}) {
                            reset();
                            String before = snapshot();
                            try (Connection c = fenced();
                                    Statement s = c.createStatement()) {
                                try (FencingScope ignored = token == null ? null : Fencing.bind(token)) {
                                    if (oneText) {
                                        Outcome.of(c, off + "; " + write, false);
                                    } else {
                                        Outcome.of(c, off, false);
                                        Outcome.of(c, write, false);
                                        Outcome.of(c, write, true);
                                    }
                                }
                            }
                            String what = off + (oneText ? "; " : " then ") + write + " token " + token;
                            assertEquals(before, snapshot(), what);
                        }
                    }
                }
            }
        }

        /** The server's setting at connect: off in the URL's startup options. */
        @Test
        void aConnectionStartingWithConformingStringsOffWritesNothing() throws SQLException {
            reset();
            String before = snapshot();
            Properties p = new Properties();
            p.setProperty("fenced.tables", "t");
            p.setProperty("options", "-c standard_conforming_strings=off");
            try (FencingScope ignored = Fencing.bind(STALE)) {
                try (Connection c = DriverManager.getConnection(db.fencedUrl(), p)) {
                    Outcome.of(c, "UPDATE t SET v = 'a\\', n = n WHERE id = 1 -- '", false);
                    Outcome.of(c, "UPDATE t SET v = 'x'", true);
                } catch (SQLException refusedAtConnect) {
                    // refused at connect: nothing written
                }
            }
            assertEquals(before, snapshot());
        }

        /** Simple query mode: pgjdbc writes the parameters into the text itself. */
        @Test
        void simpleQueryModeBindsWhatThePlanAssumed() throws SQLException {
            for (String mode : new String[] {"simple", "extendedForPrepared", "extendedCacheEverything"}) {
                Properties p = new Properties();
                p.setProperty("fenced.tables", "t");
                p.setProperty("preferQueryMode", mode);
                for (Long token : new Long[] {STALE, null}) {
                    reset();
                    String before = snapshot();
                    try (Connection c = DriverManager.getConnection(db.fencedUrl(), p);
                            FencingScope ignored = token == null ? null : Fencing.bind(token)) {
                        for (String sql : new String[] {
                            "UPDATE t SET n = 1-? WHERE id = ?", "DELETE FROM t WHERE id = ? OR n = 1-?"
                        }) {
                            try (PreparedStatement ps = c.prepareStatement(sql)) {
                                ps.setLong(1, -1);
                                ps.setLong(2, 1);
                                ps.executeUpdate();
                            } catch (SQLException expected) {
                                // refused or stale
                            }
                        }
                        Outcome.of(c, "UPDATE t SET v = 'x' WHERE '{\"a\":1}'::jsonb ? 'a'", false);
                    }
                    assertEquals(before, snapshot(), mode + " token " + token);
                }
                reset();
                try (Connection c = DriverManager.getConnection(db.fencedUrl(), p);
                        FencingScope ignored = Fencing.bind(CURRENT);
                        PreparedStatement ps = c.prepareStatement("UPDATE t SET n = 1-? WHERE id = ? AND v <> '?'")) {
                    ps.setLong(1, -1);
                    ps.setLong(2, 1);
                    assertEquals(1, ps.executeUpdate(), mode);
                }
                assertEquals(2, db.queryLong("SELECT n FROM t WHERE id = 1"), mode);
                assertEquals(CURRENT, db.queryLong("SELECT last_token FROM t WHERE id = 1"), mode);
            }
        }

        /** A batch whose first entry turns standard_conforming_strings off. */
        @Test
        void aBatchTurningConformingStringsOffChangesNothing() throws SQLException {
            for (Long token : new Long[] {STALE, null}) {
                reset();
                String before = snapshot();
                try (Connection c = fenced();
                        Statement s = c.createStatement();
                        FencingScope ignored = token == null ? null : Fencing.bind(token)) {
                    s.addBatch("SELECT set_config('standard_conforming_strings', 'off', false)");
                    s.addBatch("UPDATE t SET v = 'a\\', n = n WHERE id = 1 -- '");
                    s.executeBatch();
                } catch (SQLException expected) {
                    // refused
                }
                assertEquals(before, snapshot(), "token " + token);
            }
        }

        /** JDBC entry points other than prepareStatement(String) / createStatement(). */
        @Test
        void everyJdbcEntryPointFencesOrRefuses() throws SQLException {
            String sql = "UPDATE t SET v = 'x' WHERE id = 1";
            List<String> wrong = new ArrayList<>();
            for (Long token : new Long[] {STALE, null}) {
                for (int k = 0; k < 12; k++) {
                    reset();
                    String before = snapshot();
                    String what = "entry " + k + " token " + token;
                    try (Connection c = fenced();
                            FencingScope ignored = token == null ? null : Fencing.bind(token)) {
                        switch (k) {
                            case 0 -> c.prepareCall(sql).executeUpdate();
                            case 1 ->
                                c.prepareStatement(sql, Statement.RETURN_GENERATED_KEYS)
                                        .executeUpdate();
                            case 2 ->
                                c.prepareStatement(sql, new String[] {"id"}).executeUpdate();
                            case 3 -> c.prepareStatement(sql, new int[] {1}).executeUpdate();
                            case 4 -> c.createStatement().executeUpdate(sql, Statement.RETURN_GENERATED_KEYS);
                            case 5 -> c.createStatement().executeUpdate(sql, new String[] {"id"});
                            case 6 -> c.createStatement().executeLargeUpdate(sql);
                            case 7 ->
                                c.createStatement()
                                        .executeQuery(sql + " RETURNING id")
                                        .next();
                            case 8 -> {
                                try (Statement s = c.createStatement(
                                                java.sql.ResultSet.TYPE_SCROLL_INSENSITIVE,
                                                java.sql.ResultSet.CONCUR_UPDATABLE);
                                        java.sql.ResultSet rs = s.executeQuery("SELECT id, v FROM t WHERE id = 1")) {
                                    rs.next();
                                    rs.updateString("v", "x");
                                    rs.updateRow();
                                }
                            }
                            case 9 -> {
                                try (Statement s = c.createStatement(
                                                java.sql.ResultSet.TYPE_SCROLL_INSENSITIVE,
                                                java.sql.ResultSet.CONCUR_UPDATABLE);
                                        java.sql.ResultSet rs = s.executeQuery("SELECT id, v FROM t WHERE id = 1")) {
                                    rs.next();
                                    rs.deleteRow();
                                }
                            }
                            case 10 -> {
                                try (PreparedStatement ps = c.prepareStatement(
                                                "SELECT id, v FROM t WHERE id = 1",
                                                java.sql.ResultSet.TYPE_SCROLL_INSENSITIVE,
                                                java.sql.ResultSet.CONCUR_UPDATABLE);
                                        java.sql.ResultSet rs = ps.executeQuery()) {
                                    rs.next();
                                    rs.updateString("v", "x");
                                    rs.updateRow();
                                }
                            }
                            default ->
                                c.prepareCall("{call pg_catalog.set_config('application_name', 'x', false)}; " + sql)
                                        .execute();
                        }
                    } catch (SQLException expected) {
                        // refused or stale
                    }
                    if (!before.equals(snapshot())) {
                        wrong.add(what);
                    }
                }
            }
            assertTrue(wrong.isEmpty(), () -> String.join("\n", wrong));
        }

        /** pgjdbc writes an updatable result set's rows with its own statements, unseen by fenced. */
        @Test
        void anUpdatableResultSetOverAProtectedTableIsRefused() throws SQLException {
            db.execute(
                    "CREATE TABLE IF NOT EXISTS free (id int PRIMARY KEY, v text)",
                    "TRUNCATE free",
                    "INSERT INTO free VALUES (1, 'one')");
            reset();
            String before = snapshot();
            try (Connection c = fenced();
                    FencingScope ignored = Fencing.bind(STALE);
                    Statement s = c.createStatement(
                            java.sql.ResultSet.TYPE_SCROLL_INSENSITIVE, java.sql.ResultSet.CONCUR_UPDATABLE)) {
                try (java.sql.ResultSet rs = s.executeQuery("SELECT id, v FROM t WHERE id = 1")) {
                    rs.next();
                    rs.updateString("v", "x");
                    UnsupportedStatementException e = assertThrows(UnsupportedStatementException.class, rs::updateRow);
                    assertEquals("t", e.table());
                    assertThrows(UnsupportedStatementException.class, rs::deleteRow);
                }
                try (java.sql.ResultSet rs = s.executeQuery("SELECT id, v FROM free WHERE id = 1")) {
                    rs.next();
                    rs.updateString("v", "changed");
                    rs.updateRow();
                }
            }
            assertEquals(before, snapshot());
            assertEquals(1, db.queryLong("SELECT count(*) FROM free WHERE v = 'changed'"));
        }

        /** Objects pgjdbc builds for a result set (an array's rows, a refcursor) must not hand out its raw statements. */
        @Test
        void noRawStatementLeaksThroughResultSetValues() throws SQLException {
            db.execute("CREATE OR REPLACE FUNCTION lx_cursor() RETURNS refcursor LANGUAGE plpgsql AS "
                    + "$$DECLARE c refcursor; BEGIN OPEN c FOR SELECT 1; RETURN c; END$$");
            List<String> wrong = new ArrayList<>();
            for (int k = 0; k < 4; k++) {
                reset();
                String before = snapshot();
                try (Connection c = fenced();
                        FencingScope ignored = Fencing.bind(STALE);
                        Statement s = c.createStatement()) {
                    c.setAutoCommit(false);
                    Statement leaked = null;
                    switch (k) {
                        case 0 -> {
                            java.sql.ResultSet rs = s.executeQuery("SELECT ARRAY[1, 2]");
                            rs.next();
                            leaked = rs.getArray(1).getResultSet().getStatement();
                        }
                        case 1 -> {
                            java.sql.ResultSet rs = s.executeQuery("SELECT lx_cursor()");
                            rs.next();
                            leaked = ((java.sql.ResultSet) rs.getObject(1)).getStatement();
                        }
                        case 3 ->
                            leaked = c.createArrayOf("int4", new Object[] {1, 2})
                                    .getResultSet()
                                    .getStatement();
                        default -> {
                            java.sql.CallableStatement cs = c.prepareCall("{? = call lx_cursor()}");
                            cs.registerOutParameter(1, java.sql.Types.REF_CURSOR);
                            cs.execute();
                            leaked = ((java.sql.ResultSet) cs.getObject(1)).getStatement();
                        }
                    }
                    String kind = leaked == null ? "null" : leaked.getClass().getName();
                    if (kind.startsWith("org.postgresql")) {
                        wrong.add("case " + k + " hands out " + kind);
                    }
                    if (leaked != null) {
                        Outcome.of(
                                leaked.getConnection(), "UPDATE t SET v = 'leak'", false); // stale: refused or rejected
                    }
                    c.commit();
                } catch (SQLException e) {
                    // an entry point that refuses
                }
                if (!before.equals(snapshot())) {
                    wrong.add("case " + k);
                }
            }
            assertTrue(wrong.isEmpty(), () -> String.join("\n", wrong));
        }

        /** Batches: entries added and run under a stale token, or with none, change nothing. */
        @Test
        void batchesUnderAStaleOrNoTokenChangeNothing() throws SQLException {
            for (Long token : new Long[] {STALE, null}) {
                for (int k = 0; k < 3; k++) {
                    reset();
                    String before = snapshot();
                    try (Connection c = fenced();
                            FencingScope ignored = token == null ? null : Fencing.bind(token)) {
                        if (k == 0) {
                            try (PreparedStatement ps = c.prepareStatement("UPDATE t SET v = ? WHERE id = ?")) {
                                ps.setString(1, "b");
                                ps.setInt(2, 1);
                                ps.addBatch();
                                ps.setString(1, "c");
                                ps.setInt(2, 2);
                                ps.addBatch();
                                ps.executeBatch();
                            }
                        } else if (k == 1) {
                            try (Statement s = c.createStatement()) {
                                s.addBatch("SELECT 1");
                                s.addBatch("UPDATE t SET v = 'b' WHERE id = 1");
                                s.addBatch("DELETE FROM t WHERE id = 2");
                                s.executeBatch();
                            }
                        } else {
                            c.setAutoCommit(false);
                            try (PreparedStatement ps = c.prepareStatement("DELETE FROM t WHERE id = ?")) {
                                ps.setInt(1, 1);
                                ps.addBatch();
                                ps.setInt(1, 2);
                                ps.addBatch();
                                try {
                                    ps.executeBatch();
                                } finally {
                                    c.commit();
                                }
                            }
                        }
                    } catch (SQLException expected) {
                        // refused or stale
                    }
                    assertEquals(before, snapshot(), "batch " + k + " token " + token);
                }
            }
        }

        /** pgjdbc's reWriteBatchedInserts rewrites the fenced INSERT's VALUES itself. */
        @Test
        void rewrittenBatchedInsertsKeepTheGuard() throws SQLException {
            Properties p = new Properties();
            p.setProperty("fenced.tables", "t");
            p.setProperty("reWriteBatchedInserts", "true");
            for (Long token : new Long[] {STALE, null, CURRENT}) {
                reset();
                String before = snapshot();
                try (Connection c = DriverManager.getConnection(db.fencedUrl(), p);
                        FencingScope ignored = token == null ? null : Fencing.bind(token);
                        PreparedStatement ps = c.prepareStatement(
                                "INSERT INTO t (id, v) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET v = excluded.v")) {
                    for (int id = 1; id <= 2; id++) {
                        ps.setInt(1, id);
                        ps.setString(2, "b" + id);
                        ps.addBatch();
                    }
                    ps.executeBatch();
                } catch (SQLException expected) {
                    // refused or stale
                }
                if (token == null || token == STALE) {
                    assertEquals(before, snapshot(), "token " + token);
                } else {
                    assertEquals(CURRENT, db.queryLong("SELECT min(last_token) FROM t"));
                    assertEquals(2, db.queryLong("SELECT count(*) FROM t WHERE v LIKE 'b%'"));
                }
            }
        }

        @Test
        void anExpressionTooLongToPrintIsRefusedNotAStackOverflow() throws SQLException {
            String sql = "UPDATE t SET n = 0" + " + 1".repeat(20000) + " WHERE id = 1";
            reset();
            String before = snapshot();
            try (Connection c = fenced();
                    FencingScope ignored = Fencing.bind(CURRENT);
                    Statement s = c.createStatement()) {
                // The fast lane (SkeletonFirst) fences this plain UPDATE by position, without the parser's recursive
                // printing: then PostgreSQL itself refuses it (stack depth limit exceeded, 54001), as it does raw.
                // Either way no Error escapes and nothing is written.
                SQLException e = assertThrows(SQLException.class, () -> s.executeUpdate(sql));
                if (e instanceof UnsupportedStatementException u) {
                    assertEquals("t", u.table());
                    assertTrue(e.getMessage().contains("nested too deeply"), e::getMessage);
                } else {
                    assertEquals("54001", e.getSQLState(), e::getMessage);
                }
            }
            assertEquals(before, snapshot());
        }

        @Test
        void everyAttackIsRefusedOrFencedAsPostgresReadsIt() throws SQLException {
            List<String> report = new ArrayList<>();
            for (String sql : ATTACKS) {
                for (boolean prepared : new boolean[] {false, true}) {
                    String wrong = attack(sql, prepared);
                    if (wrong != null) {
                        report.add((prepared ? "PS " : "ST ")
                                + sql.replace("\n", "\\n").replace("\r", "\\r") + " => " + wrong);
                    }
                }
            }
            assertTrue(report.isEmpty(), String.join("\n", report));
        }
    }
}
