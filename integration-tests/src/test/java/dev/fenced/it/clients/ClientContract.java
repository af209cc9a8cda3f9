package dev.fenced.it.clients;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.fenced.Fencing;
import dev.fenced.FencingScope;
import dev.fenced.StaleTokenException;
import dev.fenced.it.support.TestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.function.Executable;

/**
 * What every data-access client must show on a protected table, written once: a current holder's
 * update, insert, upsert and delete land with its token; after a newer holder wrote, a stale holder's
 * update, upsert and delete are refused, the library's exception carries {@link StaleTokenException},
 * and no row changes. Each client implements the four writes the way its users write them.
 *
 * <p>Rows at the start of every test: {@code (1, 10, token 5), (2, 20, token 5), (3, 30, token 9)}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class ClientContract {

    static final String TOTALS =
            "CREATE TABLE totals (restaurant_id int PRIMARY KEY, amount bigint NOT NULL," + " last_token bigint)";

    protected TestDatabase db;

    /** Builds the client on {@code db}, whose tables exist (see {@link #schema()}). */
    protected abstract void open() throws Exception;

    protected abstract void close() throws Exception;

    /** UPDATE totals SET amount = ? WHERE restaurant_id = ?, the library's way; returns the row count. */
    protected abstract int update(int id, long amount) throws Exception;

    /** INSERT of a new totals row. */
    protected abstract void insert(int id, long amount) throws Exception;

    /** INSERT ... ON CONFLICT (restaurant_id) DO UPDATE, or the library's upsert. */
    protected abstract void upsert(int id, long amount) throws Exception;

    /** DELETE of one row by id; returns the row count. */
    protected abstract int delete(int id) throws Exception;

    /** DDL for the test database; subclasses may add tables. */
    protected String[] schema() {
        return new String[] {TOTALS};
    }

    @BeforeAll
    void start() throws Exception {
        db = TestDatabase.create();
        db.execute(schema());
        open();
    }

    @AfterAll
    void stop() throws Exception {
        close();
    }

    @BeforeEach
    void rows() {
        db.clearTombstones(); // rows deleted by a test come back with their old tokens
        db.execute("TRUNCATE totals", "INSERT INTO totals VALUES (1, 10, 5), (2, 20, 5), (3, 30, 9)");
    }

    /** Runs {@code work} with {@code token} bound to this thread. */
    protected static void as(long token, Executable work) throws Throwable {
        try (FencingScope ignored = Fencing.bind(token)) {
            work.execute();
        }
    }

    /** Runs {@code work} as a stale holder: it must fail with fenced's refusal inside, and change no row. */
    protected StaleTokenException refusedAsStale(long token, Executable work) {
        String before = Rows.totals(db);
        Throwable thrown;
        try (FencingScope ignored = Fencing.bind(token)) {
            thrown = assertThrows(Throwable.class, work);
        }
        StaleTokenException stale = Rows.stale(thrown);
        assertEquals(token, stale.token());
        assertEquals(StaleTokenException.SQLSTATE, stale.getSQLState());
        assertEquals(before, Rows.totals(db), "a refused write changed rows");
        return stale;
    }

    @Test
    void aCurrentHolderUpdatesWithItsToken() throws Throwable {
        as(9, () -> assertEquals(1, update(1, 100)));
        assertEquals("1:100:9,2:20:5,3:30:9", Rows.totals(db));
    }

    @Test
    void aCurrentHolderInsertsWithItsToken() throws Throwable {
        as(9, () -> insert(4, 40));
        assertEquals("1:10:5,2:20:5,3:30:9,4:40:9", Rows.totals(db));
    }

    @Test
    void aCurrentHolderUpsertsWithItsTokenOnBothPaths() throws Throwable {
        as(9, () -> {
            upsert(2, 22); // conflict: the guarded update path
            upsert(5, 50); // no conflict: the insert path
        });
        assertEquals("1:10:5,2:22:9,3:30:9,5:50:9", Rows.totals(db));
    }

    @Test
    void aCurrentHolderDeletes() throws Throwable {
        as(9, () -> assertEquals(1, delete(3)));
        assertEquals("1:10:5,2:20:5", Rows.totals(db));
    }

    @Test
    void aWhereMatchingNothingIsZeroRowsNotAnError() throws Throwable {
        as(9, () -> {
            assertEquals(0, update(42, 1));
            assertEquals(0, delete(42));
        });
    }

    @Test
    void aStaleHolderCannotUpdate() throws Throwable {
        as(12, () -> update(1, 111));
        StaleTokenException e = refusedAsStale(11, () -> update(1, 999));
        assertEquals(12, e.rowToken());
        assertEquals("totals", e.table());
        assertEquals("1:111:12,2:20:5,3:30:9", Rows.totals(db));
    }

    @Test
    void aStaleHolderCannotUpsertOverANewerRow() throws Throwable {
        as(12, () -> upsert(2, 222));
        refusedAsStale(11, () -> upsert(2, 999));
        assertEquals(222, Rows.amount(db, 2));
        assertEquals(12, Rows.token(db, 2));
    }

    @Test
    void aStaleHolderCannotDelete() throws Throwable {
        refusedAsStale(8, () -> delete(3));
        assertEquals(3, db.queryLong("SELECT count(*) FROM totals"));
    }
}
