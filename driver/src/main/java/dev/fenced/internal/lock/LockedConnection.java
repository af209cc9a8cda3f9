package dev.fenced.internal.lock;

import dev.fenced.FencingException;
import dev.fenced.internal.sql.TransactionEnds;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.Optional;

/**
 * The connection {@link dev.fenced.PlainLock} hands to its work. The lock is transaction-scoped, so the work
 * must not end the transaction: {@code commit()}, {@code rollback()}, {@code setAutoCommit(true)},
 * {@code close()}, {@code abort()} and SQL that ends the transaction ({@code COMMIT}, {@code END},
 * {@code ROLLBACK}, {@code ABORT}, {@code PREPARE TRANSACTION}, in a statement, a prepared text or a batch) are
 * refused with {@link FencingException} {@value FencingException#LOCK_LOST} before anything is sent; savepoints
 * and {@code rollback(Savepoint)} stay (they keep the lock). Statements made here lead back to this connection.
 * What reaches around it ({@code unwrap}) is caught when the work returns: {@link dev.fenced.PlainLock} checks
 * the transaction is still the one that took the lock.
 */
public final class LockedConnection implements InvocationHandler {

    private final Connection connection;
    private final String name;
    private final Connection proxy;

    private LockedConnection(Connection connection, String name) {
        this.connection = connection;
        this.name = name;
        this.proxy = (Connection) Proxy.newProxyInstance(
                LockedConnection.class.getClassLoader(), new Class<?>[] {Connection.class}, this);
    }

    /** {@code connection}, guarded for the work under lock {@code name}. */
    public static Connection guard(Connection connection, String name) {
        return new LockedConnection(connection, name).proxy;
    }

    /** The error for a work that tried to end its lock's transaction by {@code how}. */
    public static FencingException refused(String name, String how) {
        return new FencingException(
                "fenced: plain lock '" + name + "': the work may not end its transaction (" + how
                        + "): the lock is held by that transaction and would be released while the work goes on;"
                        + " PlainLock.run commits when the work returns",
                FencingException.LOCK_LOST);
    }

    @Override
    public Object invoke(Object self, Method method, Object[] args) throws Throwable {
        String m = method.getName();
        int n = args == null ? 0 : args.length;
        switch (m) {
            case "commit", "close", "abort" -> throw refused(name, m + "()");
            case "rollback" -> {
                if (n == 0) {
                    throw refused(name, "rollback()");
                }
            }
            case "setAutoCommit" -> {
                if ((Boolean) args[0]) {
                    throw refused(name, "setAutoCommit(true)");
                }
            }
            case "isClosed" -> {
                return connection.isClosed();
            }
            case "equals" -> {
                return self == args[0];
            }
            case "hashCode" -> {
                return System.identityHashCode(self);
            }
            case "toString" -> {
                return "PlainLock '" + name + "' on " + connection;
            }
            case "isWrapperFor" -> {
                return ((Class<?>) args[0]).isInstance(self) || connection.isWrapperFor((Class<?>) args[0]);
            }
            case "unwrap" -> {
                return ((Class<?>) args[0]).isInstance(self) ? self : connection.unwrap((Class<?>) args[0]);
            }
            case "prepareStatement", "prepareCall", "nativeSQL" -> check((String) args[0]);
            default -> {
                // everything else as the connection does it
            }
        }
        Object result = call(connection, method, args);
        if (result instanceof Statement s && ("createStatement".equals(m) || m.startsWith("prepare"))) {
            return statement(s);
        }
        return result;
    }

    private void check(String sql) throws FencingException {
        Optional<String> end = sql == null ? Optional.empty() : TransactionEnds.find(sql);
        if (end.isPresent()) {
            throw refused(name, end.get() + " in a statement");
        }
    }

    private Statement statement(Statement s) {
        Class<?> type = s instanceof CallableStatement
                ? CallableStatement.class
                : s instanceof PreparedStatement ? PreparedStatement.class : Statement.class;
        return (Statement) Proxy.newProxyInstance(
                LockedConnection.class.getClassLoader(), new Class<?>[] {type}, (self, method, args) -> {
                    String m = method.getName();
                    if ("getConnection".equals(m)) {
                        return proxy;
                    }
                    if ((m.startsWith("execute") || "addBatch".equals(m))
                            && args != null
                            && args.length > 0
                            && args[0] instanceof String sql) {
                        check(sql);
                    }
                    switch (m) {
                        case "equals" -> {
                            return self == args[0];
                        }
                        case "hashCode" -> {
                            return System.identityHashCode(self);
                        }
                        case "unwrap" -> {
                            return ((Class<?>) args[0]).isInstance(self) ? self : s.unwrap((Class<?>) args[0]);
                        }
                        default -> {
                            return call(s, method, args);
                        }
                    }
                });
    }

    private static Object call(Object target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
