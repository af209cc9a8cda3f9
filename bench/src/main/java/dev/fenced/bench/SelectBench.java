package dev.fenced.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
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

/** SELECT by key from the protected table: a read names the table, so fenced looks its (pass-through) plan up. */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Threads(2)
public class SelectBench {

    private DataSource raw;
    private DataSource fenced;

    @Setup(Level.Trial)
    public void setUp() {
        BenchEnv env = BenchEnv.get();
        raw = env.raw();
        fenced = env.fenced();
    }

    static long select(DataSource ds, Client client) throws SQLException {
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement(BenchEnv.SELECT_PROTECTED)) {
            ps.setInt(1, client.id());
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    @Benchmark
    public long a_raw(Client client) throws SQLException {
        return select(raw, client);
    }

    @Benchmark
    public long b_fenced(Client client) throws SQLException {
        return select(fenced, client);
    }
}
