package dev.fenced.bench;

import benchstub.StubJdbc;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;

/**
 * The UPDATE paths (a)-(d) of {@link UpdateBench} on a stub connection ({@link StubJdbc}): prepare, bind,
 * execute, close, with nothing behind the JDBC calls. What (c) costs over (b), and (d) over (a), is then fenced's
 * own work per statement, measured in nanoseconds instead of read out of a 45 µs database round trip.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Threads(1)
public class OverheadBench {

    private static Connection stub;
    private static Connection fenced;
    private static String handFenced;

    @Setup(Level.Trial)
    public void setUp() throws SQLException {
        init();
    }

    private static synchronized void init() throws SQLException {
        if (stub == null) {
            stub = StubJdbc.connection();
            fenced = StubJdbc.fencedConnection();
            handFenced = fenced.nativeSQL(BenchEnv.UPDATE_PROTECTED);
            if (handFenced.equals(BenchEnv.UPDATE_PROTECTED)) {
                throw new IllegalStateException("the stub's fenced connection does not fence " + BenchEnv.PROTECTED);
            }
        }
    }

    static int update(Connection c, String sql, Client client) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setLong(1, client.amount());
            ps.setInt(2, client.id());
            return ps.executeUpdate();
        }
    }

    /** (a) on the stub. */
    @Benchmark
    public int a_stub(Client client) throws SQLException {
        return update(stub, BenchEnv.UPDATE_PLAIN, client);
    }

    /** (b) on the stub: the fenced SQL, token bound by hand. */
    @Benchmark
    public int b_stubHandFenced(Client client) throws SQLException {
        try (PreparedStatement ps = stub.prepareStatement(handFenced)) {
            ps.setLong(1, client.amount());
            ps.setLong(2, BenchEnv.TOKEN);
            ps.setLong(3, BenchEnv.TOKEN);
            ps.setInt(4, client.id());
            return ps.executeUpdate();
        }
    }

    /** (c) fenced over the stub, protected table. */
    @Benchmark
    public int c_fencedProtected(Client client) throws SQLException {
        return update(fenced, BenchEnv.UPDATE_PROTECTED, client);
    }

    /** (d) fenced over the stub, unprotected table. */
    @Benchmark
    public int d_fencedUnprotected(Client client) throws SQLException {
        return update(fenced, BenchEnv.UPDATE_PLAIN, client);
    }
}
