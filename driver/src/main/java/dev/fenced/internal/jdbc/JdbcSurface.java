package dev.fenced.internal.jdbc;

import dev.fenced.internal.pg.PgStates;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Array;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Wrapper;
import org.jspecify.annotations.Nullable;

/**
 * The one place that decides what a fenced JDBC object may hand out, so no path reaches pgjdbc's raw
 * connection or statements (which run SQL around fenced): values read from results and OUT parameters
 * (arrays, refcursors), and {@code unwrap}. Raw statements and result sets come back wrapped, arrays come
 * back as {@link FencedArray}, and {@code unwrap} to a vendor interface returns a view that implements only
 * that interface (so it cannot be cast to a raw {@code Statement}). The single documented raw door is
 * {@code connection.unwrap(PGConnection.class)}.
 */
final class JdbcSurface {

    /** The interface whose raw object {@code Connection.unwrap} hands out as documented. */
    static final String RAW_DOOR = "org.postgresql.PGConnection";

    private JdbcSurface() {}

    /**
     * A value read from a result set or an OUT parameter, made safe: a refcursor's result set, an array,
     * anything else that can run SQL is wrapped; plain values are returned as they are.
     */
    static @Nullable Object value(@Nullable Object value, FencedConnection connection, @Nullable Statement owner)
            throws SQLException {
        if (value == null) {
            return null;
        }
        if (value instanceof FencedResultSet
                || value instanceof FencedArray
                || value instanceof FencedStatement
                || value instanceof FencedConnection
                || value instanceof FencedDatabaseMetaData) {
            return value;
        }
        if (value instanceof ResultSet rs) {
            return resultSet(rs, connection, owner);
        }
        if (value instanceof Array a) {
            return new FencedArray(a, connection);
        }
        if (value instanceof Statement s) {
            return new FencedStatement(connection, s);
        }
        if (value instanceof Connection) {
            return connection;
        }
        if (value instanceof DatabaseMetaData) {
            return connection.getMetaData();
        }
        if (value instanceof Wrapper && isRawDoor(value.getClass())) {
            throw refusal(value.getClass());
        }
        return value;
    }

    /** Like {@link #value} for a typed getter ({@code getObject(i, ResultSet.class)}, {@code getArray}). */
    static <T> @Nullable T value(
            @Nullable T value, Class<T> type, FencedConnection connection, @Nullable Statement owner)
            throws SQLException {
        return type.cast(value(value, connection, owner));
    }

    /**
     * A raw result set not made by a fenced statement (an array's, a refcursor's): its statement is wrapped
     * too, because pgjdbc's is a raw one on the same connection.
     */
    static @Nullable ResultSet resultSet(@Nullable ResultSet rs, FencedConnection connection, @Nullable Statement owner)
            throws SQLException {
        if (rs == null || rs instanceof FencedResultSet) {
            return rs;
        }
        @Nullable Statement statement = owner;
        if (statement == null) {
            Statement raw = rs.getStatement();
            statement = raw == null ? null : new FencedStatement(connection, raw);
        }
        return FencedResultSet.wrap(rs, statement, connection, null);
    }

    /** {@code unwrap} for every fenced wrapper; {@code self} is the wrapper, {@code delegate} the pgjdbc object. */
    static <T> T unwrap(
            Wrapper self, Wrapper delegate, Class<T> iface, FencedConnection connection, @Nullable Statement owner)
            throws SQLException {
        if (iface.isInstance(self)) {
            return iface.cast(self);
        }
        if (self instanceof FencedConnection && iface.getName().equals(RAW_DOOR)) {
            return delegate.unwrap(iface);
        }
        if (!mayView(iface)) {
            throw refusal(iface);
        }
        Object raw = delegate.unwrap(iface);
        return iface.cast(Proxy.newProxyInstance(
                iface.getClassLoader(),
                new Class<?>[] {iface},
                (proxy, method, args) -> invoke(proxy, raw, method, args, connection, owner)));
    }

    static boolean isWrapperFor(Wrapper self, Wrapper delegate, Class<?> iface) throws SQLException {
        if (iface.isInstance(self)) {
            return true;
        }
        if (self instanceof FencedConnection && iface.getName().equals(RAW_DOOR)) {
            return delegate.isWrapperFor(iface);
        }
        return mayView(iface) && delegate.isWrapperFor(iface);
    }

    /** A vendor interface that is not itself a JDBC object able to run SQL: a view of it is safe. */
    private static boolean mayView(Class<?> iface) {
        return iface.isInterface() && !isRawDoor(iface);
    }

    /** Types whose objects run SQL: handing out a raw one would let SQL around the driver. */
    private static boolean isRawDoor(Class<?> type) {
        return Connection.class.isAssignableFrom(type)
                || Statement.class.isAssignableFrom(type)
                || ResultSet.class.isAssignableFrom(type)
                || DatabaseMetaData.class.isAssignableFrom(type)
                || Array.class.isAssignableFrom(type)
                || type.getName().equals(RAW_DOOR)
                || implementsNamed(type, RAW_DOOR);
    }

    private static boolean implementsNamed(Class<?> type, String name) {
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            for (Class<?> i : c.getInterfaces()) {
                if (i.getName().equals(name) || implementsNamed(i, name)) {
                    return true;
                }
            }
        }
        return false;
    }

    private static @Nullable Object invoke(
            Object proxy,
            Object raw,
            Method method,
            Object[] args,
            FencedConnection connection,
            @Nullable Statement owner)
            throws Throwable {
        switch (method.getName()) {
            case "equals":
                if (method.getParameterCount() == 1) {
                    return proxy == args[0];
                }
                break;
            case "hashCode":
                if (method.getParameterCount() == 0) {
                    return System.identityHashCode(proxy);
                }
                break;
            case "toString":
                if (method.getParameterCount() == 0) {
                    return "fenced view of " + raw;
                }
                break;
            default:
                break;
        }
        Object result;
        try {
            result = method.invoke(raw, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
        return value(result, connection, owner);
    }

    static SQLException refusal(Class<?> type) {
        return new SQLException(
                "fenced: " + type.getName() + " would reach pgjdbc around fenced (its writes would"
                        + " not be fenced); the one raw door is Connection.unwrap(PGConnection.class)",
                PgStates.FEATURE_NOT_SUPPORTED);
    }
}
