package dev.fenced.it.clients;

import static org.jooq.impl.DSL.excluded;
import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.name;
import static org.jooq.impl.DSL.table;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.zaxxer.hikari.HikariDataSource;
import dev.fenced.StaleTokenException;
import dev.fenced.internal.sql.StaleMarker;
import dev.fenced.it.support.Pools;
import java.util.List;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.Record2;
import org.jooq.Result;
import org.jooq.SQLDialect;
import org.jooq.Table;
import org.jooq.conf.Settings;
import org.jooq.conf.StatementType;
import org.jooq.exception.DataAccessException;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;

/**
 * jOOQ {@value #VERSION} (the newest line for Java 17), without code generation but naming everything
 * the way generated code does: schema-qualified, quoted ({@code update "public"."totals" set "amount" = ?
 * where "public"."totals"."restaurant_id" = ?}). Covers ON CONFLICT DO UPDATE, RETURNING, aliases,
 * bind-value batches, batches of different statements, and inlined (static) statements.
 */
class JooqIT extends ClientContract {

    static final String VERSION = "3.19.39";

    static final Table<Record> TOTALS = table(name("public", "totals"));
    static final Field<Integer> ID = field(name("public", "totals", "restaurant_id"), Integer.class);
    static final Field<Long> AMOUNT = field(name("public", "totals", "amount"), Long.class);
    static final Field<Long> LAST_TOKEN = field(name("public", "totals", "last_token"), Long.class);

    HikariDataSource pool;
    DSLContext ctx;

    @Override
    protected void open() {
        pool = Pools.fenced(db, 2, "fenced.tables=totals");
        ctx = DSL.using(pool, SQLDialect.POSTGRES);
    }

    @Override
    protected void close() {
        pool.close();
    }

    @Override
    protected int update(int id, long amount) {
        return ctx.update(TOTALS).set(AMOUNT, amount).where(ID.eq(id)).execute();
    }

    @Override
    protected void insert(int id, long amount) {
        ctx.insertInto(TOTALS, ID, AMOUNT).values(id, amount).execute();
    }

    @Override
    protected void upsert(int id, long amount) {
        ctx.insertInto(TOTALS, ID, AMOUNT)
                .values(id, amount)
                .onConflict(ID)
                .doUpdate()
                .set(AMOUNT, excluded(AMOUNT))
                .execute();
    }

    @Override
    protected int delete(int id) {
        return ctx.deleteFrom(TOTALS).where(ID.eq(id)).execute();
    }

    @Test
    void theSqlIsQuotedAndSchemaQualifiedAndFenced() {
        String sql = ctx.update(TOTALS).set(AMOUNT, 1L).where(ID.eq(1)).getSQL();
        assertEquals(
                "update \"public\".\"totals\" set \"amount\" = ? where \"public\".\"totals\".\"restaurant_id\" = ?",
                sql);
        String sent = ctx.connectionResult(c -> c.nativeSQL(sql));
        assertEquals(
                "update \"public\".\"totals\" set \"amount\" = ?, last_token = CASE WHEN pg_catalog.int8gt(last_token,"
                        + " ?) THEN pg_catalog.pg_size_bytes(pg_catalog.concat('fenced-stale:', last_token, ':"
                        + StaleMarker.nonce() + ":totals')) ELSE ? END"
                        + " where \"public\".\"totals\".\"restaurant_id\" = ?",
                sent);
    }

    @Test
    void aStaleWriteIsJooqsDataAccessExceptionWithFencedsStateAndCause() throws Throwable {
        as(12, () -> update(1, 1));
        DataAccessException e = assertThrows(DataAccessException.class, () -> as(11, () -> update(1, 2)));
        assertEquals("FN001", e.sqlState());
        assertInstanceOf(StaleTokenException.class, e.getCause());
        assertEquals(12, Rows.token(db, 1));
    }

    @Test
    void returningGivesBackTheTokenTheRowGot() throws Throwable {
        as(9, () -> {
            Record2<Integer, Long> inserted = ctx.insertInto(TOTALS, ID, AMOUNT)
                    .values(4, 40L)
                    .returningResult(ID, LAST_TOKEN)
                    .fetchOne();
            assertNotNull(inserted);
            assertEquals(9L, inserted.value2());
            Result<Record2<Integer, Long>> updated = ctx.update(TOTALS)
                    .set(AMOUNT, 0L)
                    .where(ID.in(1, 2))
                    .returningResult(ID, LAST_TOKEN)
                    .fetch();
            assertEquals(List.of(9L, 9L), updated.getValues(LAST_TOKEN));
            Record2<Integer, Long> upserted = ctx.insertInto(TOTALS, ID, AMOUNT)
                    .values(3, 33L)
                    .onConflict(ID)
                    .doUpdate()
                    .set(AMOUNT, excluded(AMOUNT))
                    .returningResult(ID, LAST_TOKEN)
                    .fetchOne();
            assertEquals(9L, upserted.value2());
            assertEquals(
                    List.of(4),
                    ctx.deleteFrom(TOTALS)
                            .where(ID.eq(4))
                            .returningResult(ID)
                            .fetch()
                            .getValues(ID));
        });
        assertEquals("1:0:9,2:0:9,3:33:9", Rows.totals(db));
        refusedAsStale(
                8,
                () -> ctx.update(TOTALS)
                        .set(AMOUNT, 5L)
                        .where(ID.eq(3))
                        .returningResult(ID)
                        .fetch());
    }

    @Test
    void anAliasedTableIsFenced() throws Throwable {
        Table<Record> t = TOTALS.as("t");
        Field<Long> amount = field(name("t", "amount"), Long.class);
        Field<Integer> id = field(name("t", "restaurant_id"), Integer.class);
        as(
                9,
                () -> assertEquals(
                        1, ctx.update(t).set(amount, 7L).where(id.eq(1)).execute()));
        assertEquals("1:7:9", Rows.snapshot(db, "SELECT * FROM totals WHERE restaurant_id = 1"));
        refusedAsStale(8, () -> ctx.update(t).set(amount, 8L).where(id.eq(3)).execute());
        refusedAsStale(8, () -> ctx.deleteFrom(t).where(id.gt(0)).execute());
    }

    @Test
    void bindValueBatchesShareOneFencedStatement() throws Throwable {
        as(
                9,
                () -> assertArrayEquals(
                        new int[] {1, 1, 1},
                        ctx.batch(ctx.update(TOTALS).set(AMOUNT, (Long) null).where(ID.eq((Integer) null)))
                                .bind(101L, 1)
                                .bind(102L, 2)
                                .bind(103L, 3)
                                .execute()));
        assertEquals("1:101:9,2:102:9,3:103:9", Rows.totals(db));
        refusedAsStale(
                8,
                () -> ctx.batch(ctx.update(TOTALS).set(AMOUNT, (Long) null).where(ID.eq((Integer) null)))
                        .bind(0L, 1)
                        .bind(0L, 2)
                        .bind(0L, 3)
                        .execute());
    }

    @Test
    void batchesOfDifferentStatementsAreFencedOneByOne() throws Throwable {
        // jOOQ sends these through java.sql.Statement.addBatch with the values inlined.
        as(
                9,
                () -> ctx.batch(
                                ctx.update(TOTALS).set(AMOUNT, 1L).where(ID.eq(1)),
                                ctx.insertInto(TOTALS, ID, AMOUNT).values(6, 60L),
                                ctx.deleteFrom(TOTALS).where(ID.eq(2)))
                        .execute());
        assertEquals("1:1:9,3:30:9,6:60:9", Rows.totals(db));
        refusedAsStale(
                8,
                () -> ctx.batch(
                                ctx.update(TOTALS).set(AMOUNT, 2L).where(ID.eq(1)),
                                ctx.update(TOTALS).set(AMOUNT, 3L).where(ID.eq(3)))
                        .execute());
    }

    @Test
    void inlinedStaticStatementsAreFencedToo() throws Throwable {
        DSLContext inline =
                DSL.using(pool, SQLDialect.POSTGRES, new Settings().withStatementType(StatementType.STATIC_STATEMENT));
        as(9, () -> {
            assertEquals(
                    1, inline.update(TOTALS).set(AMOUNT, 5L).where(ID.eq(1)).execute());
            inline.insertInto(TOTALS, ID, AMOUNT)
                    .values(2, 0L)
                    .onConflict(ID)
                    .doUpdate()
                    .set(AMOUNT, excluded(AMOUNT))
                    .execute();
        });
        assertEquals("1:5:9,2:0:9,3:30:9", Rows.totals(db));
        refusedAsStale(
                8, () -> inline.update(TOTALS).set(AMOUNT, 6L).where(ID.eq(3)).execute());
    }

    @Test
    void mergeIsFenced() throws Throwable {
        // PostgreSQL 15+ MERGE: each action fenced (guarded SET, token in the INSERT); a stale one changes nothing.
        as(
                9,
                () -> ctx.mergeInto(TOTALS)
                        .using(DSL.selectOne())
                        .on(ID.eq(1))
                        .whenMatchedThenUpdate()
                        .set(AMOUNT, 0L)
                        .whenNotMatchedThenInsert(ID, AMOUNT)
                        .values(1, 0L)
                        .execute());
        assertEquals("1:0:9,2:20:5,3:30:9", Rows.totals(db));
        refusedAsStale(
                8,
                () -> ctx.mergeInto(TOTALS)
                        .using(DSL.selectOne())
                        .on(ID.eq(1))
                        .whenMatchedThenUpdate()
                        .set(AMOUNT, 7L)
                        .whenNotMatchedThenInsert(ID, AMOUNT)
                        .values(1, 7L)
                        .execute());
        assertEquals("1:0:9,2:20:5,3:30:9", Rows.totals(db));
    }
}
