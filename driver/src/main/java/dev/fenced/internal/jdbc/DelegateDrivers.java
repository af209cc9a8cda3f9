package dev.fenced.internal.jdbc;

import dev.fenced.internal.pg.PgStates;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;

/**
 * Finds the driver fenced hands the stripped URL to: whatever registered driver accepts it (never a
 * fenced driver, whichever class loader loaded it), else pgjdbc's {@code org.postgresql.Driver} loaded
 * directly. The error lists what is registered, since "no driver accepts" is the classic complaint
 * about wrapping drivers.
 */
final class DelegateDrivers {

    static final String PGJDBC = "org.postgresql.Driver";

    private DelegateDrivers() {}

    static Driver find(String url) throws SQLException {
        List<String> seen = new ArrayList<>();
        Enumeration<Driver> drivers = DriverManager.getDrivers();
        while (drivers.hasMoreElements()) {
            Driver d = drivers.nextElement();
            seen.add(d.getClass().getName());
            if (isFenced(d)) {
                continue;
            }
            try {
                if (d.acceptsURL(url)) {
                    return d;
                }
            } catch (SQLException ignored) {
                // a driver that cannot answer acceptsURL is not the one we want
            }
        }
        for (ClassLoader loader : loaders()) {
            try {
                Class<?> c = Class.forName(PGJDBC, true, loader);
                Driver d = (Driver) c.getDeclaredConstructor().newInstance();
                if (d.acceptsURL(url)) {
                    return d;
                }
            } catch (ReflectiveOperationException | LinkageError | ClassCastException ignored) {
                // try the next loader
            }
        }
        throw new SQLException(
                "fenced: no JDBC driver accepts " + Secrets.mask(url) + " (registered drivers: " + seen
                        + "); put org.postgresql:postgresql on the class path",
                PgStates.UNABLE_TO_CONNECT);
    }

    static boolean isFenced(Driver d) {
        return d.getClass().getName().startsWith("dev.fenced.");
    }

    private static List<ClassLoader> loaders() {
        List<ClassLoader> out = new ArrayList<>();
        ClassLoader own = DelegateDrivers.class.getClassLoader();
        if (own != null) {
            out.add(own);
        }
        ClassLoader tccl = Thread.currentThread().getContextClassLoader();
        if (tccl != null && tccl != own) {
            out.add(tccl);
        }
        out.add(ClassLoader.getSystemClassLoader());
        return out;
    }
}
