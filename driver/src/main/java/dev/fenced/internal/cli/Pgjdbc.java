package dev.fenced.internal.cli;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Driver;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Properties;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * Finds pgjdbc for {@code java -jar}: the driver jar does not contain it (applications bring their own). In
 * order: the class path (the {@code tools/fenced} launcher puts it there; the jar's manifest has no
 * {@code Class-Path}, a library jar must not add to an application's class path); {@code --pgjdbc JAR}; a
 * {@code postgresql-*.jar} beside the driver jar; the local Maven repository ({@code ~/.m2/repository/org/postgresql/postgresql/<version>/}). {@code --help} needs none.
 */
final class Pgjdbc {

    static final String DRIVER = "org.postgresql.Driver";

    private Pgjdbc() {}

    /** True when pgjdbc can be loaded from the tool's own class loader. */
    static boolean visible() {
        try {
            Class.forName(DRIVER, false, Pgjdbc.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /** The pgjdbc jar to run with: the one {@code --pgjdbc} names, else the first candidate that exists. */
    static Path locate(@Nullable String explicitJar) throws CliException {
        if (explicitJar != null) {
            Path jar = Path.of(explicitJar);
            if (!Files.isRegularFile(jar)) {
                throw CliException.usage("--pgjdbc " + explicitJar + ": no such file");
            }
            return jar;
        }
        for (Path candidate : candidates()) {
            if (Files.isRegularFile(candidate)) {
                return candidate;
            }
        }
        throw CliException.usage("pgjdbc (org.postgresql:postgresql) not found: put postgresql-" + version()
                + ".jar beside the fenced driver jar, or give --pgjdbc /path/to/postgresql.jar");
    }

    /**
     * A class loader with this tool's own classes and pgjdbc, for running the command in when pgjdbc is not on
     * the class path: the driver's rewriter asks pgjdbc's own parser how it will bind parameters, so pgjdbc must
     * sit beside the driver's classes, not only behind a connection.
     */
    static ClassLoader loaderWith(Path pgjdbcJar) throws CliException {
        Path self = ownLocation();
        if (self == null) {
            throw CliException.usage("cannot tell where the fenced driver's classes are to add pgjdbc beside them;"
                    + " run with -cp fenced-driver.jar:postgresql.jar dev.fenced.internal.cli.Main");
        }
        try {
            try (java.util.jar.JarFile probe = new java.util.jar.JarFile(pgjdbcJar.toFile())) {
                if (probe.getEntry(DRIVER.replace('.', '/') + ".class") == null) {
                    throw CliException.usage(pgjdbcJar + " is not a pgjdbc jar (no " + DRIVER + " in it)");
                }
            }
            return new URLClassLoader(
                    new URL[] {self.toUri().toURL(), pgjdbcJar.toUri().toURL()}, ClassLoader.getPlatformClassLoader());
        } catch (IOException e) {
            throw CliException.usage(pgjdbcJar + " is not a pgjdbc jar: " + e.getMessage());
        }
    }

    /** pgjdbc's driver, from the class path (see {@link #loaderWith}). */
    static Driver driver() throws CliException {
        try {
            return (Driver) Class.forName(DRIVER, true, Pgjdbc.class.getClassLoader())
                    .getDeclaredConstructor()
                    .newInstance();
        } catch (ReflectiveOperationException | LinkageError | ClassCastException e) {
            throw CliException.usage("pgjdbc cannot be loaded: " + e);
        }
    }

    /** Beside the running jar first, then ~/.m2: the version this build was made with, then the newest. */
    private static List<Path> candidates() {
        List<Path> out = new ArrayList<>();
        Path home = ownDirectory();
        if (home != null) {
            out.add(home.resolve("postgresql-" + version() + ".jar"));
            out.addAll(newestFirst(home, "postgresql-"));
        }
        Path m2 = Path.of(System.getProperty("user.home"), ".m2", "repository", "org", "postgresql", "postgresql");
        out.add(m2.resolve(version()).resolve("postgresql-" + version() + ".jar"));
        if (Files.isDirectory(m2)) {
            try (Stream<Path> versions = Files.list(m2)) {
                versions.sorted(Comparator.comparing(Pgjdbc::versionKey).reversed())
                        .forEach(v -> out.add(v.resolve("postgresql-" + v.getFileName() + ".jar")));
            } catch (IOException ignored) {
                // an unreadable repository holds no candidate
            }
        }
        return out;
    }

    private static List<Path> newestFirst(Path dir, String prefix) {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.getFileName().toString().startsWith(prefix)
                            && p.getFileName().toString().endsWith(".jar"))
                    .sorted(Comparator.comparing(Pgjdbc::versionKey).reversed())
                    .toList();
        } catch (IOException e) {
            return List.of();
        }
    }

    /** 42.7.14 sorts after 42.7.9. */
    private static String versionKey(Path p) {
        StringBuilder b = new StringBuilder();
        for (String part : p.getFileName().toString().replaceAll("[^0-9.]", "").split("\\.")) {
            b.append(String.format(
                    "%08d", part.isEmpty() ? 0 : Long.parseLong(part.substring(0, Math.min(8, part.length())))));
        }
        return b.toString();
    }

    private static @Nullable Path ownDirectory() {
        Path self = ownLocation();
        return self != null && Files.isRegularFile(self) ? self.getParent() : null;
    }

    /** The jar (or class directory) this class was loaded from. */
    private static @Nullable Path ownLocation() {
        try {
            return Path.of(Pgjdbc.class
                    .getProtectionDomain()
                    .getCodeSource()
                    .getLocation()
                    .toURI());
        } catch (Exception e) {
            return null;
        }
    }

    /** The pgjdbc version this build was made with (the {@code cli.properties} resource). */
    static String version() {
        return buildProperty("pgjdbc.version", "42.7.14");
    }

    static String buildProperty(String key, String fallback) {
        try (InputStream in = Pgjdbc.class.getResourceAsStream("cli.properties")) {
            if (in != null) {
                Properties p = new Properties();
                p.load(in);
                String v = p.getProperty(key);
                if (v != null && !v.startsWith("${")) {
                    return v;
                }
            }
        } catch (IOException ignored) {
            // fall back
        }
        return fallback;
    }
}
