package dev.fenced.it.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
import org.junit.jupiter.api.Test;

/**
 * What a user's build receives: fenced-bom lists every module that is published (maven.deploy.skip not true), and
 * each published jar names its module (Automatic-Module-Name dev.fenced.*), adds nothing to the class path (no
 * Class-Path) and holds only fenced's classes and META-INF. Jars not built in this run are skipped, said so.
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
