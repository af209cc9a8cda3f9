package dev.fenced.internal.config;

import dev.fenced.FencedProperty;
import dev.fenced.FencingException;
import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import org.jspecify.annotations.Nullable;

/**
 * Merges configuration sources in precedence order (first wins) and validates every {@code fenced.*}
 * key against {@link FencedProperty}: an unknown key or a bad value is an error naming the key, the
 * source it came from and what was expected.
 */
public final class ConfigLoader {

    static final String RESOURCE = "fenced.properties";
    private static final String ENVIRONMENT_PREFIX = "FENCED_";

    private ConfigLoader() {}

    /** The driver's sources: URL parameters, connect properties, then the standard ones. */
    public static FencedConfig forDriver(Map<String, String> urlParameters, Properties info) throws FencingException {
        List<ConfigSource> sources = new ArrayList<>();
        sources.add(new ConfigSource("the JDBC URL", urlParameters));
        sources.add(new ConfigSource("the connection properties", fencedEntries(info)));
        return resolve(withStandardSources(sources, null));
    }

    /**
     * The command line's sources: the {@code fenced.*} parameters of its {@code --url}, its own options
     * ({@code --fenced.mode=observe}, {@code --tables}, {@code --config}), then the standard ones: the same
     * precedence as the driver's, the URL first and the options in place of the connection properties.
     */
    public static FencedConfig forCommandLine(Map<String, String> urlParameters, Map<String, String> options)
            throws FencingException {
        List<ConfigSource> sources = new ArrayList<>();
        sources.add(new ConfigSource("the --url", urlParameters));
        sources.add(new ConfigSource("the command line", options));
        return resolve(withStandardSources(sources, null));
    }

    /**
     * An application's own source ({@code description} names it in errors: "the Spring environment"), then the
     * standard ones: for a DataSource fenced in place, where no URL or connect properties exist.
     */
    public static FencedConfig forApplication(String description, Map<String, String> values) throws FencingException {
        List<ConfigSource> sources = new ArrayList<>();
        sources.add(new ConfigSource(description, values));
        return resolve(withStandardSources(sources, null));
    }

    /**
     * True when no standard source can give a fenced key: no {@code fenced.*} system property, no {@code FENCED_*}
     * environment variable, no {@code fenced.properties} resource. {@link #forAgent}{@code (null)} would then merge
     * nothing and answer every default; the agent asks first, so that a JVM configured by nothing does not load
     * (nor initialise) the configuration's classes at start. Reads the sources exactly where
     * {@link #withStandardSources} does.
     */
    public static boolean noStandardSource() {
        for (String name : System.getProperties().stringPropertyNames()) {
            if (name.startsWith(FencedProperty.PREFIX)) {
                return false;
            }
        }
        for (String name : System.getenv().keySet()) {
            if (name.startsWith(ENVIRONMENT_PREFIX)) {
                return false;
            }
        }
        return resource() == null;
    }

    /** The agent's sources: an explicit file (from {@code -javaagent:...=config=FILE}), then the standard ones. */
    public static FencedConfig forAgent(@Nullable Path explicitFile) throws FencingException {
        return resolve(withStandardSources(new ArrayList<>(), explicitFile));
    }

    /** Merges the given sources only (no system properties, environment or file). */
    public static FencedConfig resolve(List<ConfigSource> sources) throws FencingException {
        Map<String, String> merged = new LinkedHashMap<>();
        for (ConfigSource source : sources) {
            for (Map.Entry<String, String> e : source.values().entrySet()) {
                String key = e.getKey();
                FencedProperty.Match match = FencedProperty.match(key);
                if (match == null) {
                    throw FencedConfig.configError("unknown key '" + key + "' in " + source.description()
                            + suggestion(key) + "; known keys: " + FencedProperty.knownKeys());
                }
                String value;
                try {
                    value = match.property().validate(e.getValue());
                } catch (IllegalArgumentException ex) {
                    throw FencedConfig.configError(key + " in " + source.description() + ": " + ex.getMessage());
                }
                merged.putIfAbsent(key, value);
            }
        }
        return FencedConfig.of(merged);
    }

    /** The {@code fenced.*} entries of a Properties object. */
    public static Map<String, String> fencedEntries(Properties info) {
        Map<String, String> m = new LinkedHashMap<>();
        if (info != null) {
            for (String name : info.stringPropertyNames()) {
                if (name.startsWith(FencedProperty.PREFIX)) {
                    m.put(name, info.getProperty(name));
                }
            }
        }
        return m;
    }

    private static List<ConfigSource> withStandardSources(List<ConfigSource> sources, @Nullable Path explicitFile)
            throws FencingException {
        sources.add(new ConfigSource("the system properties", fencedEntries(System.getProperties())));
        sources.add(new ConfigSource("the environment", environment(System.getenv())));
        ConfigSource file = file(sources, explicitFile);
        if (file != null) {
            sources.add(file);
        }
        return sources;
    }

    /**
     * {@code FENCED_MODE=observe} stands for {@code fenced.mode}; underscores become dots and case is
     * ignored. Variables that name no key are ignored (the environment is shared with other tools).
     */
    static Map<String, String> environment(Map<String, String> env) throws FencingException {
        Map<String, String> m = new LinkedHashMap<>();
        for (Map.Entry<String, String> e : env.entrySet()) {
            String name = e.getKey();
            if (!name.startsWith(ENVIRONMENT_PREFIX)) {
                continue;
            }
            String dotted = name.toLowerCase(Locale.ROOT).replace('_', '.');
            FencedProperty.Match match = FencedProperty.matchIgnoringCase(dotted);
            if (match != null) {
                String key = match.member() == null
                        ? match.property().key()
                        : match.property().keyFor(match.member());
                if (m.put(key, e.getValue()) != null) {
                    throw FencedConfig.configError(
                            key + " given twice in the environment (two variables spell it);" + " give it once");
                }
            }
        }
        return m;
    }

    private static @Nullable ConfigSource file(List<ConfigSource> higher, @Nullable Path explicitFile)
            throws FencingException {
        Path path = explicitFile;
        if (path == null) {
            for (ConfigSource s : higher) {
                String p = s.values().get(FencedProperty.CONFIG.key());
                if (p != null) {
                    path = Path.of(p);
                    break;
                }
            }
        }
        if (path != null) {
            if (!Files.isRegularFile(path)) {
                throw FencedConfig.configError("configuration file " + path.toAbsolutePath() + " does not exist");
            }
            try (Reader r = Files.newBufferedReader(path, StandardCharsets.UTF_8)) {
                return fileSource(path.toAbsolutePath().toString(), r);
            } catch (IOException e) {
                throw new FencingException(
                        "fenced: cannot read configuration file " + path + ": " + e.getMessage(),
                        FencingException.CONFIGURATION,
                        e);
            }
        }
        URL url = resource();
        if (url == null) {
            return null;
        }
        try (InputStream in = url.openStream();
                Reader r = new java.io.InputStreamReader(in, StandardCharsets.UTF_8)) {
            return fileSource(url.toString(), r);
        } catch (IOException e) {
            throw new FencingException(
                    "fenced: cannot read " + url + ": " + e.getMessage(), FencingException.CONFIGURATION, e);
        }
    }

    private static URL resource() {
        ClassLoader tccl = Thread.currentThread().getContextClassLoader();
        URL url = tccl == null ? null : tccl.getResource(RESOURCE);
        if (url == null) {
            ClassLoader own = ConfigLoader.class.getClassLoader();
            url = own == null ? ClassLoader.getSystemResource(RESOURCE) : own.getResource(RESOURCE);
        }
        return url;
    }

    private static ConfigSource fileSource(String where, Reader reader) throws IOException, FencingException {
        List<String> repeated = new ArrayList<>();
        Properties p = new Properties() {
            private static final long serialVersionUID = 1L;

            // Properties.load lets the last of two equal keys win silently; one source gives each key once
            @Override
            public synchronized Object put(Object key, Object value) {
                Object previous = super.put(key, value);
                if (previous != null) {
                    repeated.add(String.valueOf(key));
                }
                return previous;
            }
        };
        p.load(reader);
        if (!repeated.isEmpty()) {
            throw FencedConfig.configError(
                    String.join(", ", repeated) + " given twice in " + where + "; give each key once");
        }
        Map<String, String> m = new LinkedHashMap<>();
        for (String name : p.stringPropertyNames()) {
            if (!name.startsWith(FencedProperty.PREFIX)) {
                throw FencedConfig.configError("key '" + name + "' in " + where + " is not a fenced key; known keys: "
                        + FencedProperty.knownKeys());
            }
            m.put(name, p.getProperty(name));
        }
        return new ConfigSource(where, m);
    }

    /** " (did you mean fenced.tables?)" for a key one or two edits from a known one. */
    private static String suggestion(String key) {
        String best = null;
        int bestDistance = 3;
        for (FencedProperty p : FencedProperty.values()) {
            int d = distance(key.toLowerCase(Locale.ROOT), p.key().toLowerCase(Locale.ROOT));
            if (d < bestDistance) {
                bestDistance = d;
                best = p.key();
            }
        }
        return best == null ? "" : " (did you mean " + best + "?)";
    }

    private static int distance(String a, String b) {
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            prev[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
            }
            int[] t = prev;
            prev = cur;
            cur = t;
        }
        return prev[b.length()];
    }
}
