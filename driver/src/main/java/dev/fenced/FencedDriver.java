package dev.fenced;

import dev.fenced.internal.jdbc.ConnectionFactory;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.DriverPropertyInfo;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.logging.Logger;
import org.jspecify.annotations.Nullable;

/**
 * The JDBC driver for {@code jdbc:fenced:postgresql:} URLs. Everything after {@code jdbc:fenced:} goes
 * to pgjdbc unchanged, except the {@code fenced.*} parameters, which configure fencing:
 *
 * <pre>{@code jdbc:fenced:postgresql://db.example.com/app?fenced.tables=totals,sales.orders}</pre>
 *
 * Registered through {@code META-INF/services/java.sql.Driver}; for pools configured by class name use
 * {@code driverClassName=dev.fenced.FencedDriver} or {@link FencedDataSource}.
 */
public final class FencedDriver implements Driver {

    static {
        try {
            DriverManager.registerDriver(new FencedDriver());
        } catch (SQLException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    public FencedDriver() {
        // public no-arg constructor: pools instantiate drivers by class name
    }

    /** Returns null for URLs that are not {@code jdbc:fenced:postgresql:}, as JDBC requires. */
    @Override
    public @Nullable Connection connect(String url, Properties info) throws SQLException {
        if (!acceptsURL(url)) {
            return null;
        }
        return ConnectionFactory.open(url, info);
    }

    /** Pure: true exactly for {@code jdbc:fenced:postgresql:} URLs. */
    @Override
    public boolean acceptsURL(String url) {
        return ConnectionFactory.accepts(url);
    }

    @Override
    public DriverPropertyInfo[] getPropertyInfo(String url, @Nullable Properties info) throws SQLException {
        List<DriverPropertyInfo> out = new ArrayList<>();
        for (FencedProperty p : FencedProperty.values()) {
            DriverPropertyInfo d = new DriverPropertyInfo(p.key(), info == null ? null : info.getProperty(p.key()));
            d.description = p.description();
            d.required = false;
            if (d.value == null) {
                d.value = p.defaultValue();
            }
            out.add(d);
        }
        if (acceptsURL(url)) {
            String delegate = ConnectionFactory.delegateUrl(url);
            Driver pg = DriverManager.getDriver(delegate);
            if (pg != null && !(pg instanceof FencedDriver)) {
                out.addAll(List.of(pg.getPropertyInfo(delegate, info)));
            }
        }
        return out.toArray(new DriverPropertyInfo[0]);
    }

    @Override
    public int getMajorVersion() {
        return 0;
    }

    @Override
    public int getMinorVersion() {
        return 1;
    }

    /** Not claimed: pgjdbc itself does not claim JDBC compliance. */
    @Override
    public boolean jdbcCompliant() {
        return false;
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        return Logger.getLogger("dev.fenced");
    }
}
