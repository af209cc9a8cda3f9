package dev.fenced.internal.jdbc;

import dev.fenced.internal.context.FencedThreads;
import dev.fenced.internal.log.Logs;
import java.lang.ref.WeakReference;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * One runtime's ear for {@link DdlNotices}: a connection of its own that LISTENs on {@link DdlNotices#CHANNEL}, on
 * a fenced daemon thread (nothing bound, ever), and tells the runtime on each notice that its catalog read is out
 * of date, so the next statement reads again. A lost connection is opened again (after a pause that grows to
 * {@link #MAX_PAUSE_MILLIS}), and everything that may have changed meanwhile counts as a notice. When it cannot
 * listen the driver goes on as without the trigger ({@code fenced.catalogRefresh}), and says so once.
 *
 * <p>It holds its runtime weakly: runtimes have no close, they go with their DataSource (or leave the driver's
 * map) and their connections, and the listener then closes its connection and ends within one poll.
 */
final class DdlListener implements Runnable {

    private static final System.Logger LOG = Logs.get("dev.fenced.jdbc");

    /** How long one wait for notices lasts; then the connection is checked and the runtime looked for. */
    static final int POLL_MILLIS = 10_000;

    static final long MAX_PAUSE_MILLIS = 30_000;

    /** Opens the listening connection: a raw connection to the runtime's database. */
    @FunctionalInterface
    interface Opener {
        Connection open() throws SQLException;
    }

    private final WeakReference<FencedRuntime> runtime;
    private final Opener opener;
    private final String where;
    private boolean complained;

    private DdlListener(FencedRuntime runtime, Opener opener, String where) {
        this.runtime = new WeakReference<>(runtime);
        this.opener = opener;
        this.where = where;
    }

    /** Starts listening for {@code runtime} ({@code where} names its database in messages, no secrets). */
    static void start(FencedRuntime runtime, Opener opener, String where) {
        FencedThreads.start("fenced-ddl-listener", new DdlListener(runtime, opener, where));
    }

    @Override
    public void run() {
        @Nullable Connection c = null;
        long pause = 1_000;
        try {
            while (runtime.get() != null) {
                try {
                    if (c == null) {
                        c = listen();
                        pause = 1_000;
                    }
                    PGNotification[] heard = c.unwrap(PGConnection.class).getNotifications(POLL_MILLIS);
                    if (heard != null && heard.length > 0) {
                        heard(heard.length);
                    } else if (!c.isValid(POLL_MILLIS / 1_000)) {
                        throw new SQLException("the listening connection is no longer valid");
                    }
                } catch (SQLException | RuntimeException e) {
                    close(c);
                    c = null;
                    cannotListen(e);
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(pause)); // a back-off, nothing to wait on
                    pause = Math.min(pause * 2, MAX_PAUSE_MILLIS);
                }
            }
        } finally {
            close(c);
        }
    }

    /**
     * A connection that listens; whatever changed before it listened (since the runtime's last read, or while the
     * connection was lost) counts as heard.
     */
    private Connection listen() throws SQLException {
        Connection c = opener.open();
        try (Statement s = c.createStatement()) {
            s.execute("LISTEN " + DdlNotices.CHANNEL);
        } catch (SQLException | RuntimeException e) {
            close(c);
            throw e;
        }
        if (complained) {
            LOG.log(System.Logger.Level.INFO, "fenced: listening again for schema changes on {0}", where);
        }
        heard(0);
        return c;
    }

    private void heard(int notices) {
        FencedRuntime r = runtime.get();
        if (r != null) {
            r.catalogChanged(notices);
        }
    }

    private void cannotListen(Exception e) {
        System.Logger.Level level = complained ? System.Logger.Level.DEBUG : System.Logger.Level.WARNING;
        complained = true;
        LOG.log(
                level,
                "fenced: cannot listen for schema changes on {0} ({1}); until it can, DDL run by others is learned"
                        + " at the next catalog read (fenced.catalogRefresh)",
                where,
                e.getMessage());
    }

    private static void close(@Nullable Connection c) {
        if (c == null) {
            return;
        }
        try {
            c.close();
        } catch (SQLException ignored) {
            // the connection is gone either way
        }
    }
}
