package dev.fenced;

import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Every configuration key fenced knows: its name, default and meaning. The single source of truth for
 * the driver, the lease manager and the agent; docs/configuration.md's table is checked against it.
 *
 * <p>Keys resolve, first match wins: JDBC URL parameters, the {@code Properties} given to
 * {@code connect}, system properties, environment variables ({@code FENCED_MODE} for {@code fenced.mode}),
 * the {@code fenced.properties} file (the path in {@code -Dfenced.config}, else the class path), defaults.
 * An unknown {@code fenced.*} key is an error that lists the known ones.
 *
 * <p>Keys written with {@code <table>} or {@code <name>} are families: {@code fenced.table.sales.totals.mode}
 * sets the mode of the protected table {@code sales.totals}.
 */
public enum FencedProperty {
    TABLES(
            "fenced.tables",
            "",
            Kind.LIST,
            "Protected tables, comma separated. Unquoted names fold to lower case; `totals` matches that table"
                    + " in any schema, `sales.totals` also matches an unqualified `totals`. Required unless"
                    + " `fenced.mode=off`: a fenced connection that protects nothing is refused (FN013)."),
    COLUMN(
            "fenced.column",
            "last_token",
            Kind.IDENTIFIER,
            "The fence column every protected table has (a bigint; NULL counts as 0)."),
    MODE(
            "fenced.mode",
            "enforce",
            Kind.MODE,
            "`enforce` refuses stale, unfenced and unfenceable writes; `observe` only counts and logs them;"
                    + " `off` leaves every statement alone."),
    TABLE_COLUMN(
            "fenced.table.<table>.column",
            null,
            Kind.IDENTIFIER,
            "Fence column of one protected table, overriding `fenced.column`."),
    TABLE_MODE("fenced.table.<table>.mode", null, Kind.MODE, "Mode of one protected table, overriding `fenced.mode`."),
    TOKEN_DOMAIN(
            "fenced.tokenDomain",
            "fenced",
            Kind.TOKEN_DOMAIN,
            "Token domain of the protected tables: where their tokens come from. `fenced` is fenced's own leases and"
                    + " `Fencing.bind(token)`; another lock service's tokens are bound with `Fencing.bind(domain, token)`."
                    + " A write whose token is of another domain than its table's is refused."),
    TABLE_TOKEN_DOMAIN(
            "fenced.table.<table>.tokenDomain",
            null,
            Kind.TOKEN_DOMAIN,
            "Token domain of one protected table, overriding `fenced.tokenDomain`."),
    // not fenced.tokenDomain.table: a key that is also another's prefix cannot be written in YAML (Spring)
    TOKEN_DOMAIN_TABLE(
            "fenced.tokenDomains.table",
            "fenced_token_domain",
            Kind.IDENTIFIER,
            "Table that records each protected table's token domain (schema-qualified if you like), written at first"
                    + " connect and compared by every later one, so two applications that give a table different"
                    + " domains cannot both connect. Created at first connect when missing."),
    RELATIVE_UPDATES(
            "fenced.relativeUpdates",
            "warn",
            Kind.choice("warn", "refuse", "allow"),
            "What to do with `SET amount = amount + 1` on a protected table: a stale holder's relative update"
                    + " can land before the newer holder's first write, so whole new values are safer."),
    ROLE_CHECK(
            "fenced.roleCheck",
            "warn",
            Kind.choice("warn", "refuse", "off"),
            "At first connect, find whether the session's role can change a protected table's schema (its owner,"
                    + " a member of the owner role, a superuser, CREATE on a schema in its search_path, TEMP): such a"
                    + " role is an administrator, beyond what rewriting can fence (docs/least-privilege.md). `warn`"
                    + " logs it once, naming the privilege and the fix; `refuse` fails the connect (FN011)."),
    CACHE_SIZE(
            "fenced.cacheSize", "2048", Kind.POSITIVE_INT, "Rewrite plans kept per configuration, keyed by SQL text."),
    PARSE_TIMEOUT(
            "fenced.parseTimeout",
            "2s",
            Kind.DURATION,
            "Longest time one statement may take to parse; past it the statement is refused."),
    CHECK_SCHEMA(
            "fenced.checkSchema",
            "true",
            Kind.BOOLEAN,
            "At first connect, check that every protected table has its fence column, and learn the views,"
                    + " partitions and child tables that reach it."),
    CATALOG_REFRESH(
            "fenced.catalogRefresh",
            "60s",
            Kind.DURATION,
            "How often the driver reads the catalog again (views, partitions, child tables created by others);"
                    + " DDL that names a protected table and runs through fenced is followed at once."),
    MISSING_TABLES(
            "fenced.missingTables",
            "fail",
            Kind.choice("fail", "warn"),
            "What the first connect does when a protected-table entry in enforce mode matches no table: `fail`"
                    + " (a typo would leave the real table unprotected), or `warn` and fence the name once it exists"
                    + " (for migrations that create the table after the application connects)."),
    TOMBSTONES(
            "fenced.tombstones",
            "true",
            Kind.BOOLEAN,
            "A fenced DELETE on an enforced table with a primary key records tombstones, and inserts of a key a"
                    + " newer holder deleted are refused (a trigger the driver creates); false: a stale holder can"
                    + " insert a row a newer holder deleted."),
    TOMBSTONE_TABLE(
            "fenced.tombstone.table",
            "fenced_tombstone",
            Kind.IDENTIFIER,
            "Table that holds the tombstones (schema-qualified if you like); its insert check is the function"
                    + " `<table>_check` and its key function `<table>_key`. Created at first connect when missing."),
    CONFIG(
            "fenced.config",
            null,
            Kind.STRING,
            "Path of a fenced.properties file (as a system property or environment variable)."),

    LEASE_URL(
            "fenced.lease.url",
            null,
            Kind.STRING,
            "JDBC URL of the lease store used by the agent; default: the first `jdbc:fenced:` URL the"
                    + " application opens."),
    LEASE_TABLE(
            "fenced.lease.table",
            "fenced_lease",
            Kind.IDENTIFIER,
            "Table that holds the leases (schema-qualified if you like). Its token sequence is `<table>_token_seq`."),
    LEASE_CREATE_TABLE(
            "fenced.lease.createTable",
            "true",
            Kind.BOOLEAN,
            "Create the lease table, its sequence and its token index on first use (and the index on an existing table). Off: ship `fenced-lease.sql` with your migrations."),
    LEASE_TOKEN_DOMAIN(
            "fenced.lease.tokenDomain",
            "fenced",
            Kind.TOKEN_DOMAIN,
            "Token domain of the leases the agent and the Spring Boot starter take from the lease table. For one"
                    + " lease over several databases, give it a name of its own and set `fenced.tokenDomain` to that"
                    + " name in every database the job writes (docs/leases.md); the default `fenced` is accepted only"
                    + " by the lease table's own database."),
    LEASE_METHOD(
            "fenced.lease.<name>.method",
            null,
            Kind.METHOD,
            "Agent: every call of this method (`com.acme.Jobs#runNightly`) runs under lease <name>."),
    LEASE_TTL(
            "fenced.lease.<name>.ttl",
            "30s",
            Kind.DURATION,
            "Agent: length of lease <name>; it is renewed every ttl/3 while the method runs."),
    LEASE_ON_BUSY(
            "fenced.lease.<name>.onBusy",
            "skip",
            Kind.choice("skip", "wait", "fail"),
            "Agent: when lease <name> is held elsewhere, `skip` the call (it returns null, 0 or false), `wait`"
                    + " for the lease (up to one ttl), or `fail` with an IllegalStateException naming the lease."),
    AGENT_ENABLED("fenced.agent.enabled", "true", Kind.BOOLEAN, "Agent: false turns the agent off entirely."),
    METRICS_JMX(
            "fenced.metrics.jmx",
            "true",
            Kind.BOOLEAN,
            "Register the `dev.fenced:type=Metrics` and `dev.fenced:type=WriterInventory` MBeans."),
    OBSERVE_INVENTORY(
            "fenced.observe.inventory",
            "true",
            Kind.BOOLEAN,
            "Observe mode keeps the writer inventory: each write without a token and each statement fenced could"
                    + " not fence, by table, statement shape and call site (`WriterInventory`)."),
    OBSERVE_SKIP_FRAMES(
            "fenced.observe.skipFrames",
            "java.,javax.,jdk.,sun.,com.sun.,kotlin.,scala.,groovy.,org.codehaus.groovy.,"
                    + "com.zaxxer.hikari.,com.mchange.,org.apache.commons.dbcp,org.apache.tomcat.,oracle.ucp.,"
                    + "org.vibur.,io.agroal.,org.springframework.,org.hibernate.,org.jooq.,org.apache.ibatis.,"
                    + "org.mybatis.,org.jdbi.,org.sql2o.,io.ebean.,org.eclipse.persistence.,com.querydsl.,"
                    + "net.ttddyy.,com.p6spy.,io.micrometer.,net.bytebuddy.",
            Kind.LIST,
            "Class-name prefixes the inventory steps over to find a writer's call site (the JDK, pools,"
                    + " frameworks); fenced's own classes are always skipped. Setting it replaces the whole list."),
    OBSERVE_MAX_WRITERS(
            "fenced.observe.maxWriters",
            "1000",
            Kind.POSITIVE_INT,
            "Most entries (table, statement shape, call site) the inventory keeps; past it new ones are only"
                    + " counted."),
    OBSERVE_REPORT(
            "fenced.observe.report",
            null,
            Kind.STRING,
            "Path the inventory report is written to at shutdown and on demand (`WriterInventory.writeReport()`,"
                    + " JMX): JSON when the name ends in `.json`, else Markdown."),

    SPRING_WRAP_DATA_SOURCE(
            "fenced.spring.wrapDataSource",
            "true",
            Kind.BOOLEAN,
            "Spring Boot: fence the application's DataSource beans in place (no URL change); a DataSource whose URL"
                    + " is already `jdbc:fenced:` is left alone."),
    SPRING_UNFENCED_MIGRATIONS(
            "fenced.spring.unfencedMigrations",
            "true",
            Kind.BOOLEAN,
            "Spring Boot: Flyway and Liquibase migrations run inside `Fencing.unfenced` (logged); false: they run"
                    + " fenced like any other writer."),
    SPRING_QUARTZ_ENABLED(
            "fenced.spring.quartz.enabled",
            "true",
            Kind.BOOLEAN,
            "Spring Boot with Quartz and fenced-quartz: every job of Boot's SchedulerFactoryBean runs under its lease"
                    + " (`FencedJobFactory` around the application's `JobFactory` bean, or around a"
                    + " `SpringBeanJobFactory`); false: Boot's job factory is left alone.");

    /** The prefix every fenced key starts with; any other key is not ours. */
    public static final String PREFIX = "fenced.";

    private final String key;
    private final @Nullable String defaultValue;
    private final Kind kind;
    private final String description;
    private final @Nullable Pattern pattern;
    private final @Nullable Pattern patternIgnoringCase;

    FencedProperty(String key, @Nullable String defaultValue, Kind kind, String description) {
        this.key = key;
        this.defaultValue = defaultValue;
        this.kind = kind;
        this.description = description;
        String familyRegex = key.contains("<")
                ? Pattern.quote(key.substring(0, key.indexOf('<'))) + "(.+)"
                        + Pattern.quote(key.substring(key.indexOf('>') + 1))
                : null;
        this.pattern = familyRegex == null ? null : Pattern.compile(familyRegex);
        this.patternIgnoringCase = familyRegex == null ? null : Pattern.compile(familyRegex, Pattern.CASE_INSENSITIVE);
    }

    /** The key as written in configuration ({@code <table>}/{@code <name>} stand for a family member). */
    public String key() {
        return key;
    }

    /** The default, or null when the key has none. */
    public @Nullable String defaultValue() {
        return defaultValue;
    }

    public String description() {
        return description;
    }

    /** What values the key takes, for documentation. */
    public String valueSyntax() {
        return kind.syntax;
    }

    /** True for keys that stand for a family ({@code fenced.table.<table>.mode}). */
    public boolean isFamily() {
        return pattern != null;
    }

    /** The key of one member of a family key: {@code TABLE_MODE.keyFor("totals")}. */
    public String keyFor(String member) {
        if (pattern == null) {
            throw new IllegalStateException(key + " is not a family key");
        }
        return key.substring(0, key.indexOf('<')) + member + key.substring(key.indexOf('>') + 1);
    }

    /**
     * Finds the property a concrete key belongs to. Family members come back with their member name.
     *
     * @return null if the key is not a known fenced key
     */
    public static @Nullable Match match(String concreteKey) {
        return match(concreteKey, false);
    }

    /** Like {@link #match(String)} but ignoring case, for environment variables. */
    public static @Nullable Match matchIgnoringCase(String concreteKey) {
        return match(concreteKey, true);
    }

    private static @Nullable Match match(String concreteKey, boolean ignoreCase) {
        for (FencedProperty p : values()) {
            if (p.pattern == null && (ignoreCase ? p.key.equalsIgnoreCase(concreteKey) : p.key.equals(concreteKey))) {
                return new Match(p, null);
            }
        }
        for (FencedProperty p : values()) {
            Pattern family = ignoreCase ? p.patternIgnoringCase : p.pattern; // both set for a family key, or neither
            if (family != null) {
                Matcher m = family.matcher(concreteKey);
                if (m.matches()) {
                    return new Match(p, m.group(1));
                }
            }
        }
        return null;
    }

    /**
     * Checks a value; returns it normalised.
     *
     * @throws IllegalArgumentException with a message that says what was expected
     */
    public String validate(String value) {
        return kind.validate(value);
    }

    /** The list of every key, for error messages. */
    public static String knownKeys() {
        StringBuilder b = new StringBuilder();
        for (FencedProperty p : values()) {
            if (b.length() > 0) {
                b.append(", ");
            }
            b.append(p.key);
        }
        return b.toString();
    }

    /** A concrete key matched to its property; {@code member} is the family member, or null. */
    public record Match(FencedProperty property, @Nullable String member) {}

    /** Parses {@code 30s}, {@code 500ms}, {@code 2m}, {@code 1h} or ISO-8601 {@code PT30S}. */
    public static Duration parseDuration(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        try {
            if (t.startsWith("pt") || t.startsWith("p")) {
                Duration d = Duration.parse(t.toUpperCase(Locale.ROOT));
                if (d.isZero() || d.isNegative()) {
                    throw new IllegalArgumentException();
                }
                return d;
            }
            Matcher m = DURATION.matcher(t);
            if (!m.matches()) {
                throw new IllegalArgumentException();
            }
            long n = Long.parseLong(m.group(1));
            Duration d = switch (m.group(2)) {
                case "ms" -> Duration.ofMillis(n);
                case "s" -> Duration.ofSeconds(n);
                case "m", "min" -> Duration.ofMinutes(n);
                case "h" -> Duration.ofHours(n);
                default -> throw new IllegalArgumentException();
            };
            if (d.isZero()) {
                throw new IllegalArgumentException();
            }
            return d;
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(
                    "expected a positive duration such as 30s, 500ms, 2m or PT30S but got '" + text + "'");
        }
    }

    private static final Pattern DURATION = Pattern.compile("(\\d+)\\s*(ms|s|min|m|h)");

    /** Value kinds, each with its own check. */
    static final class Kind {
        static final Kind STRING = new Kind("text", v -> v);
        static final Kind LIST = new Kind("comma-separated list", String::trim);
        static final Kind IDENTIFIER = new Kind("SQL identifier", v -> {
            if (v.isBlank()) {
                throw new IllegalArgumentException("expected an identifier but got an empty value");
            }
            return v.trim();
        });
        static final Kind MODE =
                new Kind("enforce | observe | off", v -> FencingMode.parse(v).key());
        static final Kind TOKEN_DOMAIN = new Kind(
                "token domain (fenced, etcd, zookeeper, redisson)",
                v -> dev.fenced.internal.context.TokenDomains.check(v.trim()));
        static final Kind BOOLEAN = new Kind("true | false", v -> {
            String t = v.trim().toLowerCase(Locale.ROOT);
            if (!t.equals("true") && !t.equals("false")) {
                throw new IllegalArgumentException("expected true or false but got '" + v + "'");
            }
            return t;
        });
        static final Kind POSITIVE_INT = new Kind("positive integer", v -> {
            try {
                int n = Integer.parseInt(v.trim());
                if (n > 0) {
                    return Integer.toString(n);
                }
            } catch (NumberFormatException ignored) {
                // fall through to the error below
            }
            throw new IllegalArgumentException("expected a positive integer but got '" + v + "'");
        });
        static final Kind DURATION = new Kind("duration (30s, 500ms, 2m)", v -> {
            parseDuration(v);
            return v.trim();
        });
        static final Kind METHOD = new Kind("fully.qualified.Class#method", v -> {
            String t = v.trim();
            int hash = t.indexOf('#');
            if (hash <= 0 || hash == t.length() - 1 || t.indexOf('#', hash + 1) >= 0) {
                throw new IllegalArgumentException("expected fully.qualified.Class#method but got '" + v + "'");
            }
            return t;
        });

        static Kind choice(String... choices) {
            String syntax = String.join(" | ", choices);
            return new Kind(syntax, v -> {
                for (String c : choices) {
                    if (c.equalsIgnoreCase(v.trim())) {
                        return c;
                    }
                }
                throw new IllegalArgumentException("expected one of " + syntax + " but got '" + v + "'");
            });
        }

        final String syntax;
        final java.util.function.UnaryOperator<String> check;

        Kind(String syntax, java.util.function.UnaryOperator<String> check) {
            this.syntax = syntax;
            this.check = check;
        }

        String validate(String value) {
            if (value == null) {
                throw new IllegalArgumentException("a value is required");
            }
            return check.apply(value);
        }
    }
}
