package dev.fenced.it.clients;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.StaleTokenException;
import dev.fenced.UnsupportedStatementException;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.OptimisticLockException;
import jakarta.persistence.Table;
import jakarta.persistence.Version;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.hibernate.Session;
import org.hibernate.SessionEventListener;
import org.hibernate.SessionFactory;
import org.hibernate.StaleObjectStateException;
import org.hibernate.annotations.Generated;
import org.hibernate.cfg.AvailableSettings;
import org.hibernate.cfg.Configuration;
import org.hibernate.exception.GenericJDBCException;
import org.hibernate.generator.EventType;
import org.junit.jupiter.api.Test;

/**
 * Hibernate ORM {@value #VERSION} on {@code hibernate.connection.url = jdbc:fenced:postgresql:...} (its
 * built-in pool), with SQL comments on, JDBC batching,
 * and schema validation through the fenced connection's metadata. The token column is mapped read-only
 * and {@code @Generated}, so Hibernate appends {@code returning last_token} and the entity learns the token
 * its row got; an entity mapping it writable is refused.
 */
class HibernateIT extends ClientContract {

    static final String VERSION = "7.4.16.Final";

    /** The recommended mapping: the fence column read-only, refreshed by RETURNING on every write. */
    @Entity(name = "Total")
    @Table(name = "totals")
    public static class Total {
        @Id
        @Column(name = "restaurant_id")
        Integer id;

        long amount;

        @Generated(event = {EventType.INSERT, EventType.UPDATE})
        @Column(name = "last_token", insertable = false, updatable = false)
        Long lastToken;

        protected Total() {}

        Total(int id, long amount) {
            this.id = id;
            this.amount = amount;
        }
    }

    /**
     * The other acceptable mapping: the fence column not mapped at all. Used for StatelessSession.upsert,
     * which Hibernate cannot combine with {@code @Generated} on update (it fails so on plain pgjdbc too).
     */
    @Entity(name = "PlainTotal")
    @Table(name = "totals")
    public static class PlainTotal {
        @Id
        @Column(name = "restaurant_id")
        Integer id;

        long amount;

        protected PlainTotal() {}

        PlainTotal(int id, long amount) {
            this.id = id;
            this.amount = amount;
        }
    }

    /** Optimistic locking and fencing side by side; the fence column not mapped at all. */
    @Entity(name = "VersionedTotal")
    @Table(name = "versioned_totals")
    public static class VersionedTotal {
        @Id
        @Column(name = "restaurant_id")
        Integer id;

        long amount;

        @Version
        int version;

        protected VersionedTotal() {}
    }

    /** Assigned ids and no generated columns: Hibernate batches these inserts and updates. */
    @Entity(name = "Sale")
    @Table(name = "sales")
    public static class Sale {
        @Id
        Long id;

        @Column(name = "restaurant_id")
        int restaurantId;

        long amount;

        protected Sale() {}

        Sale(long id, int restaurantId, long amount) {
            this.id = id;
            this.restaurantId = restaurantId;
            this.amount = amount;
        }
    }

    /** The mapping not to use: the writer would choose the token. */
    @Entity(name = "WritableTokenTotal")
    @Table(name = "totals")
    public static class WritableTokenTotal {
        @Id
        @Column(name = "restaurant_id")
        Integer id;

        long amount;

        @Column(name = "last_token")
        Long lastToken;

        protected WritableTokenTotal() {}
    }

    SessionFactory sessions;

    @Override
    protected String[] schema() {
        return new String[] {
            TOTALS,
            "CREATE TABLE versioned_totals (restaurant_id int PRIMARY KEY, amount bigint NOT NULL,"
                    + " version int NOT NULL, last_token bigint)",
            "CREATE TABLE sales (id bigint PRIMARY KEY, restaurant_id int NOT NULL, amount bigint NOT NULL,"
                    + " last_token bigint)"
        };
    }

    @Override
    protected void open() {
        sessions = new Configuration()
                .addAnnotatedClass(Total.class)
                .addAnnotatedClass(PlainTotal.class)
                .addAnnotatedClass(VersionedTotal.class)
                .addAnnotatedClass(Sale.class)
                .addAnnotatedClass(WritableTokenTotal.class)
                .setProperty(
                        AvailableSettings.JAKARTA_JDBC_URL, db.fencedUrl("fenced.tables=totals,versioned_totals,sales"))
                .setProperty(AvailableSettings.POOL_SIZE, "2")
                .setProperty(AvailableSettings.HBM2DDL_AUTO, "validate")
                .setProperty(AvailableSettings.STATEMENT_BATCH_SIZE, "20")
                .setProperty(AvailableSettings.ORDER_INSERTS, "true")
                .setProperty(AvailableSettings.ORDER_UPDATES, "true")
                .setProperty(AvailableSettings.USE_SQL_COMMENTS, "true")
                .buildSessionFactory();
    }

    @Override
    protected void close() {
        sessions.close();
    }

    @Override
    protected int update(int id, long amount) {
        return sessions.fromTransaction(s -> {
            Total t = s.find(Total.class, id);
            if (t == null) {
                return 0;
            }
            t.amount = amount;
            return 1;
        });
    }

    @Override
    protected void insert(int id, long amount) {
        sessions.inTransaction(s -> s.persist(new Total(id, amount)));
    }

    @Override
    protected void upsert(int id, long amount) {
        // StatelessSession.upsert: insert ... on conflict (restaurant_id) do update set amount=excluded.amount
        sessions.inStatelessTransaction(s -> s.upsert(new PlainTotal(id, amount)));
    }

    @Override
    protected int delete(int id) {
        return sessions.fromTransaction(s -> {
            Total t = s.find(Total.class, id);
            if (t == null) {
                return 0;
            }
            s.remove(t);
            return 1;
        });
    }

    @Test
    void aStaleFlushIsAGenericJdbcExceptionAndTheTransactionRollsBack() throws Throwable {
        as(12, () -> update(1, 111));
        // Token 11 may write row 2 (token 5) but not row 1 (12): the flush fails, the whole transaction goes.
        GenericJDBCException e = assertThrows(
                GenericJDBCException.class,
                () -> as(
                        11,
                        () -> sessions.inTransaction(s -> {
                            s.find(Total.class, 2).amount = 222;
                            s.persist(new Total(6, 66));
                            s.find(Total.class, 1).amount = 999;
                        })));
        StaleTokenException stale = assertInstanceOf(StaleTokenException.class, e.getSQLException());
        assertEquals(12, stale.rowToken());
        assertTrue(e.getMessage().contains("stale write refused on table totals"), e.getMessage());
        assertEquals("1:111:12,2:20:5,3:30:9", Rows.totals(db));
    }

    @Test
    void theEntityLearnsItsRowsTokenThroughReturning() throws Throwable {
        as(
                9,
                () -> sessions.inTransaction(s -> {
                    Total fresh = new Total(8, 80);
                    s.persist(fresh);
                    s.flush();
                    assertEquals(9L, fresh.lastToken); // insert ... returning last_token
                    Total one = s.find(Total.class, 1);
                    assertEquals(5L, one.lastToken);
                    one.amount = 11;
                    s.flush();
                    assertEquals(9L, one.lastToken); // update ... returning last_token
                }));
    }

    @Test
    void jdbcBatchesOfInsertsAndUpdatesCarryTheToken() throws Throwable {
        db.execute("TRUNCATE sales");
        AtomicInteger batches = new AtomicInteger();
        SessionEventListener countBatches = new SessionEventListener() {
            @Override
            public void jdbcExecuteBatchStart() {
                batches.incrementAndGet();
            }
        };
        as(9, () -> {
            try (Session s = sessions.withOptions().eventListeners(countBatches).openSession()) {
                s.getTransaction().begin();
                for (long i = 1; i <= 45; i++) {
                    s.persist(new Sale(i, (int) (i % 3) + 1, i * 10));
                }
                s.getTransaction().commit();
            }
        });
        // 45 inserts in JDBC batches of 20: three executeBatch calls, not 45 statements.
        assertEquals(3, batches.get());
        assertEquals(45, db.queryLong("SELECT count(*) FROM sales WHERE last_token = 9"));
        as(
                10,
                () -> sessions.inTransaction(s -> {
                    for (Sale sale :
                            s.createSelectionQuery("from Sale", Sale.class).getResultList()) {
                        sale.amount += 1;
                    }
                }));
        assertEquals(45, db.queryLong("SELECT count(*) FROM sales WHERE last_token = 10"));
    }

    @Test
    void aStaleRowInAJdbcBatchFailsTheWholeFlush() throws Throwable {
        db.execute("TRUNCATE sales");
        as(
                9,
                () -> sessions.inTransaction(s -> {
                    for (long i = 1; i <= 30; i++) {
                        s.persist(new Sale(i, 1, i));
                    }
                }));
        db.execute("UPDATE sales SET last_token = 11 WHERE id = 17"); // a newer holder got to one row
        String before = Rows.snapshot(db, "SELECT id, amount, last_token FROM sales ORDER BY id");
        Throwable e = assertThrows(
                Throwable.class,
                () -> as(
                        10,
                        () -> sessions.inTransaction(s -> {
                            for (Sale sale : s.createSelectionQuery("from Sale", Sale.class)
                                    .getResultList()) {
                                sale.amount = 0;
                            }
                        })));
        assertEquals(11, Rows.stale(e).rowToken());
        assertEquals(before, Rows.snapshot(db, "SELECT id, amount, last_token FROM sales ORDER BY id"));
    }

    @Test
    void versionChecksAndTokenChecksBothHold() throws Throwable {
        db.execute("TRUNCATE versioned_totals", "INSERT INTO versioned_totals VALUES (1, 10, 0, 5)");
        // A current holder: version and token move together.
        as(9, () -> sessions.inTransaction(s -> s.find(VersionedTotal.class, 1).amount = 11));
        assertEquals("1:11:1:9", Rows.snapshot(db, "SELECT * FROM versioned_totals"));

        // Stale data, newer token: the version check refuses (the fence never sees a matching row).
        VersionedTotal old = sessions.fromTransaction(s -> s.find(VersionedTotal.class, 1));
        as(12, () -> sessions.inTransaction(s -> s.find(VersionedTotal.class, 1).amount = 12));
        Throwable versionFailure = assertThrows(
                Throwable.class,
                () -> as(
                        13,
                        () -> sessions.inTransaction(s -> {
                            old.amount = 13;
                            s.merge(old);
                        })));
        assertTrue(
                Rows.find(versionFailure, StaleObjectStateException.class) != null
                        || Rows.find(versionFailure, OptimisticLockException.class) != null,
                Rows.chain(versionFailure));
        assertNull(Rows.find(versionFailure, StaleTokenException.class));
        assertEquals("1:12:2:12", Rows.snapshot(db, "SELECT * FROM versioned_totals"));

        // Fresh data, stale token: only the fence can tell, and it refuses.
        Throwable fenceFailure = assertThrows(
                Throwable.class,
                () -> as(11, () -> sessions.inTransaction(s -> s.find(VersionedTotal.class, 1).amount = 14)));
        assertEquals(12, Rows.stale(fenceFailure).rowToken());
        assertEquals("1:12:2:12", Rows.snapshot(db, "SELECT * FROM versioned_totals"));

        // And deleting a versioned entity is fenced too.
        refusedAsStale(11, () -> sessions.inTransaction(s -> s.remove(s.find(VersionedTotal.class, 1))));
        as(12, () -> sessions.inTransaction(s -> s.remove(s.find(VersionedTotal.class, 1))));
        assertEquals(0, db.queryLong("SELECT count(*) FROM versioned_totals"));
    }

    @Test
    void hqlBulkUpdatesAndDeletesAreFenced() throws Throwable {
        as(
                9,
                () -> assertEquals(2, (int) sessions.fromTransaction(
                        s -> s.createMutationQuery("update Total t set t.amount = :amount where t.id in (:ids)")
                                .setParameter("amount", 7L)
                                .setParameter("ids", List.of(1, 2))
                                .executeUpdate())));
        assertEquals("1:7:9,2:7:9,3:30:9", Rows.totals(db));
        refusedAsStale(
                8,
                () -> sessions.inTransaction(
                        s -> s.createMutationQuery("update Total set amount = :amount where amount < 100")
                                .setParameter("amount", 0L)
                                .executeUpdate()));
        refusedAsStale(
                8,
                () -> sessions.inTransaction(s -> s.createMutationQuery("delete from Total where id = :id")
                        .setParameter("id", 3)
                        .executeUpdate()));
        as(
                9,
                () -> assertEquals(
                        1, (int) sessions.fromTransaction(s -> s.createMutationQuery("delete from Total where id = :id")
                                .setParameter("id", 3)
                                .executeUpdate())));
        assertEquals("1:7:9,2:7:9", Rows.totals(db));
    }

    @Test
    void hqlInsertOnConflictIsFencedOnItsUpdatePath() throws Throwable {
        String upsert = "insert into Total (id, amount) values (:id, :amount)"
                + " on conflict(id) do update set amount = excluded.amount";
        as(
                9,
                () -> sessions.inTransaction(s -> {
                    s.createMutationQuery(upsert)
                            .setParameter("id", 1)
                            .setParameter("amount", 100L)
                            .executeUpdate();
                    s.createMutationQuery(upsert)
                            .setParameter("id", 9)
                            .setParameter("amount", 900L)
                            .executeUpdate();
                }));
        assertEquals("1:100:9,2:20:5,3:30:9,9:900:9", Rows.totals(db));
        refusedAsStale(
                8,
                () -> sessions.inTransaction(s -> s.createMutationQuery(upsert)
                        .setParameter("id", 3)
                        .setParameter("amount", 0L)
                        .executeUpdate()));
    }

    @Test
    void nativeMutationQueriesAreFenced() throws Throwable {
        as(
                9,
                () -> sessions.inTransaction(
                        s -> s.createNativeMutationQuery("UPDATE totals SET amount = :amount WHERE restaurant_id = :id")
                                .setParameter("amount", 1L)
                                .setParameter("id", 2)
                                .executeUpdate()));
        assertEquals(9, Rows.token(db, 2));
        refusedAsStale(
                8,
                () -> sessions.inTransaction(
                        s -> s.createNativeMutationQuery("UPDATE totals SET amount = :amount WHERE restaurant_id = :id")
                                .setParameter("amount", 1L)
                                .setParameter("id", 3)
                                .executeUpdate()));
    }

    @Test
    void anEntityMappingTheFenceColumnWritableIsRefused() {
        Throwable onInsert = assertThrows(
                Throwable.class,
                () -> as(
                        9,
                        () -> sessions.inTransaction(s -> {
                            WritableTokenTotal t = new WritableTokenTotal();
                            t.id = 20;
                            t.amount = 1;
                            s.persist(t);
                        })));
        UnsupportedStatementException refused = Rows.find(onInsert, UnsupportedStatementException.class);
        assertNotNull(refused, Rows.chain(onInsert));
        assertTrue(refused.getMessage().contains("sets the fence column last_token itself"), refused.getMessage());

        Throwable onUpdate = assertThrows(
                Throwable.class,
                () -> as(9, () -> sessions.inTransaction(s -> s.find(WritableTokenTotal.class, 1).amount = 2)));
        assertNotNull(Rows.find(onUpdate, UnsupportedStatementException.class), Rows.chain(onUpdate));
        assertEquals("1:10:5,2:20:5,3:30:9", Rows.totals(db));
    }
}
