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

/**
 * UPDATE by primary key, the way an application does it: borrow a pooled connection, prepare, bind, execute,
 * close. One method per path; {@link BenchMain} runs them in alternating rounds.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Threads(2)
public class UpdateBench {

    private DataSource raw;
    private DataSource fenced;
    private DataSource p6spy;
    private DataSource datasourceProxy;
    private String handFenced;

    @Setup(Level.Trial)
    public void setUp() {
        BenchEnv env = BenchEnv.get();
        raw = env.raw();
        fenced = env.fenced();
        p6spy = env.p6spy();
        datasourceProxy = env.datasourceProxy();
        handFenced = env.handFencedUpdate();
    }

    static int update(DataSource ds, String sql, Client client) throws SQLException {
        return update(ds, sql, client.amount(), client.id());
    }

    /** {@code sql} ({@code SET amount = ? WHERE id = ?}) on a connection of {@code ds}: also WriteScaleCurve's. */
    static int update(DataSource ds, String sql, long amount, int id) throws SQLException {
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setLong(1, amount);
            ps.setInt(2, id);
            return ps.executeUpdate();
        }
    }

    /** (a) raw pgjdbc, unprotected table. */
    @Benchmark
    public int a_raw(Client client) throws SQLException {
        return update(raw, BenchEnv.UPDATE_PLAIN, client);
    }

    /** (b) raw pgjdbc sending what fenced sends for (c): its nativeSQL, token bound by hand. */
    @Benchmark
    public int b_rawHandFenced(Client client) throws SQLException {
        return handFencedUpdate(raw, handFenced, client);
    }

    /** What fenced sends for (c), sent by hand: amount, the token three times (set, check, check), key. */
    static int handFencedUpdate(DataSource ds, String sql, Client client) throws SQLException {
        return handFencedUpdate(ds, sql, client.amount(), client.id());
    }

    /** As {@link #handFencedUpdate(DataSource, String, Client)}, for a row and amount of the caller's. */
    static int handFencedUpdate(DataSource ds, String sql, long amount, int id) throws SQLException {
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setLong(1, amount);
            ps.setLong(2, BenchEnv.TOKEN);
            ps.setLong(3, BenchEnv.TOKEN);
            ps.setInt(4, id);
            return ps.executeUpdate();
        }
    }

    /** (e) raw pgjdbc, the article's own fencing SQL written by hand ({@link BenchEnv#UPDATE_ARTICLE}). */
    static int articleUpdate(DataSource ds, Client client) throws SQLException {
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement(BenchEnv.UPDATE_ARTICLE)) {
            ps.setLong(1, client.amount());
            ps.setLong(2, BenchEnv.TOKEN);
            ps.setInt(3, client.id());
            ps.setLong(4, BenchEnv.TOKEN);
            return ps.executeUpdate();
        }
    }

    /** (c) fenced, protected table: rewritten (plan cached by text), token read from the thread and bound. */
    @Benchmark
    public int c_fencedProtected(Client client) throws SQLException {
        return update(fenced, BenchEnv.UPDATE_PROTECTED, client);
    }

    /** (d) fenced, unprotected table: one substring scan, then straight through. */
    @Benchmark
    public int d_fencedUnprotected(Client client) throws SQLException {
        return update(fenced, BenchEnv.UPDATE_PLAIN, client);
    }

    /** p6spy with no logging module, unprotected table: what (a) costs behind a popular wrapping driver. */
    @Benchmark
    public int e_p6spy(Client client) throws SQLException {
        return update(p6spy, BenchEnv.UPDATE_PLAIN, client);
    }

    /** datasource-proxy with no listeners, unprotected table. */
    @Benchmark
    public int f_datasourceProxy(Client client) throws SQLException {
        return update(datasourceProxy, BenchEnv.UPDATE_PLAIN, client);
    }
}
