package dev.fenced.sql;

import dev.fenced.FencingMode;
import dev.fenced.config.ProtectedTable;
import dev.fenced.config.TableName;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * What the rewriter protects: the registered tables, the tables the catalog showed to share their rows
 * (partitions, inheritance children and parents), the relations whose writes reach their rows
 * indirectly (views that read them; parents without the fence column), and the names of volatile
 * functions. Immutable.
 */
public final class FencingTargets {

    /** Functions known to be volatile even when the catalog was not read (unit tests, checkSchema=false). */
    static final Set<String> BUILTIN_VOLATILE = Set.of("random", "random_normal", "nextval", "setval", "currval",
            "lastval", "clock_timestamp", "timeofday", "gen_random_uuid", "uuid_generate_v1", "uuid_generate_v4",
            "uuidv4", "uuidv7", "pg_sleep", "pg_sleep_for", "pg_sleep_until", "txid_current", "pg_current_xact_id",
            "setseed", "dblink", "dblink_exec", "pg_advisory_lock", "pg_try_advisory_lock", "lo_import",
            "pg_notify", "set_config");

    private final List<ProtectedTable> tables;
    private final Map<TableName, String> indirect;
    private final Set<String> volatileFunctions;
    /** Lower-cased last name parts of every table and view above: what the text pre-filter looks for. */
    private final String[] watched;

    public FencingTargets(List<ProtectedTable> tables, Map<TableName, String> indirect, Set<String> volatileFunctions) {
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
    }

    /** Targets for the registered tables only, as known without a catalog. */
    public static FencingTargets of(List<ProtectedTable> tables) {
        return new FencingTargets(tables, Map.of(), Set.of());
    }

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
        for (String name : watched) {
            if (containsIgnoreCase(sql, name)) {
                return true;
            }
        }
        return containsIgnoreCase(sql, "u&");
    }

    /**
     * True when a folded identifier (last name part) may name something protected. Compared ignoring case:
     * a superset only sends more statements to the parser, which then matches exactly.
     */
    boolean isWatchedName(String folded) {
        for (String name : watched) {
            if (name.equalsIgnoreCase(folded)) {
                return true;
            }
        }
        return false;
    }

    /** The protected table a reference may resolve to, or null. */
    ProtectedTable tableFor(TableName reference) {
        for (ProtectedTable t : tables) {
            if (t.name().matchedBy(reference)) {
                return t;
            }
        }
        return null;
    }

    /**
     * For a reference that may reach protected rows without being a protected table (a view that reads
     * one, a parent table without the fence column): why a write to it is refused; else null.
     */
    String indirectReason(TableName reference) {
        for (Map.Entry<TableName, String> v : indirect.entrySet()) {
            if (v.getKey().matchedBy(reference)) {
                return v.getValue();
            }
        }
        return null;
    }

    boolean isVolatile(String functionName) {
        return volatileFunctions.contains(functionName.toLowerCase(Locale.ROOT));
    }

    /**
     * Same tables (with what they were derived from), same indirect relations and reasons, same volatile
     * functions: a rewriter built on either decides every statement alike, so its plans stay valid.
     */
    @Override
    public boolean equals(Object o) {
        return o instanceof FencingTargets other && tables.equals(other.tables) && indirect.equals(other.indirect)
                && volatileFunctions.equals(other.volatileFunctions);
    }

    @Override
    public int hashCode() {
        return Objects.hash(tables, indirect, volatileFunctions);
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
