package dev.fenced.internal.cli;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * {@code install --print}: the install runs as it would, on a connection in one transaction that is rolled back at
 * the end, and every statement that changes something (not the reads, not the advisory lock) is written down, with
 * its parameters as literals. So the printed SQL is what the very same code path would run on this database,
 * never a second copy of it; a migration tool (Flyway, Liquibase) then runs it. Commits are not passed on: the
 * store's script commits its own transaction when it runs for real.
 */
final class SqlRecorder {

    private final List<String> statements = new ArrayList<>();

    /** {@code c}, already out of autocommit, whose changing statements are recorded. */
    Connection wrap(Connection c) {
        return proxy(Connection.class, c, (method, args) -> {
            String name = method.getName();
            if (name.equals("commit")) {
                return null; // the caller rolls everything back; nothing an install prints may stick
            }
            Object result = method.invoke(c, args);
            if (name.equals("createStatement") && result instanceof Statement s) {
                return statement(s);
            }
            if (name.equals("prepareStatement") && result instanceof PreparedStatement ps) {
                return prepared(ps, (String) args[0]);
            }
            return result;
        });
    }

    List<String> statements() {
        return statements;
    }

    private Statement statement(Statement s) {
        return proxy(Statement.class, s, (method, args) -> {
            if (method.getName().startsWith("execute")
                    && args != null
                    && args.length > 0
                    && args[0] instanceof String sql) {
                record(sql);
            }
            return method.invoke(s, args);
        });
    }

    private PreparedStatement prepared(PreparedStatement ps, String sql) {
        Map<Integer, String> literals = new TreeMap<>();
        return proxy(PreparedStatement.class, ps, (method, args) -> {
            String name = method.getName();
            if (name.startsWith("set") && args != null && args.length >= 2 && args[0] instanceof Integer index) {
                literals.put(index, literal(args[1]));
            } else if (name.startsWith("execute") && (args == null || args.length == 0)) {
                record(inline(sql, literals));
            }
            return method.invoke(ps, args);
        });
    }

    private void record(String sql) {
        String head = sql.strip().toUpperCase(Locale.ROOT);
        if (!head.startsWith("SELECT") && !head.startsWith("SET ") && !head.startsWith("SHOW")) {
            statements.add(sql.strip());
        }
    }

    /** The statement with each {@code ?} replaced by its parameter (fenced's own statements have none in text). */
    private static String inline(String sql, Map<Integer, String> literals) {
        StringBuilder b = new StringBuilder();
        int n = 0;
        for (char ch : sql.toCharArray()) {
            if (ch == '?') {
                b.append(literals.getOrDefault(++n, "NULL"));
            } else {
                b.append(ch);
            }
        }
        return b.toString();
    }

    private static String literal(Object value) throws SQLException {
        if (value == null) {
            return "NULL";
        }
        if (value instanceof Array a) {
            List<String> items = new ArrayList<>();
            for (Object o : (Object[]) a.getArray()) {
                items.add(literal(o));
            }
            return "ARRAY[" + String.join(", ", items) + "]";
        }
        if (value instanceof Number || value instanceof Boolean) {
            return value.toString();
        }
        return "'" + value.toString().replace("'", "''") + "'";
    }

    /** One call on the wrapped object. */
    private interface Call {
        @Nullable
        Object on(Method method, @Nullable Object[] args) throws Exception;
    }

    private static <T> T proxy(Class<T> type, T target, Call call) {
        InvocationHandler h = (p, method, args) -> {
            try {
                return call.on(method, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        };
        return type.cast(Proxy.newProxyInstance(SqlRecorder.class.getClassLoader(), new Class<?>[] {type}, h));
    }
}
