package benchstub;

import dev.fenced.bench.BenchEnv;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.DriverPropertyInfo;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Properties;
import java.util.logging.Logger;
import org.postgresql.PGConnection;

/**
 * (Outside {@code dev.fenced}: fenced never delegates to a driver of its own packages.)
 *
 * <p>A JDBC connection that talks to nobody: prepared statements accept every bind and "update" one row. Under
 * fenced (a {@code jdbc:fenced:} URL whose delegate is this driver, {@code fenced.checkSchema=false} and
 * {@code fenced.roleCheck=off}: there is no catalog to read) it leaves
 * exactly fenced's own work per statement to measure, without the network, PostgreSQL or pgjdbc in the figure.
 * Every call costs the same whether it comes from the benchmark or from fenced, so differences are fenced's.
 */
public final class StubJdbc {

    /** pgjdbc refuses this URL (the port is not a number), so fenced's delegate lookup finds {@link StubDriver}. */
    public static final String URL = "jdbc:postgresql://fenced-bench-stub:stub/bench";

    public static final String FENCED_URL = "jdbc:fenced:postgresql://fenced-bench-stub:stub/bench?fenced.tables="
            + BenchEnv.PROTECTED + "&fenced.checkSchema=false&fenced.roleCheck=off";

    private StubJdbc() {}

    private static final InvocationHandler STATEMENT = (proxy, method, args) -> switch (method.getName()) {
        case "executeUpdate" -> 1;
        case "executeLargeUpdate" -> 1L;
        case "execute", "isClosed", "isWrapperFor", "isPoolable", "isCloseOnCompletion" -> false;
        case "executeBatch" -> new int[0];
        case "hashCode" -> System.identityHashCode(proxy);
        case "equals" -> proxy == args[0];
        case "toString" -> "StubPreparedStatement";
        default -> defaultValue(method.getReturnType());
    };

    private static final InvocationHandler CONNECTION = (proxy, method, args) -> switch (method.getName()) {
        case "prepareStatement" ->
            Proxy.newProxyInstance(
                    StubJdbc.class.getClassLoader(), new Class<?>[] {PreparedStatement.class}, STATEMENT);
        case "nativeSQL" -> args[0];
        // fenced reads standard_conforming_strings from pgjdbc's ParameterStatus: the stub answers as a server would
        case "isWrapperFor" -> args[0] == PGConnection.class;
        case "unwrap" -> args[0] == PGConnection.class ? proxy : null;
        case "getParameterStatus" -> "standard_conforming_strings".equals(args[0]) ? "on" : null;
        case "isClosed", "isReadOnly" -> false;
        case "getAutoCommit", "isValid" -> true;
        case "hashCode" -> System.identityHashCode(proxy);
        case "equals" -> proxy == args[0];
        case "toString" -> "StubConnection";
        default -> defaultValue(method.getReturnType());
    };

    private static Object defaultValue(Class<?> type) {
        if (!type.isPrimitive() || type == void.class) {
            return null;
        }
        if (type == boolean.class) {
            return false;
        }
        if (type == long.class) {
            return 0L;
        }
        if (type == double.class) {
            return 0d;
        }
        if (type == float.class) {
            return 0f;
        }
        if (type == short.class) {
            return (short) 0;
        }
        if (type == byte.class) {
            return (byte) 0;
        }
        if (type == char.class) {
            return (char) 0;
        }
        return 0;
    }

    public static Connection connection() {
        return (Connection) Proxy.newProxyInstance(
                StubJdbc.class.getClassLoader(), new Class<?>[] {Connection.class, PGConnection.class}, CONNECTION);
    }

    /** A fenced connection over a stub one. */
    public static synchronized Connection fencedConnection() throws SQLException {
        StubDriver.register();
        return DriverManager.getConnection(FENCED_URL);
    }

    /** Accepts only {@link #URL}. */
    static final class StubDriver implements Driver {
        private static boolean registered;

        static synchronized void register() throws SQLException {
            if (!registered) {
                DriverManager.registerDriver(new StubDriver());
                registered = true;
            }
            try {
                if (DriverManager.getDriver(URL) instanceof StubDriver) {
                    return;
                }
            } catch (SQLException e) {
                // nobody else accepts it either: fine
            }
            for (var drivers = DriverManager.getDrivers(); drivers.hasMoreElements(); ) {
                Driver d = drivers.nextElement();
                if (!(d instanceof StubDriver)
                        && !d.getClass().getName().startsWith("dev.fenced.")
                        && d.acceptsURL(URL)) {
                    throw new IllegalStateException(
                            d.getClass().getName() + " accepts " + URL + "; the stub cannot be reached");
                }
            }
        }

        @Override
        public Connection connect(String url, Properties info) {
            return acceptsURL(url) ? connection() : null;
        }

        @Override
        public boolean acceptsURL(String url) {
            return URL.equals(url);
        }

        @Override
        public DriverPropertyInfo[] getPropertyInfo(String url, Properties info) {
            return new DriverPropertyInfo[0];
        }

        @Override
        public int getMajorVersion() {
            return 1;
        }

        @Override
        public int getMinorVersion() {
            return 0;
        }

        @Override
        public boolean jdbcCompliant() {
            return false;
        }

        @Override
        public Logger getParentLogger() {
            return Logger.getGlobal();
        }
    }
}
