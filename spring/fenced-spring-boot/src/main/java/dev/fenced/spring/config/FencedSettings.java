package dev.fenced.spring.config;

import dev.fenced.FencedProperty;
import dev.fenced.FencingException;
import dev.fenced.internal.config.ConfigLoader;
import dev.fenced.internal.config.FencedConfig;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.Environment;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.StandardEnvironment;

/**
 * The {@code fenced.*} keys of the Spring environment (application.properties or .yml, profiles, command line,
 * and everything else Spring resolves), checked by fenced's own {@link ConfigLoader} as the driver checks a URL:
 * an unknown key or a bad value fails start-up with the driver's message, naming the key. Below them come the
 * driver's standard sources (system properties, {@code FENCED_*} variables, {@code fenced.properties}).
 */
public final class FencedSettings {

    /** How errors name this source. */
    public static final String SOURCE = "the Spring environment";

    /** {@code fenced.tables[0]} from a properties file, {@code fenced.tables.0} as the binder flattens a YAML list. */
    private static final Pattern LIST_ITEM = Pattern.compile("(.+?)(?:\\[(\\d+)]|\\.(\\d+))");

    private final Map<String, String> springKeys;
    private final FencedConfig config;

    private FencedSettings(Map<String, String> springKeys, FencedConfig config) {
        this.springKeys = springKeys;
        this.config = config;
    }

    /** @throws FencedConfigurationException with fenced's message for a bad key or value */
    public static FencedSettings from(Environment environment) {
        Map<String, String> keys = fencedKeys(environment);
        try {
            return new FencedSettings(keys, ConfigLoader.forApplication(SOURCE, keys));
        } catch (FencingException e) {
            throw new FencedConfigurationException(e);
        }
    }

    /**
     * Every key under {@code fenced.}, as a flat map of fenced's key names. Spring's binder reads all property
     * sources with their precedence; kebab-case ({@code fenced.lease.create-table}) is taken for fenced's camelCase,
     * and a YAML list ({@code fenced.tables: [a, b]}) for the comma-separated one.
     */
    static Map<String, String> fencedKeys(Environment environment) {
        Map<String, String> bound = withoutSystemEnvironment(environment)
                .bind("fenced", Bindable.mapOf(String.class, String.class))
                .orElseGet(Map::of);
        Map<String, TreeMap<Integer, String>> lists = new LinkedHashMap<>();
        Map<String, String> out = new LinkedHashMap<>();
        for (Map.Entry<String, String> e : bound.entrySet()) {
            String key = FencedProperty.PREFIX + e.getKey();
            Matcher item = LIST_ITEM.matcher(key);
            if (item.matches() && isList(item.group(1))) {
                String index = item.group(2) != null ? item.group(2) : item.group(3);
                lists.computeIfAbsent(item.group(1), k -> new TreeMap<>()).put(Integer.parseInt(index), e.getValue());
                continue;
            }
            out.put(fencedName(key), e.getValue());
        }
        lists.forEach((key, items) -> out.put(fencedName(key), String.join(",", List.copyOf(items.values()))));
        return out;
    }

    /**
     * A binder over every property source but the process environment. Variables are a namespace shared with
     * other tools ({@code FENCED_TEST_JDBC_URL} would bind as {@code fenced.test.jdbc.url}, an unknown key); the
     * driver's own standard sources read {@code FENCED_*} variables and ignore those that name no key.
     */
    private static Binder withoutSystemEnvironment(Environment environment) {
        if (!(environment instanceof ConfigurableEnvironment configurable)) {
            return Binder.get(environment);
        }
        List<ConfigurationPropertySource> sources = new ArrayList<>();
        for (PropertySource<?> source : configurable.getPropertySources()) {
            String name = source.getName();
            // "configurationProperties" is Spring's view over all the others, the environment included
            if (!name.equals(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME)
                    && !name.equals("configurationProperties")) {
                ConfigurationPropertySources.from(source).forEach(sources::add);
            }
        }
        return new Binder(sources);
    }

    private static boolean isList(String key) {
        FencedProperty.Match m = FencedProperty.match(key);
        return m != null && m.property().valueSyntax().equals(FencedProperty.TABLES.valueSyntax());
    }

    /** {@code fenced.lease.create-table} as {@code fenced.lease.createTable} when only the latter is a key. */
    static String fencedName(String key) {
        if (FencedProperty.match(key) != null || key.indexOf('-') < 0) {
            return key;
        }
        StringBuilder b = new StringBuilder(key.length());
        boolean upper = false;
        for (char c : key.toCharArray()) {
            if (c == '-') {
                upper = true;
            } else {
                b.append(upper ? Character.toUpperCase(c) : c);
                upper = false;
            }
        }
        String camel = b.toString();
        return FencedProperty.match(camel) != null ? camel : key;
    }

    /** The validated configuration: Spring's keys, then the driver's standard sources. */
    public FencedConfig config() {
        return config;
    }

    /** The {@code fenced.*} keys found in the Spring environment, by fenced's key names. */
    public Map<String, String> springKeys() {
        return springKeys;
    }
}
