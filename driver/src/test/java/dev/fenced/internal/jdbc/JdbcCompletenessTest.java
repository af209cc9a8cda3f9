package dev.fenced.internal.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ParameterMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every method of every JDBC interface we wrap, default methods included, is implemented by our own
 * classes: a method a newer JDK adds must not silently fall back to an interface default that bypasses
 * the wrapped pgjdbc object (regenerate the delegates: see {@link JdbcDelegatesTest}).
 */
@Tag("jvm-sensitive")
class JdbcCompletenessTest {

    static Stream<Arguments> wrappers() {
        return Stream.of(
                Arguments.of(FencedConnection.class, Connection.class),
                Arguments.of(FencedStatement.class, Statement.class),
                Arguments.of(FencedPreparedStatement.class, PreparedStatement.class),
                Arguments.of(FencedCallableStatement.class, CallableStatement.class),
                Arguments.of(FencedResultSet.class, ResultSet.class),
                Arguments.of(FencedDatabaseMetaData.class, DatabaseMetaData.class),
                Arguments.of(FencedParameterMetaData.class, ParameterMetaData.class));
    }

    @ParameterizedTest
    @MethodSource("wrappers")
    void everyInterfaceMethodIsImplementedByUs(Class<?> wrapper, Class<?> iface) throws Exception {
        List<String> missing = new ArrayList<>();
        for (Method m : iface.getMethods()) {
            if (Modifier.isStatic(m.getModifiers())) {
                continue;
            }
            Method impl = wrapper.getMethod(m.getName(), m.getParameterTypes());
            if (impl.getDeclaringClass().isInterface()
                    || !impl.getDeclaringClass().getName().startsWith("dev.fenced.")) {
                missing.add(m.toString());
            }
        }
        assertEquals(List.of(), missing, wrapper.getSimpleName() + " leaves these to interface defaults");
    }
}
