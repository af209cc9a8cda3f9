package dev.fenced.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.fenced.Fencing;
import dev.fenced.FencingException;
import dev.fenced.FencingScope;
import dev.fenced.UnsupportedStatementException;
import dev.fenced.it.support.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.Statement;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Schema changes never open a window: plans are checked against the catalog generation when they run,
 * DDL and the writes it could affect are not planned together, only committed catalog state is learned, a
 * write to a relation the last catalog read did not see is looked up first, and DDL that rewrites a
 * protected table's data or its tokens, like a DO block, needs Fencing.unfenced.
 */
@Tag("server-sensitive")
class SchemaWindowIT {

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

    @Test
    void aStatementPreparedBeforeItsTableJoinedAProtectedOneIsPlannedAgain() throws Exception {
        TestDatabase db = fresh();
        db.execute(
                "CREATE TABLE child (id int NOT NULL, amount bigint, last_token bigint)",
                "INSERT INTO child VALUES (2, 10, 20)");
        try (Connection c = DriverManager.getConnection(db.fencedUrl("fenced.tables=totals"));
                PreparedStatement ps = c.prepareStatement("UPDATE child SET amount = ? WHERE id = 2")) {
            ps.setLong(1, 1);
            assertEquals(1, ps.executeUpdate());
            try (Statement s = c.createStatement()) {
                // (bringing child's rows into totals is itself refused outside an unfenced section)
                Fencing.unfenced(() -> s.execute("ALTER TABLE child INHERIT totals"));
            }
            ps.setLong(1, 0);
            assertThrows(FencingException.class, ps::executeUpdate);
            try (FencingScope ignored = Fencing.bind(5)) {
                assertThrows(FencingException.class, ps::executeUpdate);
            }
        }
        assertEquals(1, db.queryLong("SELECT amount FROM child"));
    }

    @Test
    void ddlAndTheWritesItAffectsAreNotPlannedTogether() throws Exception {
        TestDatabase db = fresh();
        try (Connection c = DriverManager.getConnection(db.fencedUrl("fenced.tables=totals"));
                Statement s = c.createStatement();
                FencingScope ignored = Fencing.bind(5)) {
            assertThrows(
                    UnsupportedStatementException.class,
                    () -> s.execute("CREATE VIEW v1 AS SELECT * FROM totals; UPDATE v1 SET amount = 0"));
            assertThrows(UnsupportedStatementException.class, () -> {
                s.addBatch("CREATE VIEW v2 AS SELECT * FROM totals");
                s.addBatch("UPDATE v2 SET amount = 0");
                s.executeBatch();
            });
            s.clearBatch();
        }
        assertUntouched(db);
    }

    @Test
    void aRolledBackDropViewKeepsTheViewProtected() throws Exception {
        TestDatabase db = fresh();
        db.execute("CREATE VIEW kept AS SELECT * FROM totals");
        String url = db.fencedUrl("fenced.tables=totals");
        try (Connection c = DriverManager.getConnection(url);
                Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            s.execute("DROP VIEW kept");
            try (Connection other = DriverManager.getConnection(url);
                    Statement o = other.createStatement();
                    FencingScope ignored = Fencing.bind(30)) {
                o.setQueryTimeout(5); // sent, it would wait for the dropping transaction's lock
                assertThrows(UnsupportedStatementException.class, () -> o.executeUpdate("UPDATE kept SET amount = 0"));
            }
            c.rollback();
        }
        try (Connection other = DriverManager.getConnection(url);
                Statement o = other.createStatement();
                FencingScope ignored = Fencing.bind(30)) {
            assertThrows(UnsupportedStatementException.class, () -> o.executeUpdate("UPDATE kept SET amount = 0"));
        }
        assertUntouched(db);
    }

    @Test
    void aCommittedDropViewIsForgottenAndACommittedCreateLearned() throws Exception {
        TestDatabase db = fresh();
        String url = db.fencedUrl("fenced.tables=totals");
        try (Connection c = DriverManager.getConnection(url);
                Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            s.execute("CREATE VIEW made AS SELECT * FROM totals");
            c.commit();
            try (FencingScope ignored = Fencing.bind(30)) {
                assertThrows(UnsupportedStatementException.class, () -> s.executeUpdate("UPDATE made SET amount = 0"));
            }
        }
    }

    @Test
    void aViewOverAnInheritanceParentWithoutTheFenceColumnIsLearned() throws Exception {
        TestDatabase db = TestDatabase.create();
        db.execute(
                "CREATE TABLE parent (id int, amount bigint)",
                "CREATE TABLE kid (last_token bigint) INHERITS (parent)",
                "INSERT INTO kid VALUES (1, 10, 20)",
                "CREATE VIEW everyone AS SELECT * FROM parent");
        try (Connection c = DriverManager.getConnection(db.fencedUrl("fenced.tables=kid"));
                Statement s = c.createStatement();
                FencingScope ignored = Fencing.bind(5)) {
            assertThrows(UnsupportedStatementException.class, () -> s.executeUpdate("UPDATE everyone SET amount = 0"));
        }
        assertEquals(10, db.queryLong("SELECT amount FROM kid"));
    }

    @Test
    void aViewMadeBehindFencedsBackIsLookedUpBeforeTheWriteIsDecided() throws Exception {
        TestDatabase db = fresh();
        try (Connection c = DriverManager.getConnection(db.fencedUrl("fenced.tables=totals"));
                Statement s = c.createStatement()) {
            s.executeQuery("SELECT 1").close();
            db.execute("CREATE VIEW sneaky AS SELECT * FROM totals", "CREATE TABLE sneaky_child () INHERITS (totals)");
            try (FencingScope ignored = Fencing.bind(5)) {
                assertThrows(
                        UnsupportedStatementException.class, () -> s.executeUpdate("UPDATE sneaky SET amount = 0"));
                assertThrows(dev.fenced.StaleTokenException.class, () -> {
                    db.execute("INSERT INTO sneaky_child VALUES (2, 10, 20)");
                    s.executeUpdate("UPDATE sneaky_child SET amount = 0");
                });
            }
            c.setAutoCommit(false);
            db.execute("CREATE VIEW sneaky_in_tx AS SELECT * FROM totals");
            try (FencingScope ignored = Fencing.bind(5)) {
                assertThrows(
                        UnsupportedStatementException.class,
                        () -> s.executeUpdate("UPDATE sneaky_in_tx SET amount = 0"));
            }
            c.rollback();
        }
        assertUntouched(db);
        assertEquals(10, db.queryLong("SELECT amount FROM sneaky_child"));
    }

    @Test
    void ddlThatRewritesDataOrTouchesTheFenceColumnNeedsAnUnfencedSection() throws Exception {
        TestDatabase db = fresh();
        try (Connection c = DriverManager.getConnection(db.fencedUrl("fenced.tables=totals"));
                Statement s = c.createStatement()) {
            for (String ddl : new String[] {
                "ALTER TABLE totals ALTER COLUMN amount TYPE text USING 'x'",
                "ALTER TABLE totals ALTER COLUMN last_token TYPE bigint USING 0",
                "ALTER TABLE totals ALTER last_token SET DEFAULT 100",
                "ALTER TABLE totals DROP COLUMN last_token",
                "ALTER TABLE totals RENAME COLUMN last_token TO was_token",
                "ALTER TABLE public.totals ALTER COLUMN amount SET DATA TYPE numeric"
            }) {
                assertThrows(UnsupportedStatementException.class, () -> s.execute(ddl), ddl);
            }
            s.execute("ALTER TABLE totals ADD COLUMN note text");
            Fencing.unfenced(() -> s.execute("ALTER TABLE totals ALTER COLUMN note TYPE varchar(20)"));
        }
        assertUntouched(db);
    }

    @Test
    void aDoBlockIsRefusedOutsideAnUnfencedSectionEvenWhenItBuildsItsNames() throws Exception {
        TestDatabase db = fresh();
        String block = "DO $$ BEGIN EXECUTE 'UPDATE ' || 'tot' || 'als SET amount = 0'; END $$";
        try (Connection c = DriverManager.getConnection(db.fencedUrl("fenced.tables=totals"));
                Statement s = c.createStatement()) {
            assertThrows(UnsupportedStatementException.class, () -> s.execute(block));
            try (FencingScope ignored = Fencing.bind(30)) {
                assertThrows(UnsupportedStatementException.class, () -> s.execute("SELECT 1; " + block));
            }
            assertUntouched(db);
            Fencing.unfenced(() -> s.execute(block));
        }
        assertEquals(0, db.queryLong("SELECT amount FROM totals"));
    }
}
