package dev.fenced.internal.sql;

import dev.fenced.FencingMode;
import dev.fenced.internal.config.ProtectedTable;
import dev.fenced.internal.config.TableName;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * What the rewriter protects: the registered tables, the tables the catalog showed to share their rows
 * (partitions, inheritance children and parents), the relations whose writes reach their rows
 * indirectly (views that read them; parents without the fence column), and the names of volatile
 * functions. Immutable.
 */
public final class FencingTargets {

    /** Functions known to be volatile even when the catalog was not read (unit tests, checkSchema=false). */
    static final Set<String> BUILTIN_VOLATILE = Set.of(
            "random",
            "random_normal",
            "nextval",
            "setval",
            "currval",
            "lastval",
            "clock_timestamp",
            "timeofday",
            "gen_random_uuid",
            "uuid_generate_v1",
            "uuid_generate_v4",
            "uuidv4",
            "uuidv7",
            "pg_sleep",
            "pg_sleep_for",
            "pg_sleep_until",
            "txid_current",
            "pg_current_xact_id",
            "setseed",
            "dblink",
            "dblink_exec",
            "pg_advisory_lock",
            "pg_try_advisory_lock",
            "lo_import",
            "pg_notify",
            "set_config");

    private final List<ProtectedTable> tables;
    private final Map<TableName, String> indirect;
    private final Set<String> volatileFunctions;
    /** Every function name the catalog read found, or that none was read. */
    private final KnownFunctions knownFunctions;
    /** Lower-cased last name parts of every table and view above: what the text pre-filter looks for. */
    private final String[] watched;
    /**
     * The pre-filter's needles ({@link #watched} and {@code u&}) by the ASCII character a match can start
     * with (a needle's first character or its upper case); needles starting otherwise are in
     * {@link #nonAsciiStart}. So {@link #mayMention} reads the text once however many tables are protected.
     */
    private final String[][] byStart = new String[128][];

    private final String[] nonAsciiStart;
    private final boolean emptyNeedle;
    /** Catalog facts per protected relation (by its name in {@link #tables}); empty without a catalog. */
    private final Map<TableName, TableShape> shapes;
    /** The table tombstones are kept in, or null when deletes leave none. */
    private final @Nullable TableName tombstoneTable;

    /**
     * The function names (any volatility) a catalog read found: a name called that is not among them was created
     * since, and its volatility is unknown. Without a read ({@link #NOT_READ}) no name counts as unknown.
     */
    private record KnownFunctions(boolean read, Set<String> names) {
        static final KnownFunctions NOT_READ = new KnownFunctions(false, Set.of());

        static KnownFunctions read(Set<String> names) {
            return new KnownFunctions(true, Set.copyOf(names));
        }

        boolean isUnknown(String lowerCaseName) {
            return read && !names.contains(lowerCaseName);
        }

        /** Known to both when both read the catalog; else nothing was read for certain. */
        KnownFunctions union(KnownFunctions other) {
            if (!read || !other.read) {
                return NOT_READ;
            }
            Set<String> both = new LinkedHashSet<>(names);
            both.addAll(other.names);
            return read(both);
        }
    }

    /** Targets for the registered tables only, as known without a catalog. */
    public static FencingTargets of(List<ProtectedTable> tables) {
        return modelled(tables, Map.of(), Set.of(), Map.of(), null);
    }

    /**
     * Targets as a model of the catalog describes them (tests, benchmarks): the registered and derived tables, the
     * relations that reach them indirectly ({@code indirect}, with the reason), volatile functions, column lists and
     * keys ({@code shapes}, by protected relation name) and the tombstone table (null for none); no function list,
     * so no function counts as unknown.
     */
    public static FencingTargets modelled(
            List<ProtectedTable> tables,
            Map<TableName, String> indirect,
            Set<String> volatileFunctions,
            Map<TableName, TableShape> shapes,
            @Nullable TableName tombstoneTable) {
        return new FencingTargets(tables, indirect, volatileFunctions, shapes, tombstoneTable, KnownFunctions.NOT_READ);
    }

    /** What a catalog read found, as {@link #modelled} plus every function name of the database ({@code functions}). */
    public static FencingTargets fromCatalog(
            List<ProtectedTable> tables,
            Map<TableName, String> indirect,
            Set<String> volatileFunctions,
            Map<TableName, TableShape> shapes,
            @Nullable TableName tombstoneTable,
            Set<String> functions) {
        return new FencingTargets(
                tables, indirect, volatileFunctions, shapes, tombstoneTable, KnownFunctions.read(functions));
    }

    private FencingTargets(
            List<ProtectedTable> tables,
            Map<TableName, String> indirect,
            Set<String> volatileFunctions,
            Map<TableName, TableShape> shapes,
            @Nullable TableName tombstoneTable,
            KnownFunctions knownFunctions) {
        this.knownFunctions = knownFunctions;
        this.shapes = Collections.unmodifiableMap(new LinkedHashMap<>(shapes));
        this.tombstoneTable = tombstoneTable;
        List<ProtectedTable> active = new ArrayList<>();
        for (ProtectedTable t : tables) {
            if (t.mode() != FencingMode.OFF) {
                active.add(t);
            }
        }
        this.tables = List.copyOf(active);
        this.indirect = Collections.unmodifiableMap(new LinkedHashMap<>(indirect));
        Set<String> fns = new LinkedHashSet<>(BUILTIN_VOLATILE);
        fns.addAll(volatileFunctions);
        this.volatileFunctions = Collections.unmodifiableSet(fns);
        Set<String> names = new LinkedHashSet<>();
        for (ProtectedTable t : this.tables) {
            names.add(t.name().name().toLowerCase(Locale.ROOT));
        }
        for (TableName v : this.indirect.keySet()) {
            names.add(v.name().toLowerCase(Locale.ROOT));
        }
        this.watched = names.toArray(new String[0]);
        List<String> needles = new ArrayList<>(names);
        needles.add(UNICODE_ESCAPE);
        Set<String> nonAscii = new LinkedHashSet<>();
        boolean empty = false;
        for (String needle : needles) {
            if (needle.isEmpty()) {
                empty = true;
                continue;
            }
            char first = needle.charAt(0);
            for (char start : new char[] {first, Character.toUpperCase(first)}) {
                if (start >= 128) {
                    nonAscii.add(needle);
                } else if (byStart[start] == null) {
                    byStart[start] = new String[] {needle};
                } else if (!List.of(byStart[start]).contains(needle)) {
                    String[] grown = Arrays.copyOf(byStart[start], byStart[start].length + 1);
                    grown[grown.length - 1] = needle;
                    byStart[start] = grown;
                }
            }
        }
        this.nonAsciiStart = nonAscii.toArray(new String[0]);
        this.emptyNeedle = empty;
    }

    /**
     * A quick no for most candidates, before the full comparison: the needle does not fit, or its second
     * character and the text's are both ASCII and differ ignoring case (for ASCII that is exactly what
     * {@code regionMatches(true, ...)} compares; anything else is left to it).
     */
    private static boolean mayStartHere(String sql, int i, String needle) {
        int n = needle.length();
        if (i + n > sql.length()) {
            return false;
        }
        if (n < 2) {
            return true;
        }
        char want = needle.charAt(1);
        char have = sql.charAt(i + 1);
        return want >= 128 || have >= 128 || asciiLower(want) == asciiLower(have);
    }

    private static char asciiLower(char c) {
        return c >= 'A' && c <= 'Z' ? (char) (c + ('a' - 'A')) : c;
    }

    /** {@code U&} escapes can spell any name without containing it. */
    private static final String UNICODE_ESCAPE = "u&";

    public List<ProtectedTable> tables() {
        return tables;
    }

    public boolean isEmpty() {
        return tables.isEmpty();
    }

    /** Relations whose writes reach protected rows indirectly, with the reason (indirect, bare parents). */
    public Map<TableName, String> indirect() {
        return indirect;
    }

    /**
     * The cheap first test every statement goes through, with no allocation: could this text mention a
     * protected table or view at all? Case-insensitive substring search; {@code U&} escapes count as a
     * possible mention because they can spell any name without containing it.
     */
    public boolean mayMention(String sql) {
        if (watched.length == 0) {
            return false;
        }
        if (emptyNeedle) {
            return true;
        }
        // One pass over the text (the hot path of every statement): at each character, only the needles
        // that can start there are compared. The same answer as containsIgnoreCase for each needle in turn,
        // which read the whole text once per protected name: 20 protected tables made an unprotected
        // statement pay ~0.7 µs here (bench: RewriteBench.d_unprotected20Tables).
        int length = sql.length();
        for (int i = 0; i < length; i++) {
            char c = sql.charAt(i);
            if (c < 128) {
                String[] candidates = byStart[c];
                if (candidates != null) {
                    for (String needle : candidates) {
                        if (mayStartHere(sql, i, needle) && sql.regionMatches(true, i, needle, 0, needle.length())) {
                            return true;
                        }
                    }
                }
            } else if (nonAsciiStart.length > 0) {
                for (String needle : nonAsciiStart) {
                    char first = needle.charAt(0);
                    if ((c == first || c == Character.toUpperCase(first))
                            && sql.regionMatches(true, i, needle, 0, needle.length())) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /**
     * True when a folded identifier (last name part) may name something protected. Compared ignoring case:
     * a superset only sends more statements to the parser, which then matches exactly.
     */
    boolean isWatchedName(String folded) {
        for (String name : watched) {
            if (name.equalsIgnoreCase(folded) || TableName.sameName(name, folded.toLowerCase(Locale.ROOT))) {
                return true;
            }
        }
        return false;
    }

    /**
     * The protected table a reference may resolve to, or null. When several entries match (overlapping
     * {@code archive.t} and {@code t}), the strictest mode wins: the first entry in the strictest mode.
     */
    @Nullable
    ProtectedTable tableFor(TableName reference) {
        ProtectedTable best = null;
        for (ProtectedTable t : tables) {
            if (t.name().matchedBy(reference)
                    && (best == null || t.mode().ordinal() < best.mode().ordinal())) {
                best = t;
            }
        }
        return best;
    }

    /**
     * Everything either side knows: for a catalog read made inside an open transaction, whose DDL may
     * still roll back, what it found is added and nothing is forgotten until a committed read.
     */
    public FencingTargets union(FencingTargets other) {
        List<ProtectedTable> all = new ArrayList<>(tables);
        for (ProtectedTable t : other.tables) {
            if (!all.contains(t)) {
                all.add(t);
            }
        }
        Map<TableName, String> reach = new LinkedHashMap<>(indirect);
        other.indirect.forEach(reach::putIfAbsent);
        Set<String> fns = new LinkedHashSet<>(volatileFunctions);
        fns.addAll(other.volatileFunctions);
        // the shapes and the tombstone table too: without them a DELETE after a catalog read inside a
        // transaction would record no tombstones, and its rows could be brought back by a stale holder
        Map<TableName, TableShape> shapesOfBoth = new LinkedHashMap<>(shapes);
        other.shapes.forEach(shapesOfBoth::put);
        return new FencingTargets(
                all,
                reach,
                fns,
                shapesOfBoth,
                other.tombstoneTable != null ? other.tombstoneTable : tombstoneTable,
                knownFunctions.union(other.knownFunctions));
    }

    /**
     * For a reference that may reach protected rows without being a protected table (a view that reads
     * one, a parent table without the fence column): why a write to it is refused; else null.
     */
    @Nullable
    String indirectReason(TableName reference) {
        for (Map.Entry<TableName, String> v : indirect.entrySet()) {
            if (v.getKey().matchedBy(reference)) {
                return v.getValue();
            }
        }
        return null;
    }

    /** What the catalog said about a protected relation, or null when it was not read (or is ambiguous). */
    @Nullable
    TableShape shapeOf(ProtectedTable table) {
        return shapes.get(table.name());
    }

    /** The tombstone table, or null when deletes leave no tombstones. */
    @Nullable
    TableName tombstoneTable() {
        return tombstoneTable;
    }

    boolean isVolatile(String functionName) {
        return volatileFunctions.contains(functionName.toLowerCase(Locale.ROOT));
    }

    /** True when the catalog read knew no function of this name (created since, volatility unknown). */
    boolean isUnknownFunction(String functionName) {
        return knownFunctions.isUnknown(functionName.toLowerCase(Locale.ROOT));
    }

    /**
     * Same tables (with what they were derived from), same indirect relations and reasons, same volatile
     * functions: a rewriter built on either decides every statement alike, so its plans stay valid.
     */
    @Override
    public boolean equals(Object o) {
        return o instanceof FencingTargets other
                && tables.equals(other.tables)
                && indirect.equals(other.indirect)
                && volatileFunctions.equals(other.volatileFunctions)
                && knownFunctions.equals(other.knownFunctions)
                && shapes.equals(other.shapes)
                && Objects.equals(tombstoneTable, other.tombstoneTable);
    }

    @Override
    public int hashCode() {
        return Objects.hash(tables, indirect, volatileFunctions, shapes, tombstoneTable);
    }

    static boolean containsIgnoreCase(String haystack, String lowerNeedle) {
        int n = lowerNeedle.length();
        int max = haystack.length() - n;
        if (n == 0) {
            return true;
        }
        char first = lowerNeedle.charAt(0);
        char firstUpper = Character.toUpperCase(first);
        for (int i = 0; i <= max; i++) {
            char c = haystack.charAt(i);
            if ((c == first || c == firstUpper) && haystack.regionMatches(true, i, lowerNeedle, 0, n)) {
                return true;
            }
        }
        return false;
    }
}
