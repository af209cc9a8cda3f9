package dev.fenced.it.clients;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariDataSource;
import dev.fenced.Fencing;
import dev.fenced.UnfencedWriteException;
import dev.fenced.UnsupportedStatementException;
import dev.fenced.it.support.Pools;
import dev.fenced.it.support.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.FlywayException;
import org.flywaydb.core.api.output.MigrateResult;
import org.junit.jupiter.api.Test;

/**
 * Flyway {@value #VERSION} ({@code flyway-core} + {@code flyway-database-postgresql}) migrating through
 * fenced data sources. DDL passes through fenced untouched. A data migration that writes a protected
 * table has no lease behind it, so in enforce mode it fails and Flyway rolls it back; it runs when the
 * migration is explicitly unfenced, either with {@code Fencing.unfenced(flyway::migrate)} or, better, on
 * a migration data source with {@code fenced.mode=off}.
 */
class FlywayIT {

    static final String VERSION = "13.12.2";

    static final String SCHEMA = "classpath:dev/fenced/it/clients/flyway/schema";
    static final String DATA = "classpath:dev/fenced/it/clients/flyway/data";
    /** The application connects before its migrations create the protected table: say so, or the connect fails. */
    static final String MIGRATED_LATER = "fenced.missingTables=warn";

    static Flyway flyway(DataSource ds, String... locations) {
        return Flyway.configure().dataSource(ds).locations(locations).load();
    }

    static String applied(TestDatabase db) {
        return Rows.snapshot(db, "SELECT version, success FROM flyway_schema_history ORDER BY installed_rank");
    }

    @Test
    void schemaMigrationsPassThroughAFencedDataSourceAndTheTableIsFencedAfterwards() throws Throwable {
        TestDatabase db = TestDatabase.create();
        try (HikariDataSource app = Pools.fenced(db, 2, "fenced.tables=totals", MIGRATED_LATER)) {
            MigrateResult result = flyway(app, SCHEMA).migrate();
            assertEquals(2, result.migrationsExecuted);
            assertEquals("1:t,2:t", applied(db));
            try (var ignored = Fencing.bind(9);
                    Connection c = app.getConnection();
                    PreparedStatement ps =
                            c.prepareStatement("INSERT INTO totals (restaurant_id, amount) VALUES (?, ?)")) {
                ps.setInt(1, 1);
                ps.setLong(2, 10);
                ps.executeUpdate();
            }
            assertEquals(9, Rows.token(db, 1));
        }
    }

    @Test
    void aDataMigrationWithoutATokenFailsAndIsRolledBack() {
        TestDatabase db = TestDatabase.create();
        try (HikariDataSource app = Pools.fenced(db, 2, "fenced.tables=totals", MIGRATED_LATER)) {
            FlywayException e = assertThrows(
                    FlywayException.class, () -> flyway(app, SCHEMA, DATA).migrate());
            UnfencedWriteException refused = Rows.find(e, UnfencedWriteException.class);
            assertNotNull(refused, Rows.chain(e));
            assertTrue(e.getMessage().contains("V3__seed_totals.sql"), e.getMessage());
            // V1 and V2 went in; V3 ran in its own transaction and left nothing behind.
            assertEquals("1:t,2:t", applied(db));
            assertEquals(0, db.queryLong("SELECT count(*) FROM totals"));
        }
    }

    @Test
    void aDataMigrationRunsWhenExplicitlyUnfenced() throws Exception {
        TestDatabase db = TestDatabase.create();
        try (HikariDataSource app = Pools.fenced(db, 2, "fenced.tables=totals", MIGRATED_LATER)) {
            Flyway flyway = flyway(app, SCHEMA, DATA);
            MigrateResult result = Fencing.unfenced(flyway::migrate);
            assertEquals(3, result.migrationsExecuted);
            // Written as the migration says; the fence column keeps its value (none yet).
            assertEquals("2:2000:null,3:3000:null", Rows.totals(db));
        }
    }

    @Test
    void aDataMigrationRunsOnAMigrationDataSourceWithModeOff() throws Throwable {
        TestDatabase db = TestDatabase.create();
        try (HikariDataSource migrations = Pools.fenced(db, 2, "fenced.tables=totals", "fenced.mode=off");
                HikariDataSource app = Pools.fenced(db, 2, "fenced.tables=totals", MIGRATED_LATER)) {
            assertEquals(3, flyway(migrations, SCHEMA, DATA).migrate().migrationsExecuted);
            assertEquals("2:2000:null,3:3000:null", Rows.totals(db));
            // The application's pool is fenced as usual.
            assertThrows(UnfencedWriteException.class, () -> {
                try (Connection c = app.getConnection();
                        var s = c.createStatement()) {
                    s.executeUpdate("UPDATE totals SET amount = 0");
                }
            });
        }
    }

    @Test
    void aDoBlockNamingAProtectedTableIsRefusedUnlessTheMigrationIsUnfenced() throws Exception {
        TestDatabase db = TestDatabase.create();
        String doBlock = "classpath:dev/fenced/it/clients/flyway/doblock";
        try (HikariDataSource app = Pools.fenced(db, 2, "fenced.tables=totals", MIGRATED_LATER)) {
            FlywayException e = assertThrows(
                    FlywayException.class, () -> flyway(app, SCHEMA, doBlock).migrate());
            UnsupportedStatementException refused = Rows.find(e, UnsupportedStatementException.class);
            assertNotNull(refused, Rows.chain(e));
            assertTrue(refused.getMessage().contains("DO"), refused.getMessage());
            assertEquals("1:t,2:t", applied(db));
            assertEquals(1, Fencing.unfenced(() -> flyway(app, SCHEMA, doBlock).migrate()).migrationsExecuted);
            assertEquals(1, db.queryLong("SELECT count(*) FROM pg_indexes WHERE indexname = 'totals_restaurant'"));
        }
    }

    @Test
    void viewsAMigrationCreatesAreKnownToAPoolThatConnectsAfterIt() throws Throwable {
        TestDatabase db = TestDatabase.create();
        String view = "classpath:dev/fenced/it/clients/flyway/view";
        try (HikariDataSource migrations = Pools.fenced(db, 2, "fenced.tables=totals", "fenced.mode=off")) {
            flyway(migrations, SCHEMA, view).migrate();
        }
        try (HikariDataSource app = Pools.fenced(db, 2, "fenced.tables=totals", MIGRATED_LATER)) {
            UnsupportedStatementException e = assertThrows(UnsupportedStatementException.class, () -> {
                try (var ignored = Fencing.bind(9);
                        Connection c = app.getConnection();
                        var s = c.createStatement()) {
                    s.executeUpdate("UPDATE big_totals SET amount = 0");
                }
            });
            assertTrue(e.getMessage().contains("big_totals"), e.getMessage());
        }
    }

    @Test
    void flywayGivenTheFencedUrlItselfCannotTellTheDatabase() {
        // Flyway picks its database support by URL prefix (jdbc:postgresql:); hand it a DataSource instead.
        TestDatabase db = TestDatabase.create();
        Exception e = assertThrows(
                Exception.class,
                () -> Flyway.configure()
                        .dataSource(db.fencedUrl("fenced.tables=totals", MIGRATED_LATER), null, null)
                        .locations(SCHEMA)
                        .load()
                        .migrate());
        assertTrue(e.getMessage().contains("No Flyway database plugin found to handle jdbc:fenced:"), e.getMessage());
    }
}
