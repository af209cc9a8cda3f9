package dev.fenced.it.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.fenced.FencedDataSource;
import dev.fenced.LeaseManager;
import dev.fenced.internal.config.ConfigLoader;
import dev.fenced.it.support.TestDatabase;
import java.io.ByteArrayInputStream;
import java.io.StringReader;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * Every code and configuration snippet in README.md and docs/quickstart.md, extracted from the Markdown and
 * compiled or run, so a pasted snippet works: Java is compiled and run against a fenced DataSource; SQL is run (or,
 * for "what the database receives", compared with the driver's own nativeSQL); properties are loaded as
 * {@code .properties} files are (no inline comments) and their URL connects, their driver class loads and their
 * fenced keys pass the driver's configuration check; XML coordinates name published artifacts at this version;
 * shell lines parse (bash -n) and name jars the build makes.
 */
class DocSnippetsIT {

    private static final Pattern FENCE = Pattern.compile("(?ms)^```(\\w+)\\n(.*?)^```$");
    private static final List<String> DOCS = List.of("README.md", "docs/quickstart.md");

    record Snippet(String file, int line, String lang, String text) {
        @Override
        public String toString() {
            return file + ":" + line + " (" + lang + ")";
        }
    }

    private final Path root = Path.of(System.getProperty("fencedtest.root", ".."))
            .toAbsolutePath()
            .normalize();

    @Test
    void everySnippetCompilesOrRuns() throws Exception {
        List<Snippet> snippets = new ArrayList<>();
        for (String doc : DOCS) {
            snippets.addAll(extract(doc));
        }
        assertTrue(snippets.size() >= 10, () -> "found only " + snippets);
        Map<String, Integer> checked = new LinkedHashMap<>();
        for (Snippet s : snippets) {
            switch (s.lang()) {
                case "java" -> java(s);
                case "sql" -> sql(s);
                case "properties" -> properties(s);
                case "xml" -> xml(s);
                case "sh" -> shell(s);
                default -> fail(s + ": a snippet language this test cannot check; add it here");
            }
            checked.merge(s.lang(), 1, Integer::sum);
        }
        System.out.println("DocSnippetsIT: " + snippets.size() + " snippets compiled or run " + checked);
    }

    private List<Snippet> extract(String doc) throws Exception {
        String text = Files.readString(root.resolve(doc));
        List<Snippet> out = new ArrayList<>();
        Matcher m = FENCE.matcher(text);
        while (m.find()) {
            int line = (int) text.substring(0, m.start()).lines().count() + 1;
            out.add(new Snippet(doc, line, m.group(1), m.group(2)));
        }
        return out;
    }

    /** A database with the quickstart's table, before step 2 added its fence column. */
    private static TestDatabase database() {
        TestDatabase db = TestDatabase.create();
        db.execute(
                "CREATE TABLE totals (restaurant_id int PRIMARY KEY, amount bigint NOT NULL)",
                "INSERT INTO totals VALUES (77, 0)",
                "CREATE SCHEMA sales",
                "CREATE TABLE sales.orders (id int PRIMARY KEY, last_token bigint)");
        return db;
    }

    private void sql(Snippet s) throws Exception {
        TestDatabase db = database();
        if (s.text().contains("?")) {
            // "What the database receives": the driver's own rewrite, compared word for word
            db.execute("ALTER TABLE totals ADD COLUMN last_token bigint");
            try (Connection c = DriverManager.getConnection(db.fencedUrl("fenced.tables=totals"))) {
                String sent = c.nativeSQL("UPDATE totals SET amount = ? WHERE restaurant_id = ?")
                        .replaceAll(":[0-9a-f]{8,}:totals", ":<nonce>:totals");
                assertEquals(words(s.text()), words(sent), s::toString);
            }
            return;
        }
        db.execute(s.text());
    }

    private static String words(String sql) {
        return sql.replaceAll("\\s+", " ").trim();
    }

    private void java(Snippet s) throws Exception {
        TestDatabase db = database();
        db.execute("ALTER TABLE totals ADD COLUMN last_token bigint");
        FencedDataSource dataSource = new FencedDataSource(db.fencedUrl("fenced.tables=totals"));
        String body = s.text();
        StringBuilder params = new StringBuilder("DataSource dataSource");
        boolean needsLeases = !body.contains("LeaseManager leases =");
        if (needsLeases) {
            params.append(", LeaseManager leases");
        }
        params.append(", long token, org.springframework.jdbc.core.JdbcTemplate jdbcTemplate");
        String source = "import dev.fenced.*;\nimport java.sql.*;\nimport java.time.*;\nimport java.util.*;\n"
                + "import javax.sql.DataSource;\n\npublic class Snippet {\n    public static void run(" + params
                + ") throws Exception {\n" + body + "\n    }\n}\n";
        Path dir = Files.createTempDirectory("snippet");
        Path file = dir.resolve("Snippet.java");
        Files.writeString(file, source);
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        java.io.ByteArrayOutputStream errors = new java.io.ByteArrayOutputStream();
        int status = javac.run(
                null,
                errors,
                errors,
                "-classpath",
                System.getProperty("java.class.path"),
                "-d",
                dir.toString(),
                file.toString());
        assertEquals(0, status, () -> s + " does not compile:\n" + errors.toString(StandardCharsets.UTF_8) + source);
        try (URLClassLoader loader = new URLClassLoader(
                        new URL[] {dir.toUri().toURL()}, getClass().getClassLoader());
                LeaseManager leases = LeaseManager.create(dataSource)) {
            Class<?> type = loader.loadClass("Snippet");
            Method run = type.getMethods()[0].getName().equals("run") ? type.getMethods()[0] : findRun(type);
            List<Object> args = new ArrayList<>(List.of(dataSource));
            if (needsLeases) {
                args.add(leases);
            }
            args.add(1L << 60); // a token of one's own, above any lease token here
            args.add(new JdbcTemplate(dataSource));
            run.invoke(null, args.toArray());
        }
        assertEquals(42000, db.queryLong("SELECT amount FROM totals WHERE restaurant_id = 77"), s::toString);
    }

    private static Method findRun(Class<?> type) {
        for (Method m : type.getMethods()) {
            if (m.getName().equals("run")) {
                return m;
            }
        }
        throw new IllegalStateException("no run method");
    }

    private void properties(Snippet s) throws Exception {
        Properties p = new Properties();
        p.load(new StringReader(s.text()));
        assertFalse(p.isEmpty(), s::toString);
        Map<String, String> fencedKeys = new LinkedHashMap<>();
        for (String key : p.stringPropertyNames()) {
            String value = p.getProperty(key);
            // .properties has no inline comments: "x   # note" is the value "x   # note"
            assertFalse(value.matches(".*\\s#.*") || !value.equals(value.strip()), () -> s + ": " + key + "=" + value);
            if (key.endsWith("driver-class-name")) {
                assertTrue(java.sql.Driver.class.isAssignableFrom(Class.forName(value)), value);
            } else if (key.endsWith(".url")) {
                TestDatabase db = database();
                db.execute("ALTER TABLE totals ADD COLUMN last_token bigint");
                String raw = db.rawUrl();
                String params = value.contains("?") ? value.substring(value.indexOf('?') + 1) : "";
                assertTrue(value.startsWith("jdbc:fenced:postgresql://"), value);
                String url =
                        "jdbc:fenced:" + raw.substring("jdbc:".length()) + (raw.contains("?") ? "&" : "?") + params;
                try (Connection c = DriverManager.getConnection(url)) {
                    assertTrue(c.isValid(5), url);
                }
            } else if (key.startsWith("fenced.")) {
                fencedKeys.put(key, value);
            } else {
                fail(s + ": a key this test does not know how to check: " + key);
            }
        }
        if (!fencedKeys.isEmpty()) {
            assertNotNull(ConfigLoader.forApplication(s.toString(), fencedKeys), s::toString);
        }
    }

    private void xml(Snippet s) throws Exception {
        Document d = DocumentBuilderFactory.newInstance()
                .newDocumentBuilder()
                .parse(new ByteArrayInputStream(
                        ("<snippet>" + s.text() + "</snippet>").getBytes(StandardCharsets.UTF_8)));
        Set<String> published = publishedArtifacts();
        NodeList deps = d.getElementsByTagName("dependency");
        assertTrue(deps.getLength() > 0, s::toString);
        for (int i = 0; i < deps.getLength(); i++) {
            Element e = (Element) deps.item(i);
            assertEquals("dev.fenced", text(e, "groupId"), s::toString);
            String artifact = text(e, "artifactId");
            assertTrue(published.contains(artifact) || artifact.equals("fenced-bom"), () -> s + ": " + artifact);
            String version = text(e, "version");
            if (version != null) {
                assertEquals(System.getProperty("fencedtest.version"), version, s::toString);
            }
            if (artifact.equals("fenced-bom")) {
                assertEquals("pom", text(e, "type"), s::toString);
                assertEquals("import", text(e, "scope"), s::toString);
            }
        }
    }

    private static String text(Element e, String tag) {
        NodeList l = e.getElementsByTagName(tag);
        return l.getLength() == 0 ? null : l.item(0).getTextContent().trim();
    }

    /** What fenced-bom lists: the artifacts a user may name. */
    private Set<String> publishedArtifacts() throws Exception {
        Document bom = DocumentBuilderFactory.newInstance()
                .newDocumentBuilder()
                .parse(root.resolve("bom/pom.xml").toFile());
        Set<String> out = new TreeSet<>();
        NodeList deps = bom.getElementsByTagName("dependency");
        for (int i = 0; i < deps.getLength(); i++) {
            out.add(text((Element) deps.item(i), "artifactId"));
        }
        return out;
    }

    private void shell(Snippet s) throws Exception {
        Process bash =
                new ProcessBuilder("bash", "-n").redirectErrorStream(true).start();
        bash.getOutputStream().write(s.text().getBytes(StandardCharsets.UTF_8));
        bash.getOutputStream().close();
        String out = new String(bash.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, bash.waitFor(), () -> s + " does not parse: " + out);
        // each jar a line names is one this build makes (module directory and artifact name agree)
        Matcher jar = Pattern.compile("(\\w+)/target/([\\w.-]+\\.jar)").matcher(s.text());
        while (jar.find()) {
            Path module = root.resolve(jar.group(1));
            assertTrue(Files.isRegularFile(module.resolve("pom.xml")), () -> s + ": no module " + jar.group(1));
            String pom = Files.readString(module.resolve("pom.xml"));
            String name = jar.group(2);
            boolean known = pom.contains("<finalName>" + name.replace(".jar", "") + "</finalName>")
                    || name.equals(artifactOf(pom) + "-" + System.getProperty("fencedtest.version") + ".jar");
            assertTrue(known, () -> s + ": " + jar.group() + " is not what " + jar.group(1) + "/pom.xml builds");
        }
    }

    private static String artifactOf(String pom) {
        Matcher m =
                Pattern.compile("</parent>\\s*<artifactId>([^<]+)</artifactId>").matcher(pom);
        return m.find() ? m.group(1) : "";
    }
}
