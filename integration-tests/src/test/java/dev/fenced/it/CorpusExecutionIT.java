package dev.fenced.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.fenced.FencingMode;
import dev.fenced.internal.config.ProtectedTable;
import dev.fenced.internal.config.RelativeUpdatePolicy;
import dev.fenced.internal.config.TableName;
import dev.fenced.internal.sql.FencingTargets;
import dev.fenced.internal.sql.RewritePlan;
import dev.fenced.internal.sql.SqlRewriter;
import dev.fenced.internal.sql.TableShape;
import dev.fenced.it.support.TestDatabase;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.TestInstance;

/**
 * "Rewritten" must mean "runs": a sample of fenced corpus statements, executed on real PostgreSQL against
 * tables made for them (each with {@code last_token bigint}), exactly as the driver would send them: {@code
 * plan.sql()} through a plain pgjdbc PreparedStatement, the token bound at every token index. For each
 * statement, every run on a fresh copy of its tables:
 * <ol>
 *   <li>token 100 on unfenced rows: runs, writes something, and every row it writes carries 100;</li>
 *   <li>the same through {@code render(100)} on a plain Statement: the same rows;</li>
 *   <li>its literals as user parameters (bound untyped at {@code delegateIndexes}): the same rows;</li>
 *   <li>rows stamped 200 by a "newer holder", token 250: runs, written rows carry 250;</li>
 *   <li>rows stamped 200, token 150 (older), when step 1 changed or removed existing rows (UPDATE, DELETE,
 *       the upsert's update path): fails with SQLState 22023 or 22P02 and {@code fenced-stale:}, and changes nothing.</li>
 * </ol>
 * Which statements and how many go to {@code target/corpus-execution-report.txt}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Tag("server-sensitive")
class CorpusExecutionIT {

    private static final long FIRST = 100;
    private static final long NEWER = 200;
    private static final long OLDER = 150;
    private static final long AFTER_NEWER = 250;

    /** Tables a scenario's statements write, made fresh (with its seed rows) before every run. */
    record Scenario(String name, List<String> roots, List<String> setup, int[] records) {}

    private static Scenario scenario(String name, String roots, String setup, int... records) {
        return new Scenario(name, List.of(roots.split(",\\s*")), List.of(setup.split(";\\s*\n")), records);
    }

    /** The DDL follows the regression files, trimmed to what the statements need, plus the fence column. */
    static List<Scenario> scenarios() {
        List<Scenario> s = new ArrayList<>();
        s.add(scenario("update.sql update_test", "update_test", """
                CREATE TABLE update_test (a INT DEFAULT 10, b INT, c TEXT, last_token bigint);
                INSERT INTO update_test (a, b, c) VALUES (5, 10, 'foo'), (10, 15, NULL), (12, 20, 'car'),
                    (100, 20, 'car'), (11, 41, 'car')
                """, 2, 3, 4, 5, 7, 10, 11, 13, 14, 16, 20, 21));
        s.add(scenario("update.sql range_parted", "range_parted", """
                CREATE TABLE range_parted (a text, b bigint, c numeric, d int, e varchar, last_token bigint)
                    PARTITION BY RANGE (a, b);
                CREATE TABLE part_b_20_b_30 PARTITION OF range_parted FOR VALUES FROM ('b', 20) TO ('b', 30);
                CREATE TABLE part_b_10_b_20 PARTITION OF range_parted FOR VALUES FROM ('b', 10) TO ('b', 20)
                    PARTITION BY RANGE (c);
                CREATE TABLE part_b_1_b_10 PARTITION OF range_parted FOR VALUES FROM ('b', 1) TO ('b', 10);
                CREATE TABLE part_a_10_a_20 PARTITION OF range_parted FOR VALUES FROM ('a', 10) TO ('a', 20);
                CREATE TABLE part_a_1_a_10 PARTITION OF range_parted FOR VALUES FROM ('a', 1) TO ('a', 10);
                CREATE TABLE part_c_100_200 PARTITION OF part_b_10_b_20 FOR VALUES FROM (100) TO (200)
                    PARTITION BY RANGE (abs(d));
                CREATE TABLE part_d_1_15 PARTITION OF part_c_100_200 FOR VALUES FROM (1) TO (15);
                CREATE TABLE part_d_15_20 PARTITION OF part_c_100_200 FOR VALUES FROM (15) TO (20);
                CREATE TABLE part_c_1_100 PARTITION OF part_b_10_b_20 FOR VALUES FROM (1) TO (100);
                INSERT INTO range_parted (a, b, c, d) VALUES ('a', 1, 1, 1), ('a', 10, 200, 1), ('b', 12, 96, 1),
                    ('b', 13, 97, 2), ('b', 15, 105, 16), ('b', 17, 105, 19)
                """, 34, 35, 37, 39, 45, 46, 47, 50, 58));
        s.add(scenario("insert.sql inserttest", "inserttest", """
                CREATE TABLE inserttest (col1 int4, col2 int4 NOT NULL, col3 text default 'testing',
                    last_token bigint)
                """, 96, 97, 98, 99, 104, 105));
        s.add(scenario(
                "insert.sql inserttest, a dropped column before the positional values' columns",
                "inserttest",
                """
                CREATE TABLE inserttest (col1 int4, gone int, col2 int4 NOT NULL, col3 text default 'testing',
                    last_token bigint);
                ALTER TABLE inserttest DROP COLUMN gone
                """,
                98,
                99,
                104,
                105));
        s.add(scenario("insert_conflict.sql selfconflict", "selfconflict", """
                CREATE TABLE selfconflict (f1 int PRIMARY KEY, f2 int, last_token bigint)
                """, 341, 342));
        s.add(scenario(
                "identity.sql itest5, itest1 column-less",
                "itest5, itest1",
                """
                CREATE TABLE itest5 (a int GENERATED ALWAYS AS IDENTITY, b text, last_token bigint);
                CREATE TABLE itest1 (a int GENERATED BY DEFAULT AS IDENTITY, b text, last_token bigint)
                """,
                772,
                776,
                777,
                778,
                782,
                786,
                789,
                790,
                791));
        s.add(scenario("merge.sql target/source", "target", """
                CREATE TABLE target (tid integer, balance integer, last_token bigint);
                CREATE TABLE source (sid integer, delta integer);
                INSERT INTO target (tid, balance) VALUES (1, 10), (2, 20), (3, 30);
                INSERT INTO source VALUES (2, 5), (3, 20), (4, 40)
                """, 462, 463, 488, 489, 491, 496, 499, 521, 524, 527));
        s.add(scenario("merge.sql wq_target, empty", "wq_target", """
                CREATE TABLE wq_target (tid integer not null, balance integer DEFAULT -1, last_token bigint);
                CREATE TABLE wq_source (balance integer, sid integer);
                INSERT INTO wq_source (sid, balance) VALUES (1, 100)
                """, 502, 505));
        s.add(scenario("merge.sql wq_target, matched", "wq_target", """
                CREATE TABLE wq_target (tid integer not null, balance integer DEFAULT -1, last_token bigint);
                CREATE TABLE wq_source (balance integer, sid integer);
                INSERT INTO wq_source (sid, balance) VALUES (1, 100);
                INSERT INTO wq_target (tid, balance) VALUES (1, 99)
                """, 510, 513));
        s.add(scenario("insert.sql mlparted", "mlparted", """
                CREATE TABLE mlparted (a int, b int, last_token bigint) PARTITION BY RANGE (a, b);
                CREATE TABLE mlparted1 PARTITION OF mlparted FOR VALUES FROM (1, 2) TO (1, 10);
                CREATE TABLE mlparted2 PARTITION OF mlparted FOR VALUES FROM (1, 10) TO (1, 20);
                CREATE TABLE mlparted3 PARTITION OF mlparted FOR VALUES FROM (1, 20) TO (1, 40)
                """, 207, 211));
        s.add(scenario("insert_conflict.sql dropcol", "dropcol", """
                CREATE TABLE dropcol (key int PRIMARY KEY, drop1 int, keep1 text, drop2 numeric, keep2 float,
                    last_token bigint)
                """, 331));
        s.add(scenario("insert_conflict.sql dropcol, conflicting row", "dropcol", """
                CREATE TABLE dropcol (key int PRIMARY KEY, drop1 int, keep1 text, drop2 numeric, keep2 float,
                    last_token bigint);
                INSERT INTO dropcol (key, drop1, keep1, drop2, keep2) VALUES (1, 1, '1', '1', 1)
                """, 332, 333));
        s.add(scenario("insert_conflict.sql dropcol, columns dropped", "dropcol", """
                CREATE TABLE dropcol (key int PRIMARY KEY, drop1 int, keep1 text, drop2 numeric, keep2 float,
                    last_token bigint);
                INSERT INTO dropcol (key, drop1, keep1, drop2, keep2) VALUES (1, 1, '1', '1', 1);
                ALTER TABLE dropcol DROP COLUMN drop1, DROP COLUMN drop2
                """, 334, 335));
        s.add(scenario(
                "insert_conflict.sql parted_conflict_test", "parted_conflict_test", """
                CREATE TABLE parted_conflict_test (a int UNIQUE, b char, last_token bigint) PARTITION BY LIST (a);
                CREATE TABLE parted_conflict_test_1 PARTITION OF parted_conflict_test FOR VALUES IN (1, 2);
                CREATE TABLE parted_conflict_test_2 PARTITION OF parted_conflict_test FOR VALUES IN (3, 4, 5);
                INSERT INTO parted_conflict_test (a, b) VALUES (1, 'a'), (2, 'a'), (4, 'a'), (5, 'a')
                """, 356, 357, 358, 359, 361));
        s.add(scenario("insert_conflict.sql parted_conflict_test, empty", "parted_conflict_test", """
                CREATE TABLE parted_conflict_test (a int UNIQUE, b char, last_token bigint) PARTITION BY LIST (a);
                CREATE TABLE parted_conflict_test_1 PARTITION OF parted_conflict_test FOR VALUES IN (1, 2);
                CREATE TABLE parted_conflict_test_2 PARTITION OF parted_conflict_test FOR VALUES IN (3, 4, 5)
                """, 360));
        s.add(scenario("delete.sql delete_test", "delete_test", """
                CREATE TABLE delete_test (id SERIAL PRIMARY KEY, a INT, b text, last_token bigint);
                INSERT INTO delete_test (a) VALUES (10), (50), (100)
                """, 370, 371, 372, 373, 375));
        s.add(scenario("with.sql y", "y", """
                CREATE TABLE y (a INTEGER, last_token bigint);
                INSERT INTO y (a) SELECT generate_series(1, 30)
                """, 389, 390, 393, 394, 396, 403));
        s.add(scenario("with.sql parent/child", "parent", """
                CREATE TABLE parent (id int, val text, last_token bigint);
                CREATE TABLE child1 () INHERITS (parent);
                CREATE TABLE child2 () INHERITS (parent);
                INSERT INTO parent (id, val) VALUES (1, 'p1');
                INSERT INTO child1 (id, val) VALUES (11, 'c11'), (12, 'c12');
                INSERT INTO child2 (id, val) VALUES (23, 'c21'), (24, 'c22')
                """, 426, 428));
        s.add(scenario(
                "returning.sql foo",
                "foo",
                """
                CREATE TABLE int4_tbl (f1 int4);
                INSERT INTO int4_tbl VALUES (0), (123456), (-123456), (2147483647), (-2147483647);
                CREATE TABLE int8_tbl (q1 int8, q2 int8);
                INSERT INTO int8_tbl VALUES (123, 456), (123, 4567890123456789), (4567890123456789, 123);
                CREATE TABLE foo (f1 serial, f2 text, f3 int default 42, f4 int8 DEFAULT 99, last_token bigint);
                INSERT INTO foo (f1, f2, f3) VALUES (1, 'test', 42), (2, 'More', 11), (3, 'MORE', 16),
                    (11, 'test', 141), (13, 'zit', 57), (123, 'x', 9);
                SELECT setval('foo_f1_seq', 200)
                """,
                600,
                601,
                602,
                604,
                605,
                606,
                607,
                609,
                610,
                611,
                618,
                619,
                624,
                626,
                627));
        s.add(scenario(
                "inherit.sql a/b/c/d", "a", """
                CREATE TABLE a (aa TEXT, last_token bigint);
                CREATE TABLE b (bb TEXT) INHERITS (a);
                CREATE TABLE c (cc TEXT) INHERITS (a);
                CREATE TABLE d (dd TEXT) INHERITS (b, c, a);
                INSERT INTO a (aa) VALUES ('aaa'), ('aaaa'), ('aaaaa');
                INSERT INTO b (aa) VALUES ('bbb'), ('aaa');
                INSERT INTO c (aa) VALUES ('ccc'), ('new');
                INSERT INTO d (aa) VALUES ('ddd'), ('aaaaaa')
                """, 851, 857, 863, 869, 875, 876, 877, 878, 879, 880, 881, 882, 883));
        s.add(scenario("inherit.sql foo/bar", "bar", """
                CREATE TABLE foo (f1 int, f2 int);
                CREATE TABLE foo2 (f3 int) INHERITS (foo);
                CREATE TABLE bar (f1 int, f2 int, last_token bigint);
                CREATE TABLE bar2 (f3 int) INHERITS (bar);
                INSERT INTO foo VALUES (1, 1), (3, 3);
                INSERT INTO foo2 VALUES (2, 2, 2);
                INSERT INTO bar (f1, f2) VALUES (1, 1), (2, 2), (3, 3), (4, 4);
                INSERT INTO bar2 (f1, f2, f3) VALUES (1, 1, 1), (2, 2, 2), (3, 3, 3), (4, 4, 4)
                """, 902, 903));
        s.add(scenario("inherit.sql inhpar", "inhpar", """
                CREATE TABLE int4_tbl (f1 int4);
                INSERT INTO int4_tbl VALUES (0), (123456);
                CREATE TABLE inhpar (f1 int, f2 text, last_token bigint);
                CREATE TABLE inhcld () INHERITS (inhpar);
                INSERT INTO inhpar (f1, f2) SELECT x, x::text FROM generate_series(1, 3) x;
                INSERT INTO inhcld (f1, f2) SELECT x, x::text FROM generate_series(4, 6) x
                """, 942));
        s.add(scenario("identity.sql itest1..3", "itest1, itest2, itest3", """
                CREATE TABLE itest1 (a int GENERATED BY DEFAULT AS IDENTITY, b text, last_token bigint);
                CREATE TABLE itest2 (a bigint GENERATED ALWAYS AS IDENTITY, b text, last_token bigint);
                CREATE TABLE itest3 (a smallint GENERATED BY DEFAULT AS IDENTITY (START WITH 7 INCREMENT BY 5),
                    b text, last_token bigint);
                INSERT INTO itest1 (b) VALUES ('one'), ('two');
                INSERT INTO itest2 (b) VALUES ('one'), ('two')
                """, 763, 765, 767, 795, 796, 798));
        // composite-field and subscripted target columns: JSqlParser would change them, the skeleton fences them
        s.add(scenario(
                "insert.sql inserttest fields and subscripts",
                "inserttest",
                """
                CREATE TYPE insert_test_type AS (if1 int, if2 text[]);
                CREATE TABLE inserttest (f1 int, f2 int[], f3 insert_test_type, f4 insert_test_type[],
                    last_token bigint)
                """,
                110,
                111,
                112,
                114,
                115,
                116,
                118,
                119,
                120,
                121,
                122,
                123)); // 113, 117: DEFAULT into a subscript or field, an error raw too
        s.add(scenario("arrays.sql arrtest", "arrtest", """
                CREATE TABLE arrtest (a int2[], b int4[][][], c name[], d text[][], e float8[], f char(5)[],
                    g varchar(5)[], last_token bigint);
                INSERT INTO arrtest (a, b, c, d, e) VALUES ('{1,2,3,4,5}', '{{{0,0},{1,2}}}', '{}', '{}', '{1.5}'),
                    ('{1,NULL,3}', NULL, '{"foo","bar"}', '{}', '{}')
                """, 629, 630, 636, 638, 639, 640, 641));
        s.add(scenario("arrays.sql arrtest1", "arrtest1", """
                CREATE TABLE arrtest1 (i int[], t text[], last_token bigint);
                INSERT INTO arrtest1 (i, t) VALUES (array[1,2,null,4], array['one','two',null,'four'])
                """, 660, 661, 665, 669, 672));
        s.add(scenario("rowsecurity.sql t1", "t1", """
                CREATE TABLE t1 (a int, b text, last_token bigint);
                INSERT INTO t1 (a, b) VALUES (1, 'aba'), (2, 'bbb'), (3, 'ccc')
                """, 1786, 1787));
        s.add(scenario("jsonb.sql test_jsonb_subscript", "test_jsonb_subscript", """
                CREATE TABLE test_jsonb_subscript (id int, test_json jsonb, last_token bigint);
                INSERT INTO test_jsonb_subscript (id, test_json) VALUES (1, '{}'), (2, '{}'), (3, '{"a": 1}')
                """, 1807, 1809, 1810, 1813, 1818));
        return s;
    }

    private TestDatabase db;
    private Connection conn;
    private List<String> records;
    private List<String[]> index;
    private SqlRewriter rewriter;
    private final Map<Integer, String> outcomes = new TreeMap<>();
    private int staleChecked;
    private int syntaxChecked;
    private int variantsRun;
    private final List<String> variantsNotRunnable = new ArrayList<>();

    @BeforeAll
    void start() throws Exception {
        db = TestDatabase.create();
        conn = db.rawConnection();
        conn.setAutoCommit(true);
        String corpus = System.getProperty("fencedtest.corpus");
        assertNotNull(corpus, "system property fencedtest.corpus");
        String text = Files.readString(Path.of(corpus));
        String[] parts = text.split("\r?\n-- next\r?\n", -1);
        records = new ArrayList<>(Arrays.asList(parts).subList(1, parts.length));
        records.set(records.size() - 1, records.get(records.size() - 1).stripTrailing());
        index = new ArrayList<>();
        for (String line : Files.readAllLines(Path.of(corpus.replace(".sql", ".index.tsv")))
                .subList(1, records.size() + 1)) {
            index.add(line.split("\t", -1));
        }
        List<ProtectedTable> written = writtenTables(records);
        // For the syntax check, which needs no tables: a model catalog (enough columns before the fence column, a
        // key), so column-less INSERTs, MERGE's INSERTs and DELETEs' tombstones are in the fenced output checked.
        List<String> modelColumns = new ArrayList<>();
        for (int i = 1; i <= 99; i++) {
            modelColumns.add("m" + i);
        }
        modelColumns.add("last_token");
        Map<TableName, TableShape> model = new TreeMap<>(java.util.Comparator.comparing(TableName::toString));
        written.forEach(t -> model.put(
                t.name(), new TableShape(modelColumns, List.of("m1"), t.name().name())));
        rewriter = new SqlRewriter(
                FencingTargets.modelled(written, Map.of(), Set.of(), model, TableName.parse("fenced_tombstone")),
                RelativeUpdatePolicy.ALLOW,
                Duration.ofSeconds(2));
    }

    @AfterAll
    void stop() throws SQLException, IOException {
        StringBuilder b = new StringBuilder("fenced corpus statements executed on PostgreSQL ")
                .append(conn.getMetaData().getDatabaseProductVersion())
                .append('\n');
        long passed = outcomes.values().stream().filter(o -> o.startsWith("ok")).count();
        Map<String, Integer> byFile = new TreeMap<>();
        outcomes.keySet().forEach(n -> byFile.merge(index.get(n - 1)[1], 1, Integer::sum));
        b.append(outcomes.size())
                .append(" statements from ")
                .append(byFile.size())
                .append(" files, ")
                .append(passed)
                .append(" passed; stale check (22023/22P02 fenced-stale:, nothing changed) on ")
                .append(staleChecked)
                .append("; parameterised variant run and compared on ")
                .append(variantsRun)
                .append('\n');
        b.append("by file: ").append(byFile).append('\n');
        b.append("every fenced corpus statement (")
                .append(syntaxChecked)
                .append(") passed PostgreSQL's raw parser (PL/pgSQL validator)\n");
        b.append("variants PostgreSQL could not type with untyped parameters (skipped): ")
                .append(variantsNotRunnable.size())
                .append('\n');
        variantsNotRunnable.forEach(v -> b.append("  ").append(v).append('\n'));
        outcomes.forEach((n, o) -> b.append(
                String.format(Locale.ROOT, "#%d %s:%s  %s%n", n, index.get(n - 1)[1], index.get(n - 1)[2], o)));
        Path out = Path.of("target", "corpus-execution-report.txt");
        Files.createDirectories(out.getParent());
        Files.writeString(out, b);
        System.out.println(b);
        conn.close();
    }

    /**
     * Beyond the executed sample: every fenced corpus statement must be valid PostgreSQL syntax. PL/pgSQL's
     * validator runs the server's own raw parser over each statement of a function body without analysing it,
     * so no tables are needed: a statement that does not parse fails CREATE FUNCTION.
     */
    @org.junit.jupiter.api.Test
    void everyFencedCorpusStatementIsValidPostgreSQLSyntax() throws SQLException {
        List<String> problems = new ArrayList<>();
        int fenced = 0;
        try (Statement st = conn.createStatement()) {
            st.execute("SET check_function_bodies = on");
            for (int n = 1; n <= records.size(); n++) {
                if (!(rewriter.plan(records.get(n - 1)) instanceof RewritePlan.Fenced plan)) {
                    continue;
                }
                fenced++;
                String problem = syntaxProblem(st, plan.sql());
                // the corpus is PostgreSQL 17's: on an older server a statement whose own text is not valid
                // there either (MERGE ... RETURNING, NOT MATCHED BY SOURCE) is not fenced's doing
                if (problem != null && syntaxProblem(st, records.get(n - 1)) == null) {
                    problems.add("#" + n + ": " + problem + "\n    " + plan.sql());
                }
            }
        }
        syntaxChecked = fenced;
        assertTrue(fenced > 600, "only " + fenced + " fenced corpus statements");
        assertTrue(problems.isEmpty(), String.join("\n", problems));
    }

    /** The server's syntax error for {@code sql} (its ?s as $n), checked inside a function body; null if none. */
    private static String syntaxProblem(Statement st, String sql) {
        StringBuilder body = new StringBuilder();
        int p = 0;
        for (char c : sql.toCharArray()) {
            // pgjdbc sends ? as $n; one inside a string literal stays a string either way
            body.append(c == '?' ? "$" + (++p) : String.valueOf(c));
        }
        try {
            st.execute("CREATE OR REPLACE FUNCTION pg_temp.fenced_syntax() RETURNS void LANGUAGE plpgsql"
                    + " AS $fenced_fn$ BEGIN " + body + "; END $fenced_fn$");
            return null;
        } catch (SQLException e) {
            return firstLine(e.getMessage());
        }
    }

    @TestFactory
    Stream<DynamicTest> fencedCorpusStatementsRunOnPostgreSQL() {
        List<DynamicTest> tests = new ArrayList<>();
        for (Scenario s : scenarios()) {
            for (int n : s.records()) {
                tests.add(DynamicTest.dynamicTest("#" + n + " " + s.name(), () -> {
                    outcomes.put(n, "failed");
                    outcomes.put(n, run(s, n));
                }));
            }
        }
        return tests.stream();
    }

    private String run(Scenario s, int n) throws Exception {
        String sql = records.get(n - 1);
        // 0. the statement as written, raw: what fenced must write too (the fence column aside)
        fresh(s, null);
        try (Statement st = conn.createStatement()) {
            drain(st, st.execute(sql));
        }
        Map<String, Long> raw = withoutFence(s);
        SqlRewriter rewriter = rewriterFor(s);
        RewritePlan planned = rewriter.plan(sql);
        RewritePlan.Fenced plan =
                assertInstanceOf(RewritePlan.Fenced.class, planned, () -> "#" + n + " is not fenced: " + planned);
        assertEquals(0, plan.userParameterCount(), "corpus statements in this sample have no ?");

        // 1. token 100 on rows nobody fenced yet
        Map<String, Long> before = fresh(s, null);
        execute(plan, FIRST, List.of());
        Map<String, Long> first = snapshot(s);
        Delta d1 = Delta.of(before, first);
        assertEquals(raw, withoutFence(s), "#" + n + ": fenced wrote other rows than the statement as written");
        assertTrue(d1.changed(), "#" + n + " wrote nothing; the sample must prove something");
        d1.assertAddedCarry(FIRST, "#" + n + " with token " + FIRST);

        // 2. the same, rendered for a plain Statement
        fresh(s, null);
        try (Statement st = conn.createStatement()) {
            drain(st, st.execute(plan.render(FIRST)));
        }
        assertEquals(first, snapshot(s), "#" + n + ": render(token) wrote other rows than the prepared plan");

        // 3. literals as user parameters, bound where delegateIndexes says
        Variant v = Variant.of(sql);
        if (v != null) {
            if (rewriter.plan(v.sql()) instanceof RewritePlan.Fenced vp) {
                fresh(s, null);
                try {
                    execute(vp, FIRST, v.values());
                    assertEquals(
                            first, snapshot(s), "#" + n + ": the parameterised variant wrote other rows: " + vp.sql());
                    variantsRun++;
                } catch (SQLException e) {
                    variantsNotRunnable.add("#" + n + " " + e.getSQLState() + " " + firstLine(e.getMessage()));
                }
            }
        }

        // 4. rows a newer holder wrote (200), a still newer token (250)
        fresh(s, NEWER);
        Map<String, Long> stamped = snapshot(s);
        execute(plan, AFTER_NEWER, List.of());
        Delta d4 = Delta.of(stamped, snapshot(s));
        assertTrue(d4.changed(), "#" + n + " wrote nothing over token " + NEWER);
        d4.assertAddedCarry(AFTER_NEWER, "#" + n + " with token " + AFTER_NEWER);

        // 5. the same rows, an older token (150): refused as stale, nothing changed
        if (d1.removedAny()) {
            fresh(s, NEWER);
            try {
                execute(plan, OLDER, List.of());
                fail("#" + n + " overwrote rows holding token " + NEWER + " with older token " + OLDER + ": "
                        + plan.sql());
            } catch (SQLException e) {
                // the UPDATE guard's pg_size_bytes rejects the marker with 22023, the DELETE check's cast with 22P02
                assertTrue(List.of("22023", "22P02").contains(e.getSQLState()), () -> "#" + n + ": " + e.getMessage());
                assertTrue(e.getMessage().contains("fenced-stale:" + NEWER + ":"), e.getMessage());
            }
            assertEquals(stamped, snapshot(s), "#" + n + ": the refused statement changed rows");
            staleChecked++;
            return "ok, " + d1 + ", stale refused";
        }
        return "ok, " + d1;
    }

    /** Drops and re-creates the scenario's tables with their seed rows; stamps every row when asked. */
    private Map<String, Long> fresh(Scenario s, Long stamp) throws SQLException {
        try (Statement st = conn.createStatement()) {
            st.execute("DROP SCHEMA IF EXISTS corpus CASCADE");
            st.execute("CREATE SCHEMA corpus");
            st.execute("SET search_path = corpus, public");
            for (String ddl : s.setup()) {
                st.execute(ddl);
            }
            if (stamp != null) {
                for (String root : s.roots()) {
                    st.execute("UPDATE " + root + " SET last_token = " + stamp);
                }
            }
        }
        return snapshot(s);
    }

    /**
     * A rewriter on what the catalog says about the scenario's tables right now (live columns in attnum order), as
     * the driver's catalog read would; no tombstones (TombstoneIT covers them).
     */
    private SqlRewriter rewriterFor(Scenario s) throws SQLException {
        List<ProtectedTable> written = writtenTables(records);
        Map<TableName, TableShape> shapes = new TreeMap<>(java.util.Comparator.comparing(TableName::toString));
        try (Statement st = conn.createStatement();
                ResultSet rs = st.executeQuery("SELECT c.relname,"
                        + " array_agg(a.attname::text ORDER BY a.attnum) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
                        + " JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped"
                        + " WHERE n.nspname = 'corpus' GROUP BY c.relname")) {
            while (rs.next()) {
                TableName name = new TableName(null, rs.getString(1));
                List<String> columns = List.of((String[]) rs.getArray(2).getArray());
                shapes.put(name, new TableShape(columns, List.of(), null));
            }
        }
        return new SqlRewriter(
                FencingTargets.modelled(written, Map.of(), Set.of(), shapes, null),
                RelativeUpdatePolicy.ALLOW,
                Duration.ofSeconds(2));
    }

    /** The scenario's rows without their fence column, as a multiset. */
    private Map<String, Long> withoutFence(Scenario s) throws SQLException {
        Map<String, Long> rows = new TreeMap<>();
        try (Statement st = conn.createStatement()) {
            for (String root : s.roots()) {
                try (ResultSet rs = st.executeQuery("SELECT tableoid::regclass::text || ' '"
                        + " || (to_jsonb(snap) - 'last_token')::text FROM " + root + " snap")) {
                    while (rs.next()) {
                        rows.merge(rs.getString(1), 1L, Long::sum);
                    }
                }
            }
        }
        return rows;
    }

    /** Every row of the scenario's tables (children and partitions through their root), as a multiset. */
    private Map<String, Long> snapshot(Scenario s) throws SQLException {
        Map<String, Long> rows = new TreeMap<>();
        try (Statement st = conn.createStatement()) {
            for (String root : s.roots()) {
                try (ResultSet rs = st.executeQuery("SELECT tableoid::regclass::text || ' ' || row_to_json(snap)::text,"
                        + " snap.last_token FROM " + root + " snap")) {
                    while (rs.next()) {
                        long token = rs.getLong(2);
                        String key = rs.getString(1) + " #" + (rs.wasNull() ? "null" : Long.toString(token));
                        rows.merge(key, 1L, Long::sum);
                    }
                }
            }
        }
        return rows;
    }

    /** What a run changed: rows that appeared and rows that went (an updated row does both). */
    record Delta(Map<String, Long> added, Map<String, Long> removed) {
        static Delta of(Map<String, Long> before, Map<String, Long> after) {
            return new Delta(minus(after, before), minus(before, after));
        }

        private static Map<String, Long> minus(Map<String, Long> a, Map<String, Long> b) {
            Map<String, Long> out = new TreeMap<>();
            a.forEach((k, n) -> {
                long left = n - b.getOrDefault(k, 0L);
                if (left > 0) {
                    out.put(k, left);
                }
            });
            return out;
        }

        boolean changed() {
            return !added.isEmpty() || !removed.isEmpty();
        }

        boolean removedAny() {
            return !removed.isEmpty();
        }

        void assertAddedCarry(long token, String what) {
            added.keySet().forEach(k -> assertTrue(k.endsWith(" #" + token), what + " wrote a row without it: " + k));
        }

        @Override
        public String toString() {
            long a = added.values().stream().mapToLong(Long::longValue).sum();
            long r = removed.values().stream().mapToLong(Long::longValue).sum();
            return a + " rows written, " + r + " replaced or deleted";
        }
    }

    /** As the driver does it: the token at every token index, user values at their delegate indexes. */
    private void execute(RewritePlan.Fenced plan, long token, List<String> values) throws SQLException {
        try (PreparedStatement ps = conn.prepareStatement(plan.sql())) {
            for (int i : plan.tokenIndexes()) {
                ps.setLong(i, token);
            }
            for (int u = 1; u <= values.size(); u++) {
                for (int i : plan.delegateIndexes(u)) {
                    // Untyped, as a literal would be: PostgreSQL infers the type from where it lands.
                    ps.setObject(i, values.get(u - 1), Types.OTHER);
                }
            }
            drain(ps, ps.execute());
        }
    }

    private static void drain(Statement st, boolean resultSet) throws SQLException {
        boolean rs = resultSet;
        while (true) {
            if (rs) {
                try (ResultSet r = st.getResultSet()) {
                    while (r.next()) {
                        // RETURNING rows are consumed, as an application would
                    }
                }
            } else if (st.getUpdateCount() == -1) {
                return;
            }
            rs = st.getMoreResults();
        }
    }

    /** The statement with its literals as {@code ?}, and the literals' values (strings unquoted). */
    record Variant(String sql, List<String> values) {
        private static final Pattern LITERAL = Pattern.compile(
                "'((?:[^']|'')*)'|(?<![\\w$.])(\\d+(?:\\.\\d+)?)(?![\\w$.])|\"(?:[^\"]|\"\")*\"|--[^\\n]*");
        /** A string after one of these is a value; after another word it is a typed literal (date '...'). */
        private static final Set<String> BEFORE_VALUE = Set.of(
                "SELECT",
                "WHERE",
                "AND",
                "OR",
                "NOT",
                "THEN",
                "ELSE",
                "WHEN",
                "LIKE",
                "SET",
                "VALUES",
                "RETURNING",
                "IN",
                "BY",
                "IS",
                "FROM");

        static Variant of(String sql) {
            Matcher m = LITERAL.matcher(sql);
            StringBuilder text = new StringBuilder();
            List<String> values = new ArrayList<>();
            int copied = 0;
            while (m.find()) {
                String value;
                if (m.group(1) != null) {
                    String before = sql.substring(0, m.start()).stripTrailing();
                    Matcher word = Pattern.compile("([A-Za-z_]+)$").matcher(before);
                    if (word.find() && !BEFORE_VALUE.contains(word.group(1).toUpperCase(Locale.ROOT))) {
                        continue;
                    }
                    if (before.endsWith("E") || before.endsWith("e")) {
                        continue;
                    }
                    value = m.group(1).replace("''", "'");
                } else if (m.group(2) != null) {
                    value = m.group(2);
                } else {
                    continue; // identifiers and comments stay as they are
                }
                text.append(sql, copied, m.start()).append('?');
                copied = m.end();
                values.add(value);
            }
            if (values.isEmpty() || sql.contains("?")) {
                return null;
            }
            return new Variant(text.append(sql.substring(copied)).toString(), values);
        }
    }

    /** As the driver unit test does it: every relation any corpus statement writes is protected. */
    static List<ProtectedTable> writtenTables(List<String> statements) {
        String ident = "(?:[A-Za-z_][A-Za-z0-9_$]*|\"(?:[^\"]|\"\")+\")";
        Pattern target = Pattern.compile("(?i)\\b(?:INSERT\\s+INTO|UPDATE(?:\\s+ONLY)?|DELETE\\s+FROM(?:\\s+ONLY)?"
                + "|MERGE\\s+INTO|TRUNCATE(?:\\s+TABLE)?(?:\\s+ONLY)?|COPY)\\s+(" + ident + "(?:\\s*\\.\\s*" + ident
                + ")?)");
        Set<String> notNames = Set.of("set", "of", "nowait", "skip", "only", "table", "from", "to");
        Set<String> names = new TreeSet<>();
        for (String sql : statements) {
            Matcher m = target.matcher(sql);
            while (m.find()) {
                String name = m.group(1).replaceAll("\\s+", "");
                if (!notNames.contains(name.toLowerCase(Locale.ROOT))) {
                    names.add(TableName.parse(name).toString());
                }
            }
        }
        List<ProtectedTable> tables = new ArrayList<>();
        names.forEach(n -> tables.add(new ProtectedTable(TableName.parse(n), "last_token", FencingMode.ENFORCE)));
        return tables;
    }

    private static String firstLine(String s) {
        return s == null ? "" : s.lines().findFirst().orElse("");
    }
}
