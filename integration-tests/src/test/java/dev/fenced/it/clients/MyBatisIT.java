package dev.fenced.it.clients;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.StaleTokenException;
import java.util.List;
import org.apache.ibatis.annotations.Delete;
import org.apache.ibatis.annotations.Insert;
import org.apache.ibatis.annotations.Options;
import org.apache.ibatis.annotations.Param;
import org.apache.ibatis.annotations.Select;
import org.apache.ibatis.annotations.Update;
import org.apache.ibatis.datasource.pooled.PooledDataSource;
import org.apache.ibatis.exceptions.PersistenceException;
import org.apache.ibatis.mapping.Environment;
import org.apache.ibatis.session.Configuration;
import org.apache.ibatis.session.ExecutorType;
import org.apache.ibatis.session.SqlSession;
import org.apache.ibatis.session.SqlSessionFactory;
import org.apache.ibatis.session.SqlSessionFactoryBuilder;
import org.apache.ibatis.transaction.jdbc.JdbcTransactionFactory;
import org.junit.jupiter.api.Test;

/**
 * MyBatis {@value #VERSION} with its own pooled data source on {@code driver=dev.fenced.FencedDriver},
 * {@code url=jdbc:fenced:postgresql:...} (what a mybatis-config.xml {@code <dataSource type="POOLED">}
 * says), annotation mappers with {@code #{}} parameters, dynamic {@code <script>} SQL, generated keys,
 * RETURNING through {@code @Select}, and the BATCH executor.
 */
class MyBatisIT extends ClientContract {

    static final String VERSION = "3.5.19";

    /** An order row, for generated keys. */
    public static class Order {
        Integer id;
        int restaurantId;
        long amount;

        public Order() {}

        Order(int restaurantId, long amount) {
            this.restaurantId = restaurantId;
            this.amount = amount;
        }

        public Integer getId() {
            return id;
        }

        public void setId(Integer id) {
            this.id = id;
        }

        public int getRestaurantId() {
            return restaurantId;
        }

        public long getAmount() {
            return amount;
        }
    }

    /** A row to insert in a multi-row VALUES. */
    public record Row(int id, long amount) {}

    public interface TotalsMapper {
        @Update("UPDATE totals SET amount = #{amount} WHERE restaurant_id = #{id}")
        int update(@Param("id") int id, @Param("amount") long amount);

        @Insert("INSERT INTO totals (restaurant_id, amount) VALUES (#{id}, #{amount})")
        int insert(@Param("id") int id, @Param("amount") long amount);

        @Insert("INSERT INTO totals (restaurant_id, amount) VALUES (#{id}, #{amount})"
                + " ON CONFLICT (restaurant_id) DO UPDATE SET amount = EXCLUDED.amount")
        int upsert(@Param("id") int id, @Param("amount") long amount);

        @Delete("DELETE FROM totals WHERE restaurant_id = #{id}")
        int delete(@Param("id") int id);

        @Update({
            "<script>",
            "UPDATE totals",
            "<set>",
            "  <if test='amount != null'>amount = #{amount},</if>",
            "  <if test='note != null'>note = #{note},</if>",
            "</set>",
            "WHERE restaurant_id IN",
            "<foreach collection='ids' item='id' open='(' separator=',' close=')'>#{id}</foreach>",
            "</script>"
        })
        int patch(@Param("ids") List<Integer> ids, @Param("amount") Long amount, @Param("note") String note);

        @Insert({
            "<script>",
            "INSERT INTO totals (restaurant_id, amount) VALUES",
            "<foreach collection='rows' item='r' separator=','>(#{r.id}, #{r.amount})</foreach>",
            "</script>"
        })
        int insertAll(@Param("rows") List<Row> rows);

        @Insert("INSERT INTO orders (restaurant_id, amount) VALUES (#{restaurantId}, #{amount})")
        @Options(useGeneratedKeys = true, keyProperty = "id", keyColumn = "id")
        int insertOrder(Order order);

        @Select("UPDATE totals SET amount = #{amount} WHERE restaurant_id = #{id} RETURNING last_token")
        @Options(flushCache = Options.FlushCachePolicy.TRUE)
        Long updateReturningToken(@Param("id") int id, @Param("amount") long amount);
    }

    PooledDataSource dataSource;
    SqlSessionFactory factory;

    @Override
    protected String[] schema() {
        return new String[] {
            TOTALS,
            "ALTER TABLE totals ADD COLUMN note text",
            "CREATE TABLE orders (id serial PRIMARY KEY, restaurant_id int NOT NULL, amount bigint, last_token bigint)"
        };
    }

    @Override
    protected void open() {
        dataSource = new PooledDataSource(
                "dev.fenced.FencedDriver", db.fencedUrl("fenced.tables=totals,orders"), null, null);
        Configuration configuration =
                new Configuration(new Environment("fenced", new JdbcTransactionFactory(), dataSource));
        configuration.addMapper(TotalsMapper.class);
        factory = new SqlSessionFactoryBuilder().build(configuration);
    }

    @Override
    protected void close() {
        dataSource.forceCloseAll();
    }

    interface Work<T> {
        T run(TotalsMapper mapper);
    }

    /** One committed session, as a service method runs one. */
    <T> T inSession(Work<T> work) {
        try (SqlSession session = factory.openSession()) {
            T result = work.run(session.getMapper(TotalsMapper.class));
            session.commit();
            return result;
        }
    }

    @Override
    protected int update(int id, long amount) {
        return inSession(m -> m.update(id, amount));
    }

    @Override
    protected void insert(int id, long amount) {
        inSession(m -> m.insert(id, amount));
    }

    @Override
    protected void upsert(int id, long amount) {
        inSession(m -> m.upsert(id, amount));
    }

    @Override
    protected int delete(int id) {
        return inSession(m -> m.delete(id));
    }

    @Test
    void aStaleWriteIsMyBatisPersistenceExceptionCausedByFenced() throws Throwable {
        as(12, () -> update(1, 1));
        PersistenceException e = assertThrows(PersistenceException.class, () -> as(11, () -> update(1, 2)));
        assertInstanceOf(StaleTokenException.class, e.getCause());
        assertTrue(e.getMessage().contains("stale write refused"), e.getMessage());
    }

    @Test
    void dynamicSqlWithSetAndForeachIsFenced() throws Throwable {
        as(9, () -> assertEquals(2, (int) inSession(m -> m.patch(List.of(1, 2), null, "checked"))));
        as(9, () -> assertEquals(1, (int) inSession(m -> m.patch(List.of(1), 100L, null))));
        assertEquals(
                "1:100:checked:9,2:20:checked:9,3:30:null:9",
                Rows.snapshot(db, "SELECT restaurant_id, amount, note, last_token FROM totals ORDER BY 1"));
        refusedAsStale(8, () -> inSession(m -> m.patch(List.of(1, 2, 3), 0L, "stale")));
    }

    @Test
    void multiRowValuesFromForeachCarryTheTokenOnEveryRow() throws Throwable {
        as(
                9,
                () -> assertEquals(3, (int)
                        inSession(m -> m.insertAll(List.of(new Row(4, 4), new Row(5, 5), new Row(6, 6))))));
        assertEquals(3, db.queryLong("SELECT count(*) FROM totals WHERE restaurant_id > 3 AND last_token = 9"));
    }

    @Test
    void generatedKeysComeBack() throws Throwable {
        Order first = new Order(1, 5);
        Order second = new Order(2, 6);
        as(21, () -> inSession(m -> m.insertOrder(first) + m.insertOrder(second)));
        assertEquals(first.id + 1, second.id);
        assertEquals(
                first.id + ":21," + second.id + ":21",
                Rows.snapshot(
                        db,
                        "SELECT id, last_token FROM orders WHERE id IN (" + first.id + "," + second.id
                                + ") ORDER BY id"));
    }

    @Test
    void returningThroughSelectGivesTheToken() throws Throwable {
        as(9, () -> assertEquals(Long.valueOf(9), inSession(m -> m.updateReturningToken(1, 1))));
        refusedAsStale(8, () -> inSession(m -> m.updateReturningToken(3, 1)));
    }

    @Test
    void theBatchExecutorIsFencedAndAStaleRowFailsTheWholeBatch() throws Throwable {
        as(9, () -> {
            try (SqlSession session = factory.openSession(ExecutorType.BATCH)) {
                TotalsMapper m = session.getMapper(TotalsMapper.class);
                for (int id = 1; id <= 3; id++) {
                    m.update(id, 100 + id);
                }
                m.insert(7, 70);
                session.commit();
            }
        });
        assertEquals("1:101:9,2:102:9,3:103:9,7:70:9", Rows.totals(db));
        refusedAsStale(8, () -> {
            try (SqlSession session = factory.openSession(ExecutorType.BATCH)) {
                TotalsMapper m = session.getMapper(TotalsMapper.class);
                m.update(7, 0); // token 9: refused
                m.insert(8, 80);
                session.commit();
            }
        });
    }
}
