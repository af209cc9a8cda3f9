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
import org.junit.jupiter.api.Test;

/**
 * An outsider's attacks on the schema side of fencing, in enforce mode: each one tries to make a write reach
 * the protected table's rows unfenced or stale, and must end with the rows as they were (the attack refused,
 * or its write failing at PostgreSQL).
 */
class SchemaAttackIT {

    private static TestDatabase fresh() {
        TestDatabase db = TestDatabase.create();
        db.execute(
                "CREATE TABLE totals (id int PRIMARY KEY, amount bigint, last_token bigint)",
                "INSERT INTO totals VALUES (1, 10, 20)");
        return db;
    }

    private static void assertUntouched(TestDatabase db) {
        assertEquals(10, db.queryLong("SELECT amount FROM totals WHERE id = 1"));
        assertEquals(20, db.queryLong("SELECT last_token FROM totals WHERE id = 1"));
    }

    /** Runs {@code sql}; true when it ran, false when fenced or PostgreSQL refused it. */
    private static boolean tryRun(Statement s, String sql) {
        try {
            s.execute(sql);
            return true;
        } catch (SQLException e) {
            return false;
        }
    }

    @Test
    void aViewCreatedAfterARepeatableReadTransactionBeganIsNotWrittenUnfenced() throws Exception {
        TestDatabase db = fresh();
        try (Connection c = DriverManager.getConnection(db.fencedUrl("fenced.tables=totals"));
                Statement s = c.createStatement();
                FencingScope ignored = Fencing.bind(5)) {
            c.setAutoCommit(false);
            c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            s.execute("SELECT count(*) FROM totals"); // the transaction's snapshot is taken here
            db.execute("CREATE VIEW late AS SELECT * FROM totals");
            UnsupportedStatementException e = assertThrows(
                    UnsupportedStatementException.class, () -> s.execute("UPDATE late SET amount = 0 WHERE id = 1"));
            assertTrue(e.getMessage().contains("late") && e.getMessage().contains("snapshot"), e.getMessage());
            c.commit();
        }
        assertUntouched(db);
    }

    @Test
    void aNameLookedUpBeforeItExistedIsLookedUpAgain() throws Exception {
        TestDatabase db = fresh();
        try (Connection c = DriverManager.getConnection(db.fencedUrl("fenced.tables=totals"));
                Statement s = c.createStatement();
                FencingScope ignored = Fencing.bind(5)) {
            assertTrue(!tryRun(s, "UPDATE soon SET amount = 0 WHERE id = 1"), "soon does not exist yet");
            db.execute("CREATE VIEW soon AS SELECT * FROM totals");
            tryRun(s, "UPDATE soon SET amount = 0 WHERE id = 1");
            tryRun(s, "UPDATE soon SET amount = 1 WHERE id = 1");
        }
        assertUntouched(db);
    }

    @Test
    void renamingOrMovingTheProtectedTableNeedsAnUnfencedSection() throws Exception {
        TestDatabase db = fresh();
        db.execute("CREATE SCHEMA elsewhere");
        try (Connection c = DriverManager.getConnection(db.fencedUrl("fenced.tables=public.totals"));
                Statement s = c.createStatement();
                FencingScope ignored = Fencing.bind(5)) {
            if (tryRun(s, "ALTER TABLE totals RENAME TO gone")) {
                tryRun(s, "UPDATE gone SET amount = 0, last_token = 0 WHERE id = 1");
                db.execute("ALTER TABLE gone RENAME TO totals");
            }
            if (tryRun(s, "ALTER TABLE totals SET SCHEMA elsewhere")) {
                tryRun(s, "UPDATE elsewhere.totals SET amount = 0, last_token = 0 WHERE id = 1");
                db.execute("ALTER TABLE elsewhere.totals SET SCHEMA public");
            }
        }
        assertUntouched(db);
    }

    @Test
    void aRuleThatWritesTheProtectedTableIsNotCreatedThroughFenced() throws Exception {
        TestDatabase db = fresh();
        db.execute("CREATE TABLE other (id int)");
        try (Connection c = DriverManager.getConnection(db.fencedUrl("fenced.tables=totals"));
                Statement s = c.createStatement();
                FencingScope ignored = Fencing.bind(5)) {
            assertThrows(
                    UnsupportedStatementException.class,
                    () -> s.execute(
                            "CREATE RULE sneak AS ON INSERT TO other DO ALSO UPDATE totals SET amount = 0, last_token = 0"));
            assertThrows(
                    UnsupportedStatementException.class,
                    () -> s.execute("create or replace rule sneak as on update to totals do instead nothing"));
            tryRun(s, "INSERT INTO other VALUES (1)");
        }
        assertUntouched(db);
    }

    @Test
    void aWriteToATableWhoseRuleWritesTheProtectedTableIsRefused() throws Exception {
        TestDatabase db = fresh();
        db.execute(
                "CREATE TABLE other (id int)",
                "CREATE RULE sneak AS ON INSERT TO other DO ALSO UPDATE totals SET amount = 0, last_token = 0");
        try (Connection c = DriverManager.getConnection(db.fencedUrl("fenced.tables=totals"));
                Statement s = c.createStatement();
                FencingScope ignored = Fencing.bind(5)) {
            UnsupportedStatementException e =
                    assertThrows(UnsupportedStatementException.class, () -> s.execute("INSERT INTO other VALUES (1)"));
            assertTrue(e.getMessage().contains("rule"), e.getMessage());
        }
        assertUntouched(db);
    }

    @Test
    void aChildCreatedAndWrittenInOneTextIsRefused() throws Exception {
        TestDatabase db = fresh();
        try (Connection c = DriverManager.getConnection(db.fencedUrl("fenced.tables=totals"));
                Statement s = c.createStatement();
                FencingScope ignored = Fencing.bind(5)) {
            tryRun(s, "CREATE TABLE kid () INHERITS (totals); INSERT INTO kid VALUES (1, 99, 0)");
            tryRun(
                    s,
                    "CREATE TABLE part2 (LIKE totals); ALTER TABLE part2 INHERIT totals;"
                            + " INSERT INTO part2 VALUES (1, 99, 0)");
        }
        assertEquals(0, db.queryLong("SELECT count(*) FROM totals WHERE amount = 99"));
        assertUntouched(db);
    }

    @Test
    void searchPathAndSetSchemaDoNotHideTheProtectedTable() throws Exception {
        TestDatabase db = fresh();
        db.execute(
                "CREATE SCHEMA app",
                "CREATE TABLE app.totals (id int PRIMARY KEY, amount bigint, last_token bigint)",
                "INSERT INTO app.totals VALUES (1, 10, 20)");
        try (Connection c = DriverManager.getConnection(db.fencedUrl("fenced.tables=app.totals"));
                Statement s = c.createStatement();
                FencingScope ignored = Fencing.bind(5)) {
            s.execute("SET search_path = app");
            tryRun(s, "UPDATE totals SET amount = 0 WHERE id = 1");
            c.setSchema("app");
            tryRun(s, "UPDATE totals SET amount = 0 WHERE id = 1");
            tryRun(s, "SET search_path = app; UPDATE totals SET amount = 0 WHERE id = 1");
        }
        assertEquals(10, db.queryLong("SELECT amount FROM app.totals WHERE id = 1"));
    }

    @Test
    void doBlocksSpelledOddlyAreRefused() throws Exception {
        TestDatabase db = fresh();
        try (Connection c = DriverManager.getConnection(db.fencedUrl("fenced.tables=totals"));
                Statement s = c.createStatement();
                FencingScope ignored = Fencing.bind(5)) {
            for (String sql : new String[] {
                "do $$ begin update totals set amount = 0; end $$",
                "DO LANGUAGE plpgsql $x$ begin execute 'update ' || 'tot' || 'als set amount = 0'; end $x$",
                "/* hi */ DO $$ begin update totals set amount = 0; end $$",
                "SELECT 1; DO $$ begin update totals set amount = 0; end $$",
                "PREPARE q AS SELECT 1; EXECUTE q; DO 'begin update totals set amount = 0; end'"
            }) {
                tryRun(s, sql);
            }
        }
        assertUntouched(db);
    }

    @Test
    void anExecuteOfAWritePreparedInTheSameTextIsRefused() throws Exception {
        TestDatabase db = fresh();
        try (Connection c = DriverManager.getConnection(db.fencedUrl("fenced.tables=totals"));
                Statement s = c.createStatement();
                FencingScope ignored = Fencing.bind(5)) {
            Fencing.unfenced(() -> s.execute("PREPARE w AS UPDATE totals SET amount = 0, last_token = 0"));
            tryRun(s, "EXECUTE w");
            tryRun(s, "execute /* x */ \"w\"");
            tryRun(s, "SELECT 1; EXECUTE w");
            tryRun(s, "DEALLOCATE w; PREPARE w AS SELECT 1; EXECUTE w");
            tryRun(s, "DEALLOCATE ALL; PREPARE w AS UPDATE U&\"\\0074otals\" SET amount = 0; EXECUTE w");
        }
        assertUntouched(db);
    }

    @Test
    void renamingTheSchemaOfARegisteredTableNeedsAnUnfencedSection() throws Exception {
        TestDatabase db = fresh();
        try (Connection c = DriverManager.getConnection(db.fencedUrl("fenced.tables=public.totals"));
                Statement s = c.createStatement();
                FencingScope ignored = Fencing.bind(5)) {
            UnsupportedStatementException e = assertThrows(
                    UnsupportedStatementException.class, () -> s.execute("ALTER SCHEMA public RENAME TO moved"));
            assertTrue(e.getMessage().contains("totals"), e.getMessage());
            assertThrows(
                    UnsupportedStatementException.class,
                    () -> s.execute("SELECT 1; alter schema \"public\" rename to moved"));
            assertThrows(UnsupportedStatementException.class, () -> s.execute("ALTER TABLE totals RENAME TO gone"));
            Fencing.unfenced(() -> s.execute("ALTER TABLE totals RENAME COLUMN amount TO amount2"));
            s.execute("ALTER TABLE totals RENAME COLUMN amount2 TO amount"); // a plain column rename is DDL
        }
        assertUntouched(db);
    }

    @Test
    void aQualifiedNameLaterInATruncateListIsLookedUp() throws Exception {
        TestDatabase db = fresh();
        db.execute("CREATE TABLE other (id int)");
        try (Connection c = DriverManager.getConnection(db.fencedUrl("fenced.tables=totals"));
                Statement s = c.createStatement();
                FencingScope ignored = Fencing.bind(5)) {
            s.execute("SELECT 1");
            db.execute("CREATE TABLE newkid () INHERITS (totals)", "INSERT INTO newkid VALUES (2, 10, 20)");
            UnsupportedStatementException e =
                    assertThrows(UnsupportedStatementException.class, () -> s.execute("TRUNCATE other, public.newkid"));
            assertTrue(e.getMessage().contains("newkid"), e.getMessage());
        }
        assertEquals(1, db.queryLong("SELECT count(*) FROM newkid"));
    }

    @Test
    void aChildRegisteredInAWeakerModeTakesItsParentsMode() throws Exception {
        TestDatabase db = fresh();
        db.execute("CREATE TABLE kid () INHERITS (totals)", "INSERT INTO kid VALUES (2, 10, 20)");
        try (Connection c = DriverManager.getConnection(
                        db.fencedUrl("fenced.tables=totals,kid", "fenced.table.kid.mode=observe"));
                Statement s = c.createStatement()) {
            tryRun(s, "UPDATE kid SET amount = 0 WHERE id = 2"); // no token: enforce (totals) refuses it
            try (FencingScope ignored = Fencing.bind(5)) {
                tryRun(s, "UPDATE kid SET amount = 0 WHERE id = 2");
            }
        }
        assertEquals(10, db.queryLong("SELECT amount FROM kid WHERE id = 2"));
    }

    @Test
    void rowsSharedByTablesFencedOnDifferentColumnsFailTheConnect() {
        TestDatabase db = fresh();
        db.execute("CREATE TABLE kid (tok2 bigint) INHERITS (totals)");
        SQLException e = assertThrows(
                SQLException.class,
                () -> DriverManager.getConnection(
                                db.fencedUrl("fenced.tables=totals,kid", "fenced.table.kid.column=tok2"))
                        .close());
        assertTrue(e.getMessage().contains("kid") && e.getMessage().contains("tok2"), e.getMessage());
    }

    @Test
    void aChildTakenOutWrittenAndPutBackNeedsAnUnfencedSection() throws Exception {
        TestDatabase db = fresh();
        db.execute(
                "CREATE TABLE kid () INHERITS (totals)",
                "INSERT INTO kid VALUES (2, 10, 20)",
                "CREATE TABLE parted (id int, amount bigint, last_token bigint) PARTITION BY RANGE (id)",
                "CREATE TABLE parted1 PARTITION OF parted FOR VALUES FROM (0) TO (100)",
                "INSERT INTO parted1 VALUES (2, 10, 20)");
        try (Connection c = DriverManager.getConnection(db.fencedUrl("fenced.tables=totals,parted"));
                Statement s = c.createStatement();
                FencingScope ignored = Fencing.bind(5)) {
            if (tryRun(s, "ALTER TABLE kid NO INHERIT totals")) {
                tryRun(s, "UPDATE kid SET amount = 0, last_token = 0");
                tryRun(s, "ALTER TABLE kid INHERIT totals");
            }
            if (tryRun(s, "ALTER TABLE parted DETACH PARTITION parted1")) {
                tryRun(s, "UPDATE parted1 SET amount = 0, last_token = 0");
                tryRun(s, "ALTER TABLE parted ATTACH PARTITION parted1 FOR VALUES FROM (0) TO (100)");
            }
            Fencing.unfenced(() -> s.execute("ALTER TABLE kid NO INHERIT totals"));
        }
        assertEquals(10, db.queryLong("SELECT amount FROM kid"));
        assertEquals(10, db.queryLong("SELECT amount FROM parted1"));
    }

    @Test
    void anUpdatableResultSetOverATableNewerThanTheSnapshotRefusesRowWrites() throws Exception {
        TestDatabase db = fresh();
        try (Connection c = DriverManager.getConnection(db.fencedUrl("fenced.tables=totals"));
                Statement s = c.createStatement(
                        java.sql.ResultSet.TYPE_SCROLL_INSENSITIVE, java.sql.ResultSet.CONCUR_UPDATABLE);
                FencingScope ignored = Fencing.bind(5)) {
            c.setAutoCommit(false);
            c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            s.execute("SELECT count(*) FROM totals"); // the transaction's snapshot is taken here
            db.execute("CREATE TABLE kid2 (PRIMARY KEY (id)) INHERITS (totals)");
            // pgjdbc reads the key under the same old snapshot and already refuses; either refusal will do
            assertThrows(SQLException.class, () -> {
                try (java.sql.ResultSet rs = s.executeQuery("SELECT * FROM kid2")) {
                    rs.moveToInsertRow();
                    rs.updateInt("id", 7);
                    rs.updateLong("amount", 99);
                    rs.insertRow();
                }
            });
            c.commit();
        }
        assertEquals(0, db.queryLong("SELECT count(*) FROM totals WHERE amount = 99"));
    }
}
