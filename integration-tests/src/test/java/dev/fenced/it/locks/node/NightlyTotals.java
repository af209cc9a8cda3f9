package dev.fenced.it.locks.node;

import dev.fenced.Fencing;
import dev.fenced.FencingScope;
import dev.fenced.LeaseLostException;
import dev.fenced.StaleTokenException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import javax.sql.DataSource;

/**
 * The article's nightly-totals job as SQL, the same in a test's JVM and in a scheduler node's: read the total of
 * restaurant 77, (work,) write the total plus one. Two runs that overlap lose an update; a run whose write is late
 * (its lease lost meanwhile) must be refused, which {@link #refusal} recognises.
 */
public final class NightlyTotals {

    /** The protected table; the fenced driver keeps the writing token in {@code last_token}. */
    public static final String TABLE_DDL =
            "CREATE TABLE totals (restaurant_id int PRIMARY KEY, amount bigint NOT NULL, last_token bigint)";

    /** Puts the total back to zero, no token. */
    public static final String[] RESET = {"DELETE FROM totals", "INSERT INTO totals VALUES (77, 0, NULL)"};

    private NightlyTotals() {}

    /**
     * One run of the job on the calling thread, which carries the run's token: read, {@code work} (where a run may
     * freeze), write the total plus one as {@code how} says. Returns the token it wrote under; throws if the write
     * failed, {@link #refusal} telling a fenced refusal from anything else.
     */
    public static long run(DataSource pool, LateWrite how, Runnable work) throws SQLException {
        long token = Fencing.currentToken()
                .orElseThrow(() -> new IllegalStateException("no token bound: the job runs outside its lease"));
        try (FencingScope early = how == LateWrite.COPY_BOUND_EARLY ? Fencing.bind(token) : null) {
            long total = read(pool);
            work.run();
            if (how == LateWrite.COPY_BOUND_LATE) {
                CompletableFuture.runAsync(() -> {
                            try (FencingScope late = Fencing.bind(token)) {
                                write(pool, total + 1);
                            } catch (SQLException e) {
                                throw new CompletionException(e);
                            }
                        })
                        .join();
            } else {
                write(pool, total + 1);
            }
        }
        return token;
    }

    public static long read(DataSource pool) throws SQLException {
        try (Connection c = pool.getConnection();
                PreparedStatement ps = c.prepareStatement("SELECT amount FROM totals WHERE restaurant_id = 77");
                ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }

    public static void write(DataSource pool, long total) throws SQLException {
        try (Connection c = pool.getConnection();
                PreparedStatement ps = c.prepareStatement("UPDATE totals SET amount = ? WHERE restaurant_id = 77")) {
            ps.setLong(1, total);
            ps.executeUpdate();
        }
    }

    /**
     * Opens {@code pool}'s first connection and reads the total, so a node's first run does not pay the driver's
     * first connect (its catalog read) inside a lease with a short ttl.
     */
    public static <T extends DataSource> T warmedUp(T pool) {
        try {
            read(pool);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return pool;
    }

    /**
     * The fenced refusal behind a failed run ({@link LeaseLostException}: refused on the client, its lease lost;
     * {@link StaleTokenException}: refused by PostgreSQL, a newer token on the row), or null if it failed otherwise.
     * Schedulers wrap what a job throws, so the causes are searched.
     */
    public static SQLException refusal(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof LeaseLostException || t instanceof StaleTokenException) {
                return (SQLException) t;
            }
        }
        return null;
    }
}
