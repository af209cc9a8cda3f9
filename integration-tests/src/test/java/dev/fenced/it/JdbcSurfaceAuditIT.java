package dev.fenced.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.it.support.TestDatabase;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;

/**
 * The JDBC surface audit, driven by reflection. Every method of every {@code java.sql} interface and of
 * pgjdbc's public interfaces whose return type can be (or lead to) an object able to run SQL is listed;
 * starting from a fenced connection, every such method of every object reached is called with sensible
 * arguments (every audited type for {@code unwrap}), and whatever comes back is walked in turn. The test
 * fails if anything but {@code Connection.unwrap(PGConnection.class)} reaches a raw pgjdbc object that
 * runs SQL, and if {@code docs/jdbc-surface.md} is not the table this run produced
 * ({@code -Dfencedtest.surface.write=true} rewrites it).
 */
@Tag("jvm-sensitive")
class JdbcSurfaceAuditIT {

    /** Types whose objects can run SQL (or hand out one that can). */
    private static final List<Class<?>> CAPABLE = new ArrayList<>();

    private static final String RAW_DOOR = "Connection.unwrap(PGConnection.class)";
    private static final int MAX_OBJECTS = 20000;
    private static final int PER_CLASS = 40;

    static {
        CAPABLE.addAll(List.of(
                Connection.class,
                Statement.class,
                ResultSet.class,
                java.sql.DatabaseMetaData.class,
                java.sql.Array.class,
                PGConnection.class));
        for (String name : List.of(
                "org.postgresql.copy.CopyManager",
                "org.postgresql.largeobject.LargeObjectManager",
                "org.postgresql.fastpath.Fastpath",
                "org.postgresql.replication.PGReplicationConnection",
                "org.postgresql.core.QueryExecutor")) {
            try {
                CAPABLE.add(Class.forName(name));
            } catch (ClassNotFoundException ignored) {
                // not in this pgjdbc version
            }
        }
    }

    static boolean capable(Class<?> returned) {
        if (returned.isPrimitive() || returned == String.class || returned == void.class) {
            return false;
        }
        for (Class<?> c : CAPABLE) {
            if (c.isAssignableFrom(returned) || returned.isAssignableFrom(c)) {
                return true;
            }
        }
        return false;
    }

    /** java.sql interfaces, then pgjdbc's public interfaces, read from its jar. */
    static List<Class<?>> auditedTypes() throws IOException, URISyntaxException {
        List<Class<?>> types = new ArrayList<>(List.of(
                Connection.class,
                Statement.class,
                java.sql.PreparedStatement.class,
                CallableStatement.class,
                ResultSet.class,
                java.sql.DatabaseMetaData.class,
                java.sql.ResultSetMetaData.class,
                java.sql.ParameterMetaData.class,
                java.sql.Array.class,
                java.sql.Blob.class,
                java.sql.Clob.class,
                java.sql.NClob.class,
                java.sql.SQLXML.class,
                java.sql.Struct.class,
                java.sql.Ref.class,
                java.sql.RowId.class,
                java.sql.Savepoint.class,
                java.sql.SQLData.class,
                java.sql.SQLInput.class,
                java.sql.SQLOutput.class,
                java.sql.Wrapper.class));
        Path jar = Path.of(PGConnection.class
                .getProtectionDomain()
                .getCodeSource()
                .getLocation()
                .toURI());
        Set<String> names = new TreeSet<>();
        try (JarFile file = new JarFile(jar.toFile())) {
            file.stream()
                    .map(e -> e.getName())
                    .filter(n -> n.startsWith("org/postgresql/") && n.endsWith(".class") && !n.contains("$"))
                    .forEach(n -> names.add(n.substring(0, n.length() - 6).replace('/', '.')));
        }
        for (String name : names) {
            try {
                Class<?> c = Class.forName(name, false, PGConnection.class.getClassLoader());
                if (c.isInterface() && Modifier.isPublic(c.getModifiers())) {
                    types.add(c);
                }
            } catch (ClassNotFoundException | LinkageError ignored) {
                // an optional dependency of pgjdbc (OSGi, JNA, ...) is missing: not reachable here either
            }
        }
        return types;
    }

    private static String key(Method m) {
        StringBuilder b = new StringBuilder(m.getDeclaringClass().getName())
                .append('#')
                .append(m.getName())
                .append('(');
        Class<?>[] p = m.getParameterTypes();
        for (int i = 0; i < p.length; i++) {
            b.append(i == 0 ? "" : ", ").append(p[i].getSimpleName());
        }
        return b.append(')').toString();
    }

    /** The interface method {@code m} of an object's class implements, by declaring type. */
    private final Map<String, Set<String>> outcomes = new TreeMap<>();

    private final Set<String> leaks = new TreeSet<>();
    /** What {@code unwrap} gave, per receiver and target, where it gave anything. */
    private final Map<String, Set<String>> unwraps = new TreeMap<>();

    private final Set<String> unwrapsRefused = new TreeSet<>();

    @Test
    void nothingReachableFromAFencedConnectionIsARawPgjdbcObject() throws Exception {
        TestDatabase db = TestDatabase.create();
        db.execute(
                "CREATE TABLE totals (id int PRIMARY KEY, amount bigint, last_token bigint, tags int[])",
                "INSERT INTO totals VALUES (1, 10, 20, ARRAY[1, 2])",
                "CREATE FUNCTION open_cursor() RETURNS refcursor LANGUAGE plpgsql AS"
                        + " $$ DECLARE r refcursor; BEGIN OPEN r FOR SELECT 1; RETURN r; END $$");
        List<Class<?>> types = auditedTypes();
        Map<String, Method> audited = new TreeMap<>();
        for (Class<?> type : types) {
            for (Method m : type.getMethods()) {
                if (m.getDeclaringClass() == Object.class
                        || Modifier.isStatic(m.getModifiers())
                        || !capable(m.getReturnType())) {
                    continue;
                }
                audited.putIfAbsent(key(m), m);
            }
        }
        try (Connection c = DriverManager.getConnection(db.fencedUrl("fenced.tables=totals"))) {
            c.setAutoCommit(false); // refcursors live as long as the transaction
            walk(c, types);
            c.rollback();
        }
        List<String> rows = new ArrayList<>();
        for (Map.Entry<String, Method> e : audited.entrySet()) {
            Set<String> seen = outcomes.get(e.getKey());
            String got = e.getValue().getName().equals("unwrap")
                    ? "see the unwrap table below"
                    : seen == null ? notReached(e.getValue()) : String.join("; ", seen);
            rows.add("| `" + e.getKey().replace("|", "\\|") + "` | "
                    + e.getValue().getReturnType().getSimpleName() + " | " + got + " |");
        }
        List<String> unwrapRows = new ArrayList<>();
        unwraps.forEach((call, got) -> unwrapRows.add("| `" + call + "` | " + String.join("; ", got) + " |"));
        String table = render(rows, audited.size(), types.size()) + "\n## unwrap\n\n"
                + "Every audited type, pgjdbc's implementation classes (`PgConnection`, `PgStatement`, ...,"
                + " `BaseConnection`, `BaseStatement`) and `Object` were tried as the target of `unwrap` on every object"
                + " reached. Any call not listed here was refused (receivers that refused some target: "
                + String.join(", ", unwrapsRefused) + ").\n\n| call | result |\n|---|---|\n"
                + String.join("\n", unwrapRows) + "\n";
        Path doc = Path.of(System.getProperty("fencedtest.docs", "../docs"), "jdbc-surface.md");
        if (Boolean.getBoolean("fencedtest.surface.write")) {
            Files.writeString(doc, table);
        }
        assertEquals(Set.of(), leaks, "raw pgjdbc objects reached from a fenced connection");
        if (!Files.exists(doc) || !Files.readString(doc).equals(table)) {
            Files.writeString(Path.of("target", "jdbc-surface.actual.md"), table);
        }
        assertTrue(Files.exists(doc), doc + " exists");
        assertEquals(
                Files.readString(doc),
                table,
                "docs/jdbc-surface.md is out of date: run this test with"
                        + " -Dfencedtest.surface.write=true and commit the file");
    }

    private static String notReached(Method m) {
        return m.getDeclaringClass().getName().startsWith("org.postgresql")
                        && !m.getDeclaringClass().isAssignableFrom(org.postgresql.PGStatement.class)
                ? "not reachable from a fenced connection (only through " + RAW_DOOR + ")"
                : "not reached by the walk (pgjdbc hands out no such object)";
    }

    private static String render(List<String> rows, int methods, int types) {
        return "# JDBC surface audit\n\n"
                + "Generated by `integration-tests/.../JdbcSurfaceAuditIT` (run it with `-Dfencedtest.surface.write=true`"
                + " to regenerate). Every method of the " + types + " audited types (the `java.sql` interfaces and"
                + " pgjdbc's public interfaces) whose return type can be, or can lead to, an object able to run SQL: "
                + methods + " methods. Starting from a fenced connection the test calls each of them on every object it"
                + " reaches (`unwrap` with every audited type and pgjdbc's implementation classes) and records what came"
                + " back. Anything but `" + RAW_DOOR
                + "` reaching a raw pgjdbc connection, statement, result set, metadata"
                + " or array fails the test.\n\n"
                + "Outcomes: `fenced X` a fenced wrapper; `view of I` an object implementing only the vendor interface I"
                + " (it cannot be cast to a raw JDBC type); `refused` an SQLException from fenced (or pgjdbc); `value` a"
                + " plain value (String, Long, PGobject...); `null`; `raw (documented door)`.\n\n"
                + "| method | returns | what a fenced connection hands out |\n|---|---|---|\n"
                + String.join("\n", rows) + "\n";
    }

    private void walk(Connection root, List<Class<?>> types) throws Exception {
        Deque<Object> queue = new ArrayDeque<>();
        Set<Object> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        Map<Class<?>, Integer> perClass = new java.util.HashMap<>();
        queue.add(root);
        // roots that need a setup step before their getters mean anything
        CallableStatement cs = root.prepareCall("{? = call open_cursor()}");
        cs.registerOutParameter(1, Types.REF_CURSOR);
        cs.execute();
        queue.add(cs);
        CallableStatement arrays = root.prepareCall("{? = call array_append(ARRAY[1], 2)}");
        arrays.registerOutParameter(1, Types.ARRAY);
        arrays.execute();
        queue.add(arrays);
        List<Class<?>> unwrapTargets = new ArrayList<>(types);
        for (String impl : List.of(
                "org.postgresql.jdbc.PgConnection",
                "org.postgresql.jdbc.PgStatement",
                "org.postgresql.jdbc.PgPreparedStatement",
                "org.postgresql.jdbc.PgCallableStatement",
                "org.postgresql.jdbc.PgResultSet",
                "org.postgresql.jdbc.PgDatabaseMetaData",
                "org.postgresql.jdbc.PgArray",
                "org.postgresql.core.BaseConnection",
                "org.postgresql.core.BaseStatement",
                "java.lang.Object")) {
            unwrapTargets.add(Class.forName(impl));
        }
        while (!queue.isEmpty() && seen.size() < MAX_OBJECTS) {
            Object o = queue.poll();
            // enough objects of each class to see every way of reaching one, in a fixed order so the table is stable
            if (!seen.add(o) || perClass.merge(o.getClass(), 1, Integer::sum) > PER_CLASS) {
                continue;
            }
            if (o instanceof ResultSet rs) {
                try {
                    rs.next();
                } catch (SQLException ignored) {
                    // a closed or forward-only set: its getters are still called
                }
            }
            Method[] methods = o.getClass().getMethods();
            java.util.Arrays.sort(methods, java.util.Comparator.comparing(Method::toString));
            for (Method m : methods) {
                Method declared = interfaceMethod(o, m, types);
                if (declared == null || !walkable(declared, types) || skipped(declared)) {
                    continue;
                }
                for (Object[] args : arguments(declared, unwrapTargets)) {
                    Object result;
                    // a failing call must not abort the transaction the rest of the walk runs in
                    java.sql.Savepoint savepoint = root.setSavepoint();
                    try {
                        m.setAccessible(true);
                        result = m.invoke(o, args);
                        root.releaseSavepoint(savepoint);
                    } catch (InvocationTargetException e) {
                        root.rollback(savepoint);
                        if (declared.getName().equals("unwrap")) {
                            unwrapsRefused.add(receiver(o));
                        }
                        Throwable cause = e.getCause();
                        record(
                                declared,
                                cause instanceof SQLException
                                        ? "refused"
                                        : thrower(cause) + " throws "
                                                + cause.getClass().getSimpleName());
                        continue;
                    } catch (IllegalAccessException | RuntimeException e) {
                        root.rollback(savepoint);
                        record(
                                declared,
                                "walk could not call it (" + e.getClass().getSimpleName() + ")");
                        continue;
                    }
                    boolean door = declared.getName().equals("unwrap") && o == root && args[0] == PGConnection.class;
                    if (capable(declared.getReturnType())) {
                        record(declared, describe(result, door));
                    }
                    if (declared.getName().equals("unwrap")) {
                        unwraps.computeIfAbsent(
                                        receiver(o) + ".unwrap(" + ((Class<?>) args[0]).getName() + ".class)",
                                        k -> new TreeSet<>())
                                .add(describe(result, door));
                    }
                    if (result != null && isRaw(result) && !door) {
                        leaks.add(key(declared) + " on " + o.getClass().getSimpleName() + " returned raw "
                                + result.getClass().getName());
                    }
                    if (result != null
                            && !door
                            && !(result instanceof String)
                            && !result.getClass().isPrimitive()) {
                        queue.add(result);
                    }
                }
            }
        }
    }

    /** The audited interface method {@code m} implements for {@code o}, or null. */
    private static Method interfaceMethod(Object o, Method m, List<Class<?>> types) {
        if (Modifier.isStatic(m.getModifiers()) || m.getDeclaringClass() == Object.class) {
            return null;
        }
        for (Class<?> type : types) {
            if (type.isInstance(o)) {
                try {
                    return type.getMethod(m.getName(), m.getParameterTypes());
                } catch (NoSuchMethodException ignored) {
                    // not this interface's
                }
            }
        }
        return null;
    }

    /**
     * Methods whose result is walked: those that can return an object able to run SQL, and getters of any
     * other audited interface (metadata, LOBs...), whose own {@code unwrap} is then tried too.
     */
    private static boolean walkable(Method m, List<Class<?>> types) {
        return capable(m.getReturnType()) || (m.getName().startsWith("get") && types.contains(m.getReturnType()));
    }

    /** Methods that would end the walk's own objects or change data. */
    private static boolean skipped(Method m) {
        String n = m.getName();
        return n.equals("close")
                || n.equals("abort")
                || n.startsWith("executeUpdate")
                || n.startsWith("executeLarge")
                || n.equals("executeBatch")
                || n.startsWith("update")
                || n.startsWith("insert")
                || n.startsWith("delete");
    }

    private static final String QUERY = "SELECT id, tags, open_cursor() AS cur FROM totals";

    private static List<Object[]> arguments(Method m, List<Class<?>> unwrapTargets) {
        Class<?>[] p = m.getParameterTypes();
        if (m.getName().equals("unwrap") && p.length == 1) {
            List<Object[]> all = new ArrayList<>();
            for (Class<?> c : unwrapTargets) {
                all.add(new Object[] {c});
            }
            return all;
        }
        if ((m.getName().equals("getObject")) && p.length == 2 && p[1] == Class.class) {
            List<Object[]> all = new ArrayList<>();
            for (Class<?> c : List.of(Object.class, ResultSet.class, java.sql.Array.class)) {
                all.add(new Object[] {first(p[0]), c});
            }
            return all;
        }
        Object[] args = new Object[p.length];
        for (int i = 0; i < p.length; i++) {
            args[i] = value(m, p[i], i);
        }
        return List.<Object[]>of(args);
    }

    private static Object first(Class<?> type) {
        return type == int.class ? 1 : "id";
    }

    private static Object value(Method m, Class<?> type, int i) {
        String n = m.getName();
        if (type == String.class) {
            if (n.startsWith("prepare") || n.startsWith("execute") || n.equals("nativeSQL") || n.equals("addBatch")) {
                return n.equals("prepareCall") ? "{? = call open_cursor()}" : QUERY;
            }
            if (n.equals("createArrayOf")) {
                return "int4";
            }
            return m.getDeclaringClass() == ResultSet.class || m.getDeclaringClass() == CallableStatement.class
                    ? (n.startsWith("get") ? "id" : null)
                    : null;
        }
        if (type == int.class) {
            if (n.equals("createStatement") || n.equals("prepareStatement") || n.equals("prepareCall")) {
                if (n.equals("prepareStatement") && m.getParameterCount() == 2) {
                    return Statement.RETURN_GENERATED_KEYS;
                }
                // (type, concurrency, holdability), after the SQL text for prepare*
                return switch (n.equals("createStatement") ? i : i - 1) {
                    case 0 -> ResultSet.TYPE_SCROLL_INSENSITIVE;
                    case 1 -> ResultSet.CONCUR_UPDATABLE;
                    default -> ResultSet.HOLD_CURSORS_OVER_COMMIT;
                };
            }
            return m.getName().equals("getResultSet") ? 2 : 1;
        }
        if (type == long.class) {
            return 1L;
        }
        if (type == boolean.class) {
            return false;
        }
        if (type == Object[].class) {
            return new Object[] {1, 2};
        }
        if (type == int[].class) {
            return new int[] {1};
        }
        if (type == String[].class) {
            return n.equals("getTables") ? null : new String[] {"id"};
        }
        if (type == Map.class) {
            return new LinkedHashMap<String, Class<?>>();
        }
        return null;
    }

    private static boolean isRaw(Object o) {
        if (Proxy.isProxyClass(o.getClass()) || o.getClass().getName().startsWith("dev.fenced.")) {
            return false;
        }
        for (Class<?> c : CAPABLE) {
            if (c.isInstance(o)) {
                return true;
            }
        }
        return false;
    }

    private static String describe(Object result, boolean door) {
        if (result == null) {
            return "null";
        }
        if (door) {
            return "raw (documented door)";
        }
        Class<?> c = result.getClass();
        if (Proxy.isProxyClass(c)) {
            return "view of " + c.getInterfaces()[0].getSimpleName();
        }
        if (c.getName().startsWith("dev.fenced.")) {
            return "fenced " + c.getSimpleName();
        }
        return isRaw(result) ? "RAW " + c.getSimpleName() : "value";
    }

    /** Who threw: the first frame outside the JDK. */
    private static String thrower(Throwable t) {
        for (StackTraceElement e : t.getStackTrace()) {
            if (!e.getClassName().startsWith("java.")) {
                return e.getClassName().startsWith("org.postgresql")
                        ? "pgjdbc"
                        : e.getClassName().startsWith("dev.fenced") ? "fenced" : e.getClassName();
            }
        }
        return "the JDK";
    }

    private static String receiver(Object o) {
        return Proxy.isProxyClass(o.getClass())
                ? "view of " + o.getClass().getInterfaces()[0].getSimpleName()
                : o.getClass().getSimpleName();
    }

    private void record(Method m, String outcome) {
        outcomes.computeIfAbsent(key(m), k -> new TreeSet<>()).add(outcome);
    }
}
