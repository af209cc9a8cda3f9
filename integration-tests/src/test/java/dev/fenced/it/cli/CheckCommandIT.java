package dev.fenced.it.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code check} against a real schema with each thing it looks for, and its migrations applied for real. */
@Tag("server-sensitive")
class CheckCommandIT {

    private String url;

    @BeforeEach
    void schema() {
        url = CliServer.createDatabase();
        CliServer.execute(
                url,
                "CREATE TABLE totals (id int PRIMARY KEY, amount int, last_token bigint) PARTITION BY RANGE (id)",
                "CREATE TABLE totals_low PARTITION OF totals FOR VALUES FROM (0) TO (1000)",
                "CREATE VIEW totals_view AS SELECT * FROM totals",
                "CREATE TABLE orders (id int PRIMARY KEY, total_id int)",
                "CREATE TABLE customers (id int PRIMARY KEY)",
                "CREATE TABLE invoices (id int PRIMARY KEY, customer_id int REFERENCES customers ON DELETE CASCADE,"
                        + " last_token integer)",
                "CREATE FUNCTION bump() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN UPDATE totals SET amount = 0"
                        + " WHERE id = NEW.total_id; RETURN NEW; END $$",
                "CREATE TRIGGER orders_bump AFTER INSERT ON orders FOR EACH ROW EXECUTE FUNCTION bump()",
                "CREATE RULE invoices_log AS ON DELETE TO invoices DO ALSO NOTIFY invoices");
    }

    @Test
    void namesEveryFindingWithTheSqlToFixItAndTheRollOutState() {
        Cli.Result r = Cli.run(
                "check", "--url", url, "--tables", "totals,orders,invoices", "--fenced.table.orders.mode=observe");
        assertEquals(1, r.exit(), r::toString);
        String out = r.out();
        for (String expected : List.of(
                "ok      primary, PostgreSQL",
                "synchronous_commit = ",
                "replication: no standby connected (synchronous_standby_names is empty)",
                "table totals (fence column last_token, mode enforce): enforce",
                "ok      public.totals: fence column last_token is bigint",
                "info    partition totals_low shares its rows and is fenced with it",
                "warn    function bump() names totals in its body (run by trigger orders_bump on orders): what it"
                        + " writes there is not fenced",
                "table orders (fence column last_token, mode observe): column missing",
                "missing public.orders has no fence column last_token",
                "fix     ALTER TABLE public.orders ADD COLUMN last_token bigint;",
                "warn    trigger orders_bump on public.orders runs bump(): what it writes is not fenced",
                "missing fence column last_token of public.invoices is integer; it must be bigint",
                "fix     ALTER TABLE public.invoices ALTER COLUMN last_token TYPE bigint USING last_token::bigint;",
                "warn    foreign key invoices_customer_id_fkey of public.invoices references unprotected table"
                        + " customers ON DELETE CASCADE",
                "warn    rule invoices_log on public.invoices: its actions run unfenced",
                "view public.totals_view reads a protected table: fenced refuses writes to public.totals_view",
                "1 of 3 protected tables ready for enforce mode")) {
            assertTrue(out.contains(expected), () -> "missing: " + expected + "\n" + out);
        }
        // zonky's embedded server runs with synchronous_commit = off: named as a warning
        assertTrue(
                out.contains("info    synchronous_commit = on")
                        || out.contains(
                                "warn    synchronous_commit = off: an acknowledged write (and the token it set) can be"
                                        + " lost"),
                out);
        Cli.Result json = Cli.run("check", "--url", url, "--tables", "totals,orders", "--format", "json");
        assertEquals(1, json.exit(), json::toString);
        assertTrue(json.out().contains("\"state\": \"column missing\""), json::toString);
        assertTrue(
                json.out().contains("\"fix\": \"ALTER TABLE public.orders ADD COLUMN last_token bigint;\""),
                json::toString);
        Cli.Result md = Cli.run("check", "--url", url, "--tables", "totals", "--format", "markdown");
        assertEquals(0, md.exit(), md::toString);
        assertTrue(md.out().contains("| totals | enforce | enforce |"), md::toString);
    }

    /**
     * A schema put before pg_catalog on the session's search_path (here by the URL's {@code options}) with its
     * own {@code current_setting}, {@code =} on oids and {@code ~*} on text: the report must be the one the
     * catalog gives, not one those objects make up (a clean table, another server version, no trigger found).
     * The path starts with public, so the schema fenced's own objects would go to stays the same.
     */
    @Test
    void aShadowingSchemaOnTheSearchPathDoesNotChangeTheReport() {
        CliServer.execute(
                url,
                "CREATE SCHEMA evil",
                "CREATE FUNCTION evil.current_setting(text) RETURNS text LANGUAGE sql AS $$ SELECT 'evil'::text $$",
                "CREATE FUNCTION evil.never(oid, oid) RETURNS boolean LANGUAGE sql AS $$ SELECT false $$",
                "CREATE OPERATOR evil.= (LEFTARG = oid, RIGHTARG = oid, FUNCTION = evil.never)",
                "CREATE FUNCTION evil.nomatch(text, text) RETURNS boolean LANGUAGE sql AS $$ SELECT false $$",
                "CREATE OPERATOR evil.~* (LEFTARG = text, RIGHTARG = text, FUNCTION = evil.nomatch)");
        String shadowed = url + (url.contains("?") ? "&" : "?") + "options=-c%20search_path%3Dpublic,evil,pg_catalog";
        String[] tables = {"--tables", "totals,orders,invoices"};
        Cli.Result plain = Cli.run("check", "--url", url, tables[0], tables[1]);
        Cli.Result evil = Cli.run("check", "--url", shadowed, tables[0], tables[1]);
        assertEquals(plain.exit(), evil.exit(), evil::toString);
        assertEquals(withoutUrl(plain.out()), withoutUrl(evil.out()));
        assertTrue(evil.out().contains("runs bump()"), evil::toString);
    }

    /** The report's lines, less any that name the URL (the two runs' URLs differ by their options). */
    private static List<String> withoutUrl(String out) {
        return out.lines().filter(l -> !l.contains("jdbc:")).toList();
    }

    /**
     * The database's record of a table's token domain ({@code fenced_token_domain}), which every connect compares:
     * check shows it, and a configuration giving the table another domain is not ready (it would fail with FN012).
     */
    @Test
    void aTokenDomainTheDatabaseRecordsOtherwiseBlocksEnforce() {
        Cli.Result none = Cli.run("check", "--url", url, "--tables", "totals");
        assertEquals(0, none.exit(), none::toString);
        assertTrue(
                none.out()
                        .contains("info    public.totals: token domain fenced (not recorded yet in fenced_token_domain;"
                                + " the first connect records it)"),
                none::toString);
        CliServer.execute(
                url,
                "CREATE TABLE fenced_token_domain (relation_schema text NOT NULL, relation_name text"
                        + " NOT NULL, token_domain text NOT NULL, PRIMARY KEY (relation_schema, relation_name))",
                "INSERT INTO fenced_token_domain VALUES ('public', 'totals', 'etcd')");
        Cli.Result other = Cli.run("check", "--url", url, "--tables", "totals");
        assertEquals(1, other.exit(), other::toString);
        assertTrue(
                other.out()
                        .contains("missing public.totals: fenced_token_domain records token domain etcd but this"
                                + " configuration gives fenced (connecting fails with FN012)"),
                other::toString);
        Cli.Result same =
                Cli.run("check", "--url", url, "--tables", "totals", "--fenced.table.totals.tokenDomain=etcd");
        assertEquals(0, same.exit(), same::toString);
        assertTrue(
                same.out().contains("ok      public.totals: token domain etcd, as fenced_token_domain records"),
                same::toString);
    }

    @Test
    void readyTablesExitZeroAndObserveIsShownAsReady() {
        Cli.Result r = Cli.run(
                "check",
                "--url",
                "jdbc:fenced:" + url.substring("jdbc:".length()) + "&fenced.tables=totals&fenced.mode=observe");
        assertEquals(0, r.exit(), r::toString);
        assertTrue(
                r.out().contains("table totals (fence column last_token, mode observe): observe, ready for enforce"),
                r::toString);
    }

    /** explain with --url plans from the catalog, as the driver does: partitions, views and column lists known. */
    @Test
    void explainWithTheCatalog() {
        Cli.Result r = Cli.run(
                "explain",
                "--url",
                url,
                "--tables",
                "totals",
                "--format",
                "json",
                "INSERT INTO totals VALUES (?, ?)",
                "UPDATE totals_low SET amount = ? WHERE id = ?",
                "UPDATE totals_view SET amount = 1");
        assertEquals(1, r.exit(), r::toString);
        String out = r.out();
        assertTrue(out.contains("\"catalog\": true"), out);
        assertTrue(
                out.contains("\"sends\": \"INSERT INTO totals (id, amount, last_token) VALUES (?, ?, CAST(CASE WHEN"),
                out);
        assertTrue(out.contains("\"sends\": \"UPDATE totals_low SET amount = ?, last_token = CASE WHEN"), out);
        assertTrue(
                out.contains("a write to totals_view reaches protected rows: view public.totals_view reads a"
                        + " protected table"),
                out);
        Cli.Result names = Cli.run("explain", "--tables", "totals", "UPDATE totals_view SET amount = 1");
        assertEquals(0, names.exit(), names::toString); // without the catalog the view is not known
        assertTrue(names.out().contains("passed through"), names::toString);
    }

    @Test
    void unknownTableNeedsAction() {
        Cli.Result r = Cli.run("check", "--url", url, "--tables", "totals,totlas");
        assertEquals(1, r.exit(), r::toString);
        assertTrue(r.out().contains("missing unknown table: totlas matches no table in this database"), r::toString);
        assertTrue(r.out().contains("totlas  enforce  not ready"), r::toString);
    }

    /** The Flyway script is applied by Flyway itself; after it, check is clean. */
    @Test
    void flywayMigrationAddsTheColumnsAndCheckThenPasses(@TempDir Path dir) throws Exception {
        Cli.Result r = Cli.run(
                "check", "--url", url, "--tables", "totals,orders,invoices", "--migration", "flyway", dir.toString());
        assertEquals(1, r.exit(), r::toString);
        Path script;
        try (Stream<Path> files = Files.list(dir)) {
            script = files.findFirst().orElseThrow();
        }
        assertTrue(script.getFileName().toString().matches("V\\d{14}__fenced_columns\\.sql"), script::toString);
        assertTrue(r.out().contains("wrote " + script), r::toString);
        String sql = Files.readString(script);
        assertTrue(
                sql.contains(
                        "ALTER TABLE public.orders ADD COLUMN last_token bigint;\n"
                                + "ALTER TABLE public.invoices ALTER COLUMN last_token TYPE bigint USING last_token::bigint;\n"),
                sql);
        assertTrue(!sql.contains("totals"), sql);

        Flyway.configure()
                .dataSource(url, null, null)
                .locations("filesystem:" + dir)
                .baselineOnMigrate(true)
                .baselineVersion("0")
                .load()
                .migrate();
        Cli.Result after = Cli.run(
                "check",
                "--url",
                url,
                "--tables",
                "totals,orders,invoices",
                "--migration",
                "flyway",
                dir.resolve("again").toString());
        assertEquals(0, after.exit(), after::toString);
        assertTrue(after.out().contains("3 of 3 protected tables ready for enforce mode"), after::toString);
        assertTrue(after.out().contains("nothing to migrate"), after::toString);
        assertTrue(!Files.exists(dir.resolve("again")));
    }

    @Test
    void liquibaseAndSqlMigrations(@TempDir Path dir) throws Exception {
        for (String format : List.of("liquibase", "liquibase-yaml", "sql")) {
            Path out = dir.resolve(format);
            Cli.Result r = Cli.run(
                    "check", "--url", url, "--tables", "orders,invoices", "--migration", format, out.toString());
            assertEquals(1, r.exit(), r::toString);
        }
        Path xml = single(dir.resolve("liquibase"));
        assertTrue(xml.getFileName().toString().matches("fenced-columns-\\d{14}\\.xml"), xml::toString);
        var doc = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(xml.toFile());
        assertEquals("databaseChangeLog", doc.getDocumentElement().getTagName());
        assertEquals(1, doc.getElementsByTagName("addColumn").getLength());
        assertEquals(
                "orders",
                doc.getElementsByTagName("addColumn")
                        .item(0)
                        .getAttributes()
                        .getNamedItem("tableName")
                        .getNodeValue());
        assertEquals(1, doc.getElementsByTagName("modifyDataType").getLength());
        String yaml = Files.readString(single(dir.resolve("liquibase-yaml")));
        assertTrue(
                yaml.contains("- addColumn:\n            schemaName: 'public'\n            tableName: 'orders'"), yaml);
        assertTrue(yaml.contains("newDataType: bigint"), yaml);
        String sql = Files.readString(single(dir.resolve("sql")));
        assertTrue(sql.contains("ALTER TABLE public.orders ADD COLUMN last_token bigint;"), sql);
        CliServer.execute(url, sql);
        assertEquals(
                0, Cli.run("check", "--url", url, "--tables", "orders,invoices").exit());

        Cli.Result bad = Cli.run("check", "--url", url, "--tables", "orders", "--migration", "rails", dir.toString())
                .oneLineError();
        assertEquals(2, bad.exit());
    }

    /** A missing, garbled or foreign report is bad usage (exit 2, one line naming the file and what is wrong). */
    @Test
    void badInventoryReports(@TempDir Path dir) throws Exception {
        Path none = dir.resolve("absent.json");
        Cli.Result missing = Cli.run("check", "--url", url, "--tables", "totals", "--inventory", none.toString())
                .oneLineError();
        assertEquals(2, missing.exit(), missing::toString);
        assertTrue(
                missing.err().contains("--inventory " + none + ": cannot read it (NoSuchFileException"),
                missing::toString);
        Path cut = dir.resolve("cut.json");
        Files.writeString(cut, "{\n  \"written\": \"2026-01-01T00:00:00Z\",\n  \"dropped\": 0,\n  \"tables\": [");
        Path foreign = dir.resolve("foreign.json");
        Files.writeString(foreign, "{\"name\": \"something else\"}");
        Path prose = dir.resolve("notes.md");
        Files.writeString(prose, "# my notes\n");
        Path row = dir.resolve("row.md");
        Files.writeString(
                row,
                "# fenced writer inventory\n\nWritten 2026-01-01T00:00:00Z. 1 writer needs work.\n\n"
                        + "## Tables\n\n| table | mode | fence column | state |\n|---|---|---|---|\n| totals | observe |\n");
        for (Object[] c : List.of(
                new Object[] {cut, "the text ends where a value should be (line 4)"},
                new Object[] {foreign, "\"tables\" is missing or not a list"},
                new Object[] {prose, "it starts with neither '{' nor '# fenced writer inventory'"},
                new Object[] {row, "a row under '## Tables' has 2 cells, not 4"})) {
            Cli.Result r = Cli.run("check", "--url", url, "--tables", "totals", "--inventory", c[0].toString())
                    .oneLineError();
            assertEquals(2, r.exit(), r::toString);
            assertTrue(
                    r.err()
                            .contains("--inventory " + c[0] + " is not a fenced writer inventory report (the JSON or"
                                    + " Markdown fenced.observe.report writes): " + c[1]),
                    r::toString);
        }
        // a clean Markdown report: ready, with its time as written
        Path clean = dir.resolve("clean.md");
        Files.writeString(
                clean,
                "# fenced writer inventory\n\nWritten 2026-01-01T00:00:00.123456Z. 0 writers need work"
                        + " before enforce mode.\n\n## Tables\n\n| table | mode | fence column | state |\n|---|---|---|---|\n"
                        + "| totals | observe | last_token (present) | observe: no writer needs work (ready for enforce) |\n\n"
                        + "## Writers\n\n| table | kind | reason | statement shape | writes of the shape | call site | samples"
                        + " | first seen | last seen |\n|---|---|---|---|---|---|---|---|---|\n");
        Cli.Result ready = Cli.run(
                "check", "--url", url, "--tables", "totals", "--fenced.mode=observe", "--inventory", clean.toString());
        assertEquals(0, ready.exit(), ready::toString);
        assertTrue(
                ready.out()
                        .contains("(written 2026-01-01T00:00:00.123456Z): mode observe in the application, 0"
                                + " writer(s) without a token, 0 unfenceable"),
                ready::toString);
        // a report that does not list the table cannot show its writers carry a token
        Path other = dir.resolve("other.json");
        Files.writeString(
                other,
                "{\"written\": \"2026-01-01T00:00:00Z\", \"dropped\": 0, \"tables\": [{\"table\":"
                        + " \"orders\", \"mode\": \"observe\"}], \"writers\": []}");
        Cli.Result unlisted = Cli.run("check", "--url", url, "--tables", "totals", "--inventory", other.toString());
        assertEquals(1, unlisted.exit(), unlisted::toString);
        assertTrue(
                unlisted.out()
                        .contains(
                                "does not list totals: the application that wrote it does not protect the" + " table"),
                unlisted::toString);
    }

    private static Path single(Path dir) throws Exception {
        try (Stream<Path> files = Files.list(dir)) {
            List<Path> all = files.toList();
            assertEquals(1, all.size(), all::toString);
            return all.get(0);
        }
    }
}
