package dev.fenced.internal.cli;

import dev.fenced.internal.jdbc.ConnectionFactory;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;

/**
 * Opens the connection a command reads the database through: plain pgjdbc (the fenced URL's pgjdbc part),
 * never a fenced connection, so nothing is created at first connect, and read-only, so a command only looks.
 */
final class Database {

    private static final String PLAIN = "jdbc:postgresql:";

    private Database() {}

    static Connection open(String url) throws CliException {
        Connection c = connect(url);
        try (Statement s = c.createStatement()) {
            s.execute("SET SESSION default_transaction_read_only = on");
        } catch (SQLException e) {
            close(c);
            throw CliException.usage("cannot use " + ConnectionFactory.masked(url) + ": " + oneLine(e));
        }
        return c;
    }

    /** A connection that may write: {@code install}'s, the one command that changes the database. */
    static Connection openForWrites(String url) throws CliException {
        return connect(url);
    }

    private static Connection connect(String url) throws CliException {
        String delegate;
        if (ConnectionFactory.accepts(url)) {
            delegate = ConnectionFactory.delegateUrl(url);
        } else if (url.startsWith(PLAIN)) {
            delegate = url;
        } else {
            throw CliException.usage("bad --url " + ConnectionFactory.masked(url)
                    + ": expected jdbc:fenced:postgresql://" + "host:port/db or jdbc:postgresql://host:port/db");
        }
        Driver driver = Pgjdbc.driver();
        Connection c;
        try {
            c = driver.connect(delegate, new Properties());
        } catch (SQLException e) {
            throw CliException.usage("cannot connect to " + ConnectionFactory.masked(delegate) + ": " + oneLine(e));
        }
        if (c == null) {
            throw CliException.usage("bad --url " + ConnectionFactory.masked(url) + ": pgjdbc does not accept it");
        }
        return c;
    }

    static void close(Connection c) {
        try {
            c.close();
        } catch (SQLException ignored) {
            // closing a connection we only read through
        }
    }

    /** The first line of an error's message: PostgreSQL adds hints and positions on lines of their own. */
    static String oneLine(Throwable e) {
        String m = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        int nl = m.indexOf('\n');
        return (nl < 0 ? m : m.substring(0, nl)).trim();
    }
}
