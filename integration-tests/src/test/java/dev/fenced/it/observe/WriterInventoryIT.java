package dev.fenced.it.observe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariDataSource;
import dev.fenced.FencedStats;
import dev.fenced.Fencing;
import dev.fenced.FencingScope;
import dev.fenced.UnfencedWriteException;
import dev.fenced.UnsupportedStatementException;
import dev.fenced.WriterInventory;
import dev.fenced.it.support.Pools;
import dev.fenced.it.support.TestDatabase;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.management.ObjectName;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The writer inventory on real PostgreSQL: what observe mode lets through is recorded with the application's
 * own call site (through HikariCP and Spring's JdbcTemplate), grouped by shape; a write with a token never
 * reaches it; sampling and the entry cap bound it; the report is written on demand, over JMX and at shutdown.
 */
class WriterInventoryIT {

    private static final String SELF = WriterInventoryIT.class.getName();

    private static TestDatabase db;
    private static HikariDataSource pool;

    @BeforeAll
    static void setUp() {
        db = TestDatabase.create();
        db.execute(
                "CREATE TABLE inv_totals (id int PRIMARY KEY, amount bigint, last_token bigint)",
                "INSERT INTO inv_totals SELECT g, 0, NULL FROM generate_series(1, 10) g");
        pool = Pools.fenced(db, 2, "fenced.tables=inv_totals", "fenced.mode=observe");
    }

    @AfterAll
    static void tearDown() {
        pool.close();
    }

    @BeforeEach
    void clear() {
        WriterInventory.clear();
    }

    @Test
    void aWriteWithoutATokenIsRecordedWithItsCallSiteAndShape() throws Exception {
        try (Connection c = pool.getConnection();
                Statement s = c.createStatement()) {
            s.executeUpdate("UPDATE inv_totals SET amount = 5 WHERE id = 1");
            s.executeUpdate("update   inv_totals SET amount = 6 WHERE id = 2");
        }
        List<WriterInventory.Writer> writers = WriterInventory.writers("inv_totals");
        assertEquals(2, writers.size(), writers.toString()); // the keyword's case is part of the shape
        WriterInventory.Writer w = writers.stream()
                .filter(x -> x.shape().startsWith("UPDATE"))
                .findFirst()
                .orElseThrow();
        assertEquals("UPDATE inv_totals SET amount = ? WHERE id = ?", w.shape());
        assertEquals("no token", w.kind().label());
        assertEquals("no token is bound", w.reason());
        assertTrue(
                w.callSite()
                        .startsWith(SELF + ".aWriteWithoutATokenIsRecordedWithItsCallSiteAndShape("
                                + "WriterInventoryIT.java:"),
                w.callSite());
        assertEquals(1, w.samples());
        assertEquals(1, w.shapeWrites());
        assertFalse(w.lastSeen().isBefore(w.firstSeen()));

        WriterInventory.TableState state = WriterInventory.tables().stream()
                .filter(t -> t.table().equals("inv_totals"))
                .findFirst()
                .orElseThrow();
        assertEquals("observe", state.mode().key());
        assertEquals("last_token", state.column());
        assertTrue(state.columnChecked());
        assertEquals(2, state.writersWithoutToken());
        assertFalse(state.readyForEnforce());
        assertEquals("observe: 2 writers need work (2 without a token)", state.state());
    }

    @Test
    void oneShapeFromTwoCallSitesIsTwoWritersAndPreparedParametersShareOneShape() throws Exception {
        for (int id = 1; id <= 3; id++) {
            writeThroughPreparedStatement(id);
        }
        writeFromSpring(4);
        List<WriterInventory.Writer> writers = WriterInventory.writers("inv_totals");
        assertEquals(2, writers.size(), writers.toString());
        for (WriterInventory.Writer w : writers) {
            assertEquals("UPDATE inv_totals SET amount = ? WHERE id = ?", w.shape());
            assertEquals(4, w.shapeWrites());
        }
        assertTrue(
                writers.stream()
                        .anyMatch(w ->
                                w.callSite().startsWith(SELF + ".writeThroughPreparedStatement(") && w.samples() == 3),
                writers.toString());
        // JdbcTemplate's frames and HikariCP's are stepped over: the site is the method that called Spring
        assertTrue(
                writers.stream().anyMatch(w -> w.callSite().startsWith(SELF + ".writeFromSpring(") && w.samples() == 1),
                writers.toString());
    }

    private static void writeThroughPreparedStatement(int id) throws Exception {
        try (Connection c = pool.getConnection();
                PreparedStatement ps = c.prepareStatement("UPDATE inv_totals SET amount = ? WHERE id = ?")) {
            ps.setLong(1, id * 10L);
            ps.setInt(2, id);
            ps.executeUpdate();
        }
    }

    private static void writeFromSpring(int id) {
        new JdbcTemplate(pool).update("UPDATE inv_totals SET amount = ? WHERE id = ?", 7L, id);
    }

    @Test
    void aWriteWithATokenNeverReachesTheInventory() throws Exception {
        try (Connection c = pool.getConnection();
                Statement s = c.createStatement();
                FencingScope ignored = Fencing.bind(100)) {
            s.executeUpdate("UPDATE inv_totals SET amount = 1 WHERE id = 3");
        }
        assertEquals(List.of(), WriterInventory.writers("inv_totals"));
    }

    @Test
    void anUnfenceableStatementIsRecordedWithTheConstruct() throws Exception {
        try (Connection c = pool.getConnection();
                Statement s = c.createStatement();
                FencingScope ignored = Fencing.bind(200)) {
            c.setAutoCommit(false);
            s.execute("DECLARE inv_cur CURSOR FOR SELECT * FROM inv_totals WHERE id = 5 FOR UPDATE");
            s.execute("FETCH inv_cur");
            s.executeUpdate("DELETE FROM inv_totals WHERE CURRENT OF inv_cur");
            c.rollback();
            c.setAutoCommit(true);
        }
        List<WriterInventory.Writer> writers = WriterInventory.writers("inv_totals");
        assertEquals(1, writers.size(), writers.toString());
        WriterInventory.Writer w = writers.get(0);
        assertEquals("unfenceable", w.kind().label());
        assertEquals("DELETE FROM inv_totals WHERE CURRENT OF inv_cur", w.shape());
        assertTrue(w.reason().contains("CURRENT OF"), w.reason());
        assertTrue(w.callSite().startsWith(SELF + ".anUnfenceableStatementIsRecordedWithTheConstruct("), w.callSite());
        assertEquals(
                "observe: 1 writer needs work (1 unfenceable)",
                WriterInventory.tables().stream()
                        .filter(t -> t.table().equals("inv_totals"))
                        .findFirst()
                        .orElseThrow()
                        .state());
    }

    @Test
    void afterTheFirstWritesOfAShapeTheCallSiteIsSampled() throws Exception {
        long observedBefore = FencedStats.counters().get("fenced.writes.unfenced.observed");
        try (Connection c = pool.getConnection();
                PreparedStatement ps = c.prepareStatement("UPDATE inv_totals SET amount = ? WHERE id = 6")) {
            for (int i = 0; i < 200; i++) {
                ps.setLong(1, i);
                ps.executeUpdate();
            }
        }
        WriterInventory.Writer w = WriterInventory.writers("inv_totals").get(0);
        assertEquals(200, w.shapeWrites());
        // the first 16 are walked, then one in 64: writes 64, 128 and 192
        assertEquals(16 + 3, w.samples());
        assertEquals(observedBefore + 200, FencedStats.counters().get("fenced.writes.unfenced.observed"));
    }

    @Test
    void theInventoryIsCappedAndCountsWhatItDropped() throws Exception {
        try (HikariDataSource small = Pools.fenced(
                        db, 1, "fenced.tables=inv_totals", "fenced.mode=observe", "fenced.observe.maxWriters=4");
                Connection c = small.getConnection();
                Statement s = c.createStatement()) {
            for (int i = 0; i < 6; i++) {
                s.executeUpdate("UPDATE inv_totals SET amount = 1 WHERE id = 7" + " AND amount >= 0".repeat(i));
            }
        }
        // each shape has one call site: two entries per writer, four entries kept
        assertEquals(2, WriterInventory.writers("inv_totals").size());
        assertEquals(4, WriterInventory.dropped());
    }

    @Test
    void theInventoryCanBeTurnedOffAndEnforceModeRecordsNothing() throws Exception {
        try (Connection c = DriverManager.getConnection(db.fencedUrl(
                        "fenced.tables=inv_totals", "fenced.mode=observe", "fenced.observe.inventory=false"));
                Statement s = c.createStatement()) {
            s.executeUpdate("UPDATE inv_totals SET amount = 2 WHERE id = 8");
        }
        try (Connection c = DriverManager.getConnection(db.fencedUrl("fenced.tables=inv_totals"));
                Statement s = c.createStatement()) {
            assertThrows(
                    UnfencedWriteException.class,
                    () -> s.executeUpdate("UPDATE inv_totals SET amount = 2 WHERE id = 8"));
            assertThrows(UnsupportedStatementException.class, () -> s.execute("TRUNCATE inv_totals"));
        }
        assertEquals(List.of(), WriterInventory.writers("inv_totals"));
    }

    @Test
    void theReportIsWrittenOnDemandAsMarkdownOrJsonAndReadOverJmx(@TempDir Path dir) throws Exception {
        Path md = dir.resolve("inventory.md");
        Path json = dir.resolve("inventory.json");
        try (HikariDataSource reporting = Pools.fenced(
                        db, 1, "fenced.tables=inv_totals", "fenced.mode=observe", "fenced.observe.report=" + json);
                Connection c = reporting.getConnection();
                Statement s = c.createStatement()) {
            s.executeUpdate("UPDATE inv_totals SET amount = 3 WHERE id = 9");
        }
        WriterInventory.writeReport(md);
        String markdown = Files.readString(md);
        assertTrue(markdown.startsWith("# fenced writer inventory"), markdown);
        assertTrue(
                markdown.contains("| inv_totals | observe | last_token (present) | observe: 1 writer needs work"),
                markdown);
        assertTrue(markdown.contains("`UPDATE inv_totals SET amount = ? WHERE id = ?`"), markdown);
        assertTrue(markdown.contains(SELF + ".theReportIsWrittenOnDemandAsMarkdownOrJsonAndReadOverJmx("), markdown);

        assertTrue(WriterInventory.writeReport().contains(json));
        String text = Files.readString(json);
        assertTrue(text.contains("\"shape\": \"UPDATE inv_totals SET amount = ? WHERE id = ?\""), text);
        assertTrue(text.contains("\"readyForEnforce\": false"), text);

        var server = ManagementFactory.getPlatformMBeanServer();
        ObjectName name = new ObjectName("dev.fenced:type=WriterInventory");
        String[] lines = (String[]) server.getAttribute(name, "Writers");
        assertTrue(
                List.of(lines).stream().anyMatch(l -> l.startsWith("inv_totals\tno token\tUPDATE inv_totals")),
                List.of(lines).toString());
        assertTrue(((String) server.getAttribute(name, "ReportMarkdown")).contains("inv_totals"));
        assertTrue(((String) server.invoke(name, "writeReport", null, null)).contains(json.toString()));
    }

    @Test
    void theReportIsWrittenAtShutdown(@TempDir Path dir) throws Exception {
        Path report = dir.resolve("at-exit.md");
        Process child = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-cp",
                        System.getProperty("java.class.path"),
                        ObserveChild.class.getName(),
                        db.fencedUrl(
                                "fenced.tables=inv_totals", "fenced.mode=observe", "fenced.observe.report=" + report))
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("child.log").toFile())
                .start();
        assertTrue(child.waitFor(60, TimeUnit.SECONDS), "the child JVM ends");
        assertEquals(0, child.exitValue(), Files.readString(dir.resolve("child.log")));
        String text = Files.readString(report);
        assertTrue(text.contains(ObserveChild.class.getName() + ".main("), text);
        assertTrue(text.contains("`DELETE FROM inv_totals WHERE id = ?`"), text);
    }
}
