package dev.fenced.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;

/** A JDBC batch of {@link #SIZE} UPDATEs by key (addBatch ... executeBatch), one operation per batch. */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Threads(2)
public class BatchBench {

    public static final int SIZE = 100;

    private DataSource raw;
    private DataSource fenced;
    private String handFenced;

    @Setup(Level.Trial)
    public void setUp() {
        BenchEnv env = BenchEnv.get();
        raw = env.raw();
        fenced = env.fenced();
        handFenced = env.handFencedUpdate();
    }

    static int batch(DataSource ds, String sql, Client client) throws SQLException {
        int first = client.firstOf(SIZE);
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < SIZE; i++) {
                ps.setLong(1, client.amount());
                ps.setInt(2, first + i);
                ps.addBatch();
            }
            return ps.executeBatch().length;
        }
    }

    /** Raw pgjdbc, unprotected table. */
    @Benchmark
    public int a_raw(Client client) throws SQLException {
        return batch(raw, BenchEnv.UPDATE_PLAIN, client);
    }

    /** Raw pgjdbc, the fenced SQL with the token bound by hand. */
    @Benchmark
    public int b_rawHandFenced(Client client) throws SQLException {
        int first = client.firstOf(SIZE);
        try (Connection c = raw.getConnection();
                PreparedStatement ps = c.prepareStatement(handFenced)) {
            for (int i = 0; i < SIZE; i++) {
                ps.setLong(1, client.amount());
                ps.setLong(2, BenchEnv.TOKEN);
                ps.setLong(3, BenchEnv.TOKEN);
                ps.setInt(4, first + i);
                ps.addBatch();
            }
            return ps.executeBatch().length;
        }
    }

    /** fenced, protected table. */
    @Benchmark
    public int c_fenced(Client client) throws SQLException {
        return batch(fenced, BenchEnv.UPDATE_PROTECTED, client);
    }
}
