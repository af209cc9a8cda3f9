package dev.fenced.internal.config;

import dev.fenced.FencedProperty;
import dev.fenced.FencingException;
import dev.fenced.FencingMode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * Resolved, validated configuration: what every part of fenced reads. Built by {@link ConfigLoader};
 * immutable; two configurations with the same {@link #fingerprint()} behave the same.
 */
public final class FencedConfig {

    private final Map<String, String> values;
    private final FencingMode mode;
    private final String column;
    private final List<ProtectedTable> tables;
    private final RelativeUpdatePolicy relativeUpdates;
    private final String roleCheck;
    private final int cacheSize;
    private final Duration parseTimeout;
    private final boolean checkSchema;
    private final MissingTablePolicy missingTables;
    private final Duration catalogRefresh;
    private final boolean metricsJmx;
    private final @Nullable String leaseUrl;
    private final String leaseTable;
    private final boolean leaseCreateTable;
    private final String leaseTokenDomain;
    private final boolean agentEnabled;
    private final @Nullable TableName tombstoneTable;
    private final TableName tokenDomainTable;
    private final Map<String, LeaseMethod> leaseMethods;
    private final boolean observeInventory;
    private final List<String> observeSkipFrames;
    private final int observeMaxWriters;
    private final @Nullable String observeReport;
    private final String fingerprint;

    private FencedConfig(Map<String, String> values) throws FencingException {
        this.values = Collections.unmodifiableMap(new TreeMap<>(values));
        this.mode = FencingMode.parse(get(FencedProperty.MODE));
        this.column = TableName.fold(get(FencedProperty.COLUMN));
        this.roleCheck = get(FencedProperty.ROLE_CHECK);
        this.relativeUpdates = RelativeUpdatePolicy.valueOf(
                get(FencedProperty.RELATIVE_UPDATES).toUpperCase(Locale.ROOT));
        this.cacheSize = Integer.parseInt(get(FencedProperty.CACHE_SIZE));
        this.parseTimeout = FencedProperty.parseDuration(get(FencedProperty.PARSE_TIMEOUT));
        this.checkSchema = Boolean.parseBoolean(get(FencedProperty.CHECK_SCHEMA));
        this.missingTables =
                MissingTablePolicy.valueOf(get(FencedProperty.MISSING_TABLES).toUpperCase(Locale.ROOT));
        this.catalogRefresh = FencedProperty.parseDuration(get(FencedProperty.CATALOG_REFRESH));
        this.metricsJmx = Boolean.parseBoolean(get(FencedProperty.METRICS_JMX));
        this.leaseUrl = getOrNull(FencedProperty.LEASE_URL);
        this.leaseTable = get(FencedProperty.LEASE_TABLE);
        this.leaseCreateTable = Boolean.parseBoolean(get(FencedProperty.LEASE_CREATE_TABLE));
        this.leaseTokenDomain = get(FencedProperty.LEASE_TOKEN_DOMAIN);
        this.agentEnabled = Boolean.parseBoolean(get(FencedProperty.AGENT_ENABLED));
        this.tombstoneTable = Boolean.parseBoolean(get(FencedProperty.TOMBSTONES))
                ? TableName.parse(get(FencedProperty.TOMBSTONE_TABLE))
                : null;
        this.tokenDomainTable = TableName.parse(get(FencedProperty.TOKEN_DOMAIN_TABLE));
        this.tables = List.copyOf(parseTables());
        this.leaseMethods = Collections.unmodifiableMap(parseLeaseMethods());
        this.observeInventory = Boolean.parseBoolean(get(FencedProperty.OBSERVE_INVENTORY));
        this.observeSkipFrames = List.copyOf(splitList(get(FencedProperty.OBSERVE_SKIP_FRAMES)));
        this.observeMaxWriters = Integer.parseInt(get(FencedProperty.OBSERVE_MAX_WRITERS));
        String report = getOrNull(FencedProperty.OBSERVE_REPORT);
        this.observeReport = report == null || report.isBlank() ? null : report.trim();
        this.fingerprint = this.values.toString();
    }

    /** Builds a configuration from already merged values (first source wins was applied by the caller). */
    static FencedConfig of(Map<String, String> merged) throws FencingException {
        return new FencedConfig(merged);
    }

    /** Defaults plus the given key/value pairs; for tests and programmatic use. */
    public static FencedConfig of(String... keyValues) throws FencingException {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            m.put(keyValues[i], keyValues[i + 1]);
        }
        return ConfigLoader.resolve(List.of(new ConfigSource("arguments", m)));
    }

    /** The value of a key that has a default: a null here is a bug in {@link FencedProperty}, not a setting. */
    private String get(FencedProperty p) {
        String v = values.get(p.key());
        return v != null ? v : defaultOf(p);
    }

    private static String defaultOf(FencedProperty p) {
        String d = p.defaultValue();
        if (d == null) {
            throw new IllegalStateException("fenced: " + p.key() + " has no default value");
        }
        return d;
    }

    /** The value of a key without a default ({@code fenced.lease.url}, {@code fenced.observe.report}), or null. */
    private @Nullable String getOrNull(FencedProperty p) {
        String v = values.get(p.key());
        return v != null ? v : p.defaultValue();
    }

    private List<ProtectedTable> parseTables() throws FencingException {
        List<ProtectedTable> result = new ArrayList<>();
        Map<TableName, String> registeredSpelling = new LinkedHashMap<>();
        String list = get(FencedProperty.TABLES);
        for (String entry : splitList(list)) {
            TableName name;
            try {
                name = TableName.parse(entry);
            } catch (IllegalArgumentException e) {
                throw configError(FencedProperty.TABLES.key() + ": " + e.getMessage());
            }
            if (registeredSpelling.putIfAbsent(name, entry) != null) {
                throw configError(FencedProperty.TABLES.key() + " lists " + entry + " twice");
            }
        }
        // Per-table overrides must name a registered table: a typo there would silently leave defaults.
        Map<TableName, String> columns = new LinkedHashMap<>();
        Map<TableName, FencingMode> modes = new LinkedHashMap<>();
        Map<TableName, String> domains = new LinkedHashMap<>();
        for (Map.Entry<String, String> e : values.entrySet()) {
            FencedProperty.Match m = FencedProperty.match(e.getKey());
            if (m == null
                    || (m.property() != FencedProperty.TABLE_COLUMN
                            && m.property() != FencedProperty.TABLE_MODE
                            && m.property() != FencedProperty.TABLE_TOKEN_DOMAIN)) {
                continue;
            }
            TableName target;
            try {
                target = TableName.parse(member(m));
            } catch (IllegalArgumentException ex) {
                throw configError(e.getKey() + ": " + ex.getMessage());
            }
            if (!registeredSpelling.containsKey(target)) {
                throw configError(e.getKey() + " configures table " + m.member() + ", which is not listed in "
                        + FencedProperty.TABLES.key() + " (" + (list.isBlank() ? "empty" : list) + ")");
            }
            if (m.property() == FencedProperty.TABLE_COLUMN) {
                columns.put(target, TableName.fold(e.getValue()));
            } else if (m.property() == FencedProperty.TABLE_MODE) {
                modes.put(target, FencingMode.parse(e.getValue()));
            } else {
                domains.put(target, e.getValue().trim());
            }
        }
        String domain = get(FencedProperty.TOKEN_DOMAIN).trim();
        for (TableName name : registeredSpelling.keySet()) {
            result.add(new ProtectedTable(
                    name,
                    columns.getOrDefault(name, column),
                    modes.getOrDefault(name, mode),
                    domains.getOrDefault(name, domain),
                    null));
        }
        checkOverlappingDomains(result, registeredSpelling);
        return result;
    }

    /**
     * Two entries that can name one table ({@code totals} and {@code sales.totals}) must give it one token domain:
     * a statement on {@code sales.totals} would otherwise be checked against whichever entry decides it.
     */
    private static void checkOverlappingDomains(List<ProtectedTable> tables, Map<TableName, String> spelling)
            throws FencingException {
        for (int i = 0; i < tables.size(); i++) {
            for (int j = i + 1; j < tables.size(); j++) {
                ProtectedTable a = tables.get(i);
                ProtectedTable b = tables.get(j);
                if (!a.tokenDomain().equals(b.tokenDomain())
                        && (a.name().matchedBy(b.name()) || b.name().matchedBy(a.name()))) {
                    throw configError(FencedProperty.TABLES.key() + " entries " + spelling.get(a.name())
                            + " (token domain "
                            + a.tokenDomain() + ") and " + spelling.get(b.name()) + " (token domain " + b.tokenDomain()
                            + ") can name the same table; give them one " + FencedProperty.TOKEN_DOMAIN.key());
                }
            }
        }
    }

    /** The member of a family key ({@code fenced.table.<table>.mode}): a family's match always has one. */
    private static String member(FencedProperty.Match m) {
        String member = m.member();
        if (member == null) {
            throw new IllegalStateException("fenced: " + m.property().key() + " matched without a member");
        }
        return member;
    }

    private Map<String, LeaseMethod> parseLeaseMethods() throws FencingException {
        Map<String, Map<FencedProperty, String>> families = new TreeMap<>();
        for (Map.Entry<String, String> e : values.entrySet()) {
            FencedProperty.Match m = FencedProperty.match(e.getKey());
            if (m != null
                    && (m.property() == FencedProperty.LEASE_METHOD
                            || m.property() == FencedProperty.LEASE_TTL
                            || m.property() == FencedProperty.LEASE_ON_BUSY)) {
                families.computeIfAbsent(member(m), k -> new LinkedHashMap<>()).put(m.property(), e.getValue());
            }
        }
        Map<String, LeaseMethod> result = new LinkedHashMap<>();
        for (Map.Entry<String, Map<FencedProperty, String>> f : families.entrySet()) {
            String name = f.getKey();
            String method = f.getValue().get(FencedProperty.LEASE_METHOD);
            if (method == null) {
                throw configError("lease '" + name + "' has "
                        + String.join(
                                ", ",
                                f.getValue().keySet().stream()
                                        .map(p -> p.keyFor(name))
                                        .toList()) + " but no " + FencedProperty.LEASE_METHOD.keyFor(name));
            }
            int hash = method.indexOf('#');
            Duration ttl = FencedProperty.parseDuration(
                    f.getValue().getOrDefault(FencedProperty.LEASE_TTL, defaultOf(FencedProperty.LEASE_TTL)));
            LeaseMethod.OnBusy onBusy = LeaseMethod.OnBusy.valueOf(f.getValue()
                    .getOrDefault(FencedProperty.LEASE_ON_BUSY, defaultOf(FencedProperty.LEASE_ON_BUSY))
                    .toUpperCase(Locale.ROOT));
            result.put(name, new LeaseMethod(name, method.substring(0, hash), method.substring(hash + 1), ttl, onBusy));
        }
        return result;
    }

    static List<String> splitList(String list) {
        List<String> out = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        boolean quoted = false;
        for (int i = 0; i < list.length(); i++) {
            char c = list.charAt(i);
            if (c == '"') {
                quoted = !quoted;
            }
            if (c == ',' && !quoted) {
                if (!cur.toString().isBlank()) {
                    out.add(cur.toString().trim());
                }
                cur.setLength(0);
            } else {
                cur.append(c);
            }
        }
        if (!cur.toString().isBlank()) {
            out.add(cur.toString().trim());
        }
        return out;
    }

    /**
     * A fenced connection or DataSource that protects nothing is an error, not a quiet pass-through: with no
     * {@code fenced.tables} every write goes through unfenced while the URL and the logs say "fenced". Only
     * {@code fenced.mode=off} asks for that on purpose.
     */
    public void requireProtectedTables() throws FencingException {
        if (tables.isEmpty() && mode != FencingMode.OFF) {
            throw new FencingException(
                    "fenced: nothing is protected: " + FencedProperty.TABLES.key() + " is not set (in the URL, the"
                            + " connection properties, the system properties, FENCED_TABLES or fenced.properties),"
                            + " so every write would pass unfenced; list the tables to protect ("
                            + FencedProperty.TABLES.key() + "=orders,billing.totals), or set "
                            + FencedProperty.MODE.key() + "=off to connect unfenced on purpose",
                    FencingException.NOTHING_PROTECTED);
        }
    }

    static FencingException configError(String message) {
        return new FencingException("fenced: bad configuration: " + message, FencingException.CONFIGURATION);
    }

    public FencingMode mode() {
        return mode;
    }

    public String column() {
        return column;
    }

    /** Registered protected tables, in the order listed. */
    public List<ProtectedTable> tables() {
        return tables;
    }

    /** True when no statement can need fencing: nothing registered, or everything off. */
    public boolean inactive() {
        return tables.stream().allMatch(t -> t.mode() == FencingMode.OFF);
    }

    /** {@code fenced.roleCheck}: warn, refuse or off. */
    public String roleCheck() {
        return roleCheck;
    }

    public RelativeUpdatePolicy relativeUpdates() {
        return relativeUpdates;
    }

    public int cacheSize() {
        return cacheSize;
    }

    public Duration parseTimeout() {
        return parseTimeout;
    }

    public boolean checkSchema() {
        return checkSchema;
    }

    /** {@code fenced.missingTables}: whether an enforce-mode entry matching no table fails the connect. */
    public MissingTablePolicy missingTables() {
        return missingTables;
    }

    public Duration catalogRefresh() {
        return catalogRefresh;
    }

    public boolean metricsJmx() {
        return metricsJmx;
    }

    public @Nullable String leaseUrl() {
        return leaseUrl;
    }

    public String leaseTable() {
        return leaseTable;
    }

    public boolean leaseCreateTable() {
        return leaseCreateTable;
    }

    /** The token domain of the agent's and the starter's leases ({@code fenced.lease.tokenDomain}). */
    public String leaseTokenDomain() {
        return leaseTokenDomain;
    }

    /** The tombstone table, or null with {@code fenced.tombstones=false}. */
    public @Nullable TableName tombstoneTable() {
        return tombstoneTable;
    }

    /** The table that records each protected table's token domain ({@code fenced.tokenDomains.table}). */
    public TableName tokenDomainTable() {
        return tokenDomainTable;
    }

    public boolean agentEnabled() {
        return agentEnabled;
    }

    /** {@code fenced.spring.quartz.enabled}. */
    public boolean springQuartz() {
        return Boolean.parseBoolean(get(FencedProperty.SPRING_QUARTZ_ENABLED));
    }

    /** {@code fenced.spring.wrapDataSource}. */
    public boolean springWrapDataSource() {
        return Boolean.parseBoolean(get(FencedProperty.SPRING_WRAP_DATA_SOURCE));
    }

    /** {@code fenced.spring.unfencedMigrations}. */
    public boolean springUnfencedMigrations() {
        return Boolean.parseBoolean(get(FencedProperty.SPRING_UNFENCED_MIGRATIONS));
    }

    /** Lease-bound methods for the agent, by lease name. */
    public Map<String, LeaseMethod> leaseMethods() {
        return leaseMethods;
    }

    /** Whether observe mode keeps the writer inventory ({@code fenced.observe.inventory}). */
    public boolean observeInventory() {
        return observeInventory;
    }

    /** Class-name prefixes the inventory steps over to find a call site ({@code fenced.observe.skipFrames}). */
    public List<String> observeSkipFrames() {
        return observeSkipFrames;
    }

    public int observeMaxWriters() {
        return observeMaxWriters;
    }

    /** Where the inventory report goes ({@code fenced.observe.report}), or null. */
    public @Nullable String observeReport() {
        return observeReport;
    }

    /** The explicitly set values, by key. */
    public Map<String, String> values() {
        return values;
    }

    /** Equal for configurations that behave the same; used to share caches between connections. */
    public String fingerprint() {
        return fingerprint;
    }

    @Override
    public String toString() {
        return "FencedConfig" + values;
    }
}
