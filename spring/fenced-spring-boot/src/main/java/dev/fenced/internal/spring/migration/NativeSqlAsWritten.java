package dev.fenced.internal.spring.migration;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * Liquibase's DataSource for an unfenced run. Liquibase passes every statement through
 * {@code Connection.nativeSQL} and executes what comes back; on a fenced connection {@code nativeSQL} shows fenced's
 * rewrite (token placeholders included), which is for people and tools to read, not to execute. Here
 * {@code nativeSQL} is pgjdbc's own (escape processing only), and the statement then goes through fenced as
 * written, inside the unfenced section. Everything else is the fenced connection's.
 */
final class NativeSqlAsWritten extends DelegatingDataSource {

    NativeSqlAsWritten(DataSource fenced) {
        super(fenced);
    }

    @Override
    public Connection getConnection() throws java.sql.SQLException {
        return wrap(super.getConnection());
    }

    @Override
    public Connection getConnection(String username, String password) throws java.sql.SQLException {
        return wrap(super.getConnection(username, password));
    }

    private static Connection wrap(Connection fenced) throws java.sql.SQLException {
        Connection raw = fenced.isWrapperFor(org.postgresql.PGConnection.class)
                ? fenced.unwrap(org.postgresql.PGConnection.class) instanceof Connection c ? c : null
                : null;
        InvocationHandler handler = (proxy, method, args) -> {
            if (method.getName().equals("nativeSQL") && args != null && args.length == 1) {
                return raw != null ? raw.nativeSQL((String) args[0]) : args[0];
            }
            try {
                return method.invoke(fenced, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        };
        return (Connection) Proxy.newProxyInstance(
                NativeSqlAsWritten.class.getClassLoader(), new Class<?>[] {Connection.class}, handler);
    }
}
