package dev.fenced.it.clients;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariDataSource;
import dev.fenced.Fencing;
import dev.fenced.FencingScope;
import dev.fenced.it.support.Pools;
import dev.fenced.it.support.TestDatabase;
import java.net.URL;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.Collections;
import java.util.List;
import java.util.jar.JarFile;
import net.sf.jsqlparser.parser.CCJSqlParserUtil;
import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.statement.update.Update;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * An application with JSqlParser {@value #APP_VERSION} of its own on the class path, beside the driver
 * whose JSqlParser 5.3 is relocated to {@code dev.fenced.internal.jsqlparser}: two different classes, one
 * copy of {@code net.sf.jsqlparser} on the class path (the application's), and both parse.
 */
@Tag("jvm-sensitive")
class OwnJSqlParserIT {

    static final String APP_VERSION = "4.9";
    static final String OURS = "dev.fenced.internal.jsqlparser.parser.CCJSqlParserUtil";

    static TestDatabase db;
    static HikariDataSource pool;

    @BeforeAll
    static void start() {
        db = TestDatabase.create();
        db.execute(ClientContract.TOTALS, "INSERT INTO totals VALUES (1, 10, 5)");
        pool = Pools.fenced(db, 1, "fenced.tables=totals");
    }

    @AfterAll
    static void stop() {
        pool.close();
    }

    static String jarOf(Class<?> c) {
        return c.getProtectionDomain().getCodeSource().getLocation().getPath();
    }

    @Test
    void theApplicationsParserAndOursAreDifferentClassesFromDifferentJars() throws Exception {
        Class<?> ours = Class.forName(OURS);
        Class<?> theirs = CCJSqlParserUtil.class;
        assertNotEquals(theirs, ours);
        assertTrue(jarOf(theirs).endsWith("jsqlparser-" + APP_VERSION + ".jar"), jarOf(theirs));
        assertTrue(jarOf(ours).contains("fenced-driver"), jarOf(ours));
        // The driver jar carries no net.sf.jsqlparser of its own: the application's is the only one.
        List<URL> copies = Collections.list(
                getClass().getClassLoader().getResources("net/sf/jsqlparser/parser/CCJSqlParserUtil.class"));
        assertEquals(1, copies.size(), copies.toString());
        try (JarFile driver = new JarFile(jarOf(ours))) {
            assertFalse(driver.stream().anyMatch(e -> e.getName().startsWith("net/sf/jsqlparser/")));
            assertTrue(driver.stream().anyMatch(e -> e.getName().startsWith("dev/fenced/internal/jsqlparser/")));
        }
    }

    @Test
    void bothParseTheSameStatementAndFencingWorksBesideTheApplicationsParser() throws Exception {
        String sql = "UPDATE totals SET amount = ? WHERE restaurant_id = ?";
        // The application parses with its own version...
        Statement parsed = CCJSqlParserUtil.parse(sql);
        assertEquals("totals", assertInstanceOf(Update.class, parsed).getTable().getName());
        // ...ours parses the same text (reflectively: it is internal, relocated API).
        Object oursParsed = Class.forName(OURS).getMethod("parse", String.class).invoke(null, sql);
        assertTrue(
                oursParsed.getClass().getName().startsWith("dev.fenced.internal.jsqlparser."),
                oursParsed.getClass().getName());
        try (Connection c = pool.getConnection()) {
            String fenced = c.nativeSQL(sql);
            // The application's parser reads what fenced sends, too.
            Update sent = assertInstanceOf(Update.class, CCJSqlParserUtil.parse(fenced));
            assertEquals(2, sent.getUpdateSets().size());
            try (FencingScope ignored = Fencing.bind(9);
                    PreparedStatement ps = c.prepareStatement(sql)) {
                ps.setLong(1, 100);
                ps.setInt(2, 1);
                assertEquals(1, ps.executeUpdate());
            }
        }
        assertEquals("1:100:9", Rows.totals(db));
    }
}
