package dev.fenced.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.fenced.Actions;
import dev.fenced.Fencing;
import dev.fenced.FencingScope;
import dev.fenced.Lease;
import dev.fenced.LeaseLostException;
import dev.fenced.LeaseManager;
import dev.fenced.UnsupportedStatementException;
import dev.fenced.it.support.Pools;
import dev.fenced.it.support.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Issue 24: nothing fenced sends or installs may depend on the session's search_path. A session that may create
 * an operator in a schema of its own, or only a temp table (TEMP, which PUBLIC has by default), puts it first
 * and tries to land a stale write (token 5) over a row a newer holder (token 20) wrote or deleted. Each write must
 * be refused and leave the row as it was.
 */
@Tag("server-sensitive")
class SearchPathAttackIT {

    /** {@code options=-c search_path=evil,public,pg_catalog}, URL-encoded, as an application could configure it. */
    static final String EVIL_PATH = "options=-c%20search_path%3Devil,public,pg_catalog";

    static TestDatabase db;
    static HikariDataSource pool;

    @BeforeAll
    static void start() throws SQLException {
        db = TestDatabase.create();
        db.execute(
                "CREATE TABLE sp (id int PRIMARY KEY, v int, last_token bigint)",
                "CREATE SCHEMA evil",
                // a '>' on bigint that is never true: the guard's comparison, were it resolved through the path
                "CREATE FUNCTION evil.never(bigint, bigint) RETURNS boolean LANGUAGE sql IMMUTABLE AS 'SELECT false'",
                "CREATE OPERATOR evil.> (LEFTARG = bigint, RIGHTARG = bigint, FUNCTION = evil.never)",
                // and against an integer constant: a Statement's token is written as a literal
                "CREATE FUNCTION evil.never(bigint, int) RETURNS boolean LANGUAGE sql IMMUTABLE AS 'SELECT false'",
                "CREATE OPERATOR evil.> (LEFTARG = bigint, RIGHTARG = int, FUNCTION = evil.never)");
        // an ordinary writer first: fenced's objects (the tombstone table and its checks) are made in public
        pool = Pools.fenced(db, 2, "fenced.tables=sp");
        try (Connection c = pool.getConnection()) {
            c.isValid(1);
        }
    }

    @AfterAll
    static void stop() {
        pool.close();
    }

    @BeforeEach
    void rows() {
        db.clearTombstones();
        db.execute("TRUNCATE sp", "INSERT INTO sp VALUES (1, 0, 20)");
    }

    /** A fenced connection whose search_path puts the attacker's schema before pg_catalog. */
    static Connection evil() throws SQLException {
        return DriverManager.getConnection(db.fencedUrl("fenced.tables=sp", EVIL_PATH));
    }

    static String row() {
        return db.queryLong("SELECT v FROM sp WHERE id = 1") + "/"
                + db.queryLong("SELECT last_token FROM sp WHERE id = 1");
    }

    @Test
    void theEvilPathIsInForce() throws SQLException {
        try (Connection c = evil();
                Statement s = c.createStatement();
                var rs = s.executeQuery(
                        "SELECT pg_catalog.current_setting('search_path'), 20::bigint > 5::bigint, 20::bigint > 5")) {
            rs.next();
            assertEquals("evil,public,pg_catalog", rs.getString(1));
            assertEquals(false, rs.getBoolean(2), "the attacker's > is the one an unqualified > finds");
            assertEquals(false, rs.getBoolean(3), "for an integer constant too");
        }
    }

    @Test
    void aStaleUpdateIsRefused() throws SQLException {
        try (FencingScope ignored = Fencing.bind(5);
                Connection c = evil();
                Statement s = c.createStatement()) {
            assertThrows(SQLException.class, () -> s.executeUpdate("UPDATE sp SET v = 99 WHERE id = 1"));
        }
        assertEquals("0/20", row());
    }

    @Test
    void aStalePreparedUpdateIsRefused() throws SQLException {
        try (FencingScope ignored = Fencing.bind(5);
                Connection c = evil();
                PreparedStatement ps = c.prepareStatement("UPDATE sp SET v = ? WHERE id = ?")) {
            ps.setInt(1, 99);
            ps.setInt(2, 1);
            assertThrows(SQLException.class, ps::executeUpdate);
        }
        assertEquals("0/20", row());
    }

    @Test
    void aStaleDeleteIsRefused() throws SQLException {
        try (FencingScope ignored = Fencing.bind(5);
                Connection c = evil();
                Statement s = c.createStatement()) {
            assertThrows(SQLException.class, () -> s.executeUpdate("DELETE FROM sp WHERE id = 1"));
        }
        assertEquals("0/20", row());
    }

    @Test
    void aStaleUpsertIsRefused() throws SQLException {
        try (FencingScope ignored = Fencing.bind(5);
                Connection c = evil();
                Statement s = c.createStatement()) {
            assertThrows(
                    SQLException.class,
                    () -> s.executeUpdate(
                            "INSERT INTO sp (id, v) VALUES (1, 99) ON CONFLICT (id) DO UPDATE SET v = EXCLUDED.v"));
        }
        assertEquals("0/20", row());
    }

    /**
     * A temp table named like the tombstone table (needs only TEMP; the temp schema comes first in every
     * search_path that does not name it): the insert check must still read the real tombstones.
     */
    @Test
    void aTempTombstoneTableCannotBringADeletedRowBack() throws SQLException {
        try (FencingScope ignored = Fencing.bind(20);
                Connection c = pool.getConnection();
                Statement s = c.createStatement()) {
            assertEquals(1, s.executeUpdate("DELETE FROM sp WHERE id = 1"));
        }
        try (FencingScope ignored = Fencing.bind(5);
                Connection c = DriverManager.getConnection(db.fencedUrl("fenced.tables=sp"));
                Statement s = c.createStatement()) {
            shadowTheTombstones(s);
            assertThrows(SQLException.class, () -> s.executeUpdate("INSERT INTO sp (id, v) VALUES (1, 555)"));
        }
        assertEquals(0, db.queryLong("SELECT count(*) FROM sp WHERE id = 1"), "the deleted row stays deleted");
    }

    /** The same with the attacker's schema first too: the tombstone table is never looked up through the path. */
    @Test
    void aTempTombstoneTableUnderTheEvilPathCannotBringADeletedRowBack() throws SQLException {
        try (FencingScope ignored = Fencing.bind(20);
                Connection c = pool.getConnection();
                Statement s = c.createStatement()) {
            assertEquals(1, s.executeUpdate("DELETE FROM sp WHERE id = 1"));
        }
        try (FencingScope ignored = Fencing.bind(5);
                Connection c = evil();
                Statement s = c.createStatement()) {
            shadowTheTombstones(s);
            assertThrows(SQLException.class, () -> s.executeUpdate("INSERT INTO sp (id, v) VALUES (1, 555)"));
        }
        assertEquals(0, db.queryLong("SELECT count(*) FROM sp WHERE id = 1"), "the deleted row stays deleted");
    }

    /** The newer holder's own writes still work under the attacker's path. */
    @Test
    void theCurrentHolderStillWrites() throws SQLException {
        try (FencingScope ignored = Fencing.bind(30);
                Connection c = evil();
                Statement s = c.createStatement()) {
            assertEquals(1, s.executeUpdate("UPDATE sp SET v = 7 WHERE id = 1"));
            assertEquals(1, s.executeUpdate("DELETE FROM sp WHERE id = 1"));
            assertEquals(1, s.executeUpdate("INSERT INTO sp (id, v) VALUES (1, 8)"));
        }
        assertEquals("8/30", row());
    }

    /**
     * Creates the shadowing temp table in {@code s}'s session. fenced refuses that DDL (defence in depth); a
     * session that runs it unfenced anyway is what the qualification must withstand.
     */
    private static void shadowTheTombstones(Statement s) throws SQLException {
        String shadow = "CREATE TEMP TABLE fenced_tombstone (LIKE public.fenced_tombstone INCLUDING ALL)";
        assertThrows(UnsupportedStatementException.class, () -> s.execute(shadow));
        try {
            Fencing.unfenced(() -> s.execute(shadow));
        } catch (SQLException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * The lease store's SQL under the attacker's path: a {@code <=} on timestamptz that is always true would make
     * every live lease look expired to the takeover, and a second holder would get it while the first still holds
     * it. The store names every operator and function with pg_catalog, so the second holder is refused.
     */
    @Test
    void aLiveLeaseIsNotTakenOverThroughTheSearchPath() throws SQLException {
        db.execute(
                "CREATE FUNCTION evil.always(timestamptz, timestamptz) RETURNS boolean LANGUAGE sql IMMUTABLE AS"
                        + " 'SELECT true'",
                "CREATE OPERATOR evil.<= (LEFTARG = timestamptz, RIGHTARG = timestamptz, FUNCTION = evil.always)");
        PGSimpleDataSource plain = new PGSimpleDataSource();
        plain.setUrl(db.rawUrl());
        try (LeaseManager first = LeaseManager.create(plain)) {
            first.tryAcquire("sp-setup", Duration.ofSeconds(1)).orElseThrow().close(); // the store, in public
        }
        PGSimpleDataSource evil = new PGSimpleDataSource();
        evil.setUrl(db.rawUrl() + (db.rawUrl().contains("?") ? "&" : "?") + EVIL_PATH);
        try (Connection c = evil.getConnection();
                Statement s = c.createStatement();
                var rs = s.executeQuery("SELECT now() + interval '1 hour' <= now()")) {
            rs.next();
            assertEquals(true, rs.getBoolean(1), "the attacker's <= is the one an unqualified <= finds");
        }
        try (LeaseManager a = LeaseManager.create(evil);
                LeaseManager b = LeaseManager.create(evil);
                Lease held = a.tryAcquire("sp-job", Duration.ofSeconds(60)).orElseThrow()) {
            assertEquals(true, b.tryAcquire("sp-job", Duration.ofSeconds(60)).isEmpty(), "a live lease taken over");
            assertEquals(true, held.isValid());
        }
    }

    /** The lease store in public, made by an ordinary holder with the ordinary search_path. */
    static PGSimpleDataSource leaseStore() throws SQLException {
        PGSimpleDataSource plain = new PGSimpleDataSource();
        plain.setUrl(db.rawUrl());
        try (LeaseManager first = LeaseManager.create(plain)) {
            first.tryAcquire("sp-setup", Duration.ofSeconds(1)).orElseThrow().close();
        }
        return plain;
    }

    /** One pooled connection, so what a test does to its session (a temp table) is what the store's calls see. */
    static HikariDataSource onePooledSession(String url, String initSql) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setMaximumPoolSize(1);
        config.setPoolName("sp-one-session");
        config.setConnectionInitSql(initSql);
        return new HikariDataSource(config);
    }

    /**
     * A temp table {@code fenced_lease} (TEMP only: PUBLIC has it by default) in the session of a holder whose store
     * was already set up: the temp schema is searched first for tables, so an unqualified name would send that
     * holder's grants to an empty table of its own, and it would get a lease another holder holds. The store named
     * the table with its schema at set-up, so the temp table is never used.
     */
    @Test
    void aTempLeaseTableMadeAfterSetUpIsNotUsed() throws SQLException {
        PGSimpleDataSource plain = leaseStore();
        try (HikariDataSource one = onePooledSession(db.rawUrl(), null);
                LeaseManager a = LeaseManager.create(plain);
                LeaseManager b = LeaseManager.create(one);
                Lease held =
                        a.tryAcquire("sp-temp-late", Duration.ofSeconds(60)).orElseThrow()) {
            b.tryAcquire("sp-temp-late-warm", Duration.ofSeconds(1))
                    .orElseThrow()
                    .close(); // b's store is set up
            try (Connection c = one.getConnection();
                    Statement s = c.createStatement()) {
                s.execute("CREATE TEMP TABLE fenced_lease (LIKE public.fenced_lease INCLUDING ALL)");
            }
            assertEquals(
                    true, b.tryAcquire("sp-temp-late", Duration.ofSeconds(60)).isEmpty(), "a live lease granted twice");
            assertTokensGoOnFromThePublicStore(b, held, "sp-temp-late-other");
        }
    }

    /** The same temp table there before the store's set-up: it is neither used nor taken for a second lease table. */
    @Test
    void aTempLeaseTableAtSetUpIsIgnored() throws SQLException {
        PGSimpleDataSource plain = leaseStore();
        try (HikariDataSource one = onePooledSession(
                        db.rawUrl(), "CREATE TEMP TABLE fenced_lease (LIKE public.fenced_lease INCLUDING ALL)");
                LeaseManager a = LeaseManager.create(plain);
                LeaseManager b = LeaseManager.create(one);
                Lease held =
                        a.tryAcquire("sp-temp-early", Duration.ofSeconds(60)).orElseThrow()) {
            assertEquals(
                    true,
                    b.tryAcquire("sp-temp-early", Duration.ofSeconds(60)).isEmpty(),
                    "a live lease granted twice");
            assertTokensGoOnFromThePublicStore(b, held, "sp-temp-early-other");
        }
    }

    /**
     * A holder whose connections put a schema of their own first ({@code options=-c search_path=shadow,public}) and
     * a lease table and sequence made there after its store was set up, the sequence started again at 1: through the
     * search_path its grants would reach that table, holding a lease the other holders hold, with tokens below
     * theirs. The store keeps the schema it found at set-up.
     */
    @Test
    void aLeaseTableMadeLaterEarlierInTheSearchPathIsNotUsed() throws SQLException {
        PGSimpleDataSource plain = leaseStore();
        db.execute("CREATE SCHEMA shadow");
        try {
            PGSimpleDataSource shadowed = new PGSimpleDataSource();
            shadowed.setUrl(
                    db.rawUrl() + (db.rawUrl().contains("?") ? "&" : "?") + "options=-c%20search_path%3Dshadow,public");
            try (LeaseManager a = LeaseManager.create(plain);
                    LeaseManager b = LeaseManager.create(shadowed);
                    Lease held =
                            a.tryAcquire("sp-shadow", Duration.ofSeconds(60)).orElseThrow()) {
                b.tryAcquire("sp-shadow-warm", Duration.ofSeconds(1))
                        .orElseThrow()
                        .close(); // b's store is set up
                db.execute(
                        "CREATE TABLE shadow.fenced_lease (LIKE public.fenced_lease INCLUDING ALL)",
                        "CREATE SEQUENCE shadow.fenced_lease_token_seq CACHE 1");
                assertEquals(
                        true,
                        b.tryAcquire("sp-shadow", Duration.ofSeconds(60)).isEmpty(),
                        "a live lease granted twice");
                assertTokensGoOnFromThePublicStore(b, held, "sp-shadow-other");
                assertEquals(0, db.queryLong("SELECT count(*) FROM shadow.fenced_lease"), "the shadow table was used");
            }
        } finally {
            db.execute("DROP SCHEMA shadow CASCADE");
        }
    }

    /**
     * {@code Actions} checks the caller's token against the lease table: a temp table {@code fenced_lease} holding a
     * forged live row for a stale token (TEMP only) would vouch for it, and the action would run. The action store
     * names the lease table with its schema, so the stale token is refused and the action does not run.
     */
    @Test
    void aTempLeaseTableCannotVouchForAStaleAction() throws SQLException {
        leaseStore();
        String forge = "CREATE TEMP TABLE fenced_lease (LIKE public.fenced_lease INCLUDING ALL);"
                + " INSERT INTO fenced_lease VALUES ('forged', 'me', 5, now(), now(), 'infinity')";
        AtomicBoolean ran = new AtomicBoolean();
        try (HikariDataSource one = onePooledSession(db.rawUrl(), forge);
                FencingScope ignored = Fencing.bind(5)) {
            assertThrows(LeaseLostException.class, () -> Actions.once(one, "sp-forged", () -> ran.set(true)));
        }
        assertEquals(false, ran.get(), "a stale holder's action ran");
    }

    /** {@code b}'s next grant draws from public's sequence and lands in public's table, above {@code held}. */
    private static void assertTokensGoOnFromThePublicStore(LeaseManager b, Lease held, String name)
            throws SQLException {
        try (Lease other = b.tryAcquire(name, Duration.ofSeconds(60)).orElseThrow()) {
            assertTrue(other.token() > held.token(), other.token() + " is not above " + held.token());
            assertEquals(
                    other.token(),
                    db.queryLong("SELECT token FROM public.fenced_lease WHERE name = '" + name + "'"),
                    "the grant is in public.fenced_lease");
        }
    }
}
