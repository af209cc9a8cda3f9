package dev.fenced.internal.sql;

import dev.fenced.internal.config.TableName;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * DDL on the objects fenced itself relies on: the tombstone table and its check and key functions, the lease table
 * and its token sequence, the token-domain registry. Dropping, altering, truncating or replacing one of them (or
 * shadowing it with a temporary table of the same name) switches off a check or sends tokens backwards without
 * naming any protected table, so it is refused outside {@code Fencing.unfenced}, as DROP TRIGGER of fenced's
 * trigger on a protected table is. The lease table and sequence may still be created ({@code CREATE ... IF NOT
 * EXISTS} is how the lease store makes them on first use, through whatever DataSource it was given), but not as
 * temporary ones.
 */
final class FencedObjects {

    /** Every one of these names starts with it: the cheap first test. */
    static final String PREFIX = "fenced_";

    /** Objects fenced creates and nobody else should create, replace or shadow. */
    private static final Set<String> CREATED_BY_FENCED =
            Set.of("fenced_tombstone", Tombstones.TRIGGER, "fenced_tombstone_key", "fenced_token_domain");
    /** Objects the lease store creates on first use, possibly through the application's fenced DataSource. */
    private static final Set<String> LEASE_OBJECTS = Set.of("fenced_lease", "fenced_lease_token_seq");

    private FencedObjects() {}

    /** Whether {@code sql} may name one of fenced's objects (a {@code U&} name is caught as a possible mention). */
    static boolean mayName(String sql) {
        return FencingTargets.containsIgnoreCase(sql, PREFIX);
    }

    /** The fenced object a DDL statement changes, or null when it changes none of them. */
    static @Nullable String changedBy(List<Token> tokens, String firstWord, FencingTargets targets) {
        boolean create = firstWord.equals("CREATE");
        if (!create && !firstWord.equals("ALTER") && !firstWord.equals("DROP") && !firstWord.equals("TRUNCATE")) {
            return null;
        }
        for (Token t : tokens) {
            if (t.kind() != Token.Kind.WORD && t.kind() != Token.Kind.QUOTED_IDENTIFIER) {
                continue;
            }
            String name = TableName.fold(t.text());
            if (CREATED_BY_FENCED.contains(name)
                    || (targets.tombstoneTable() != null
                            && targets.tombstoneTable().name().equals(name))) {
                return name;
            }
            if (LEASE_OBJECTS.contains(name) && (!create || createsTemporary(tokens))) {
                return name;
            }
        }
        return null;
    }

    /** {@code CREATE [GLOBAL | LOCAL] TEMP | TEMPORARY ...}: an object that shadows another in the search_path. */
    private static boolean createsTemporary(List<Token> tokens) {
        for (int i = 1; i < tokens.size() && i < 4; i++) {
            if (tokens.get(i).isWord("TEMP") || tokens.get(i).isWord("TEMPORARY")) {
                return true;
            }
        }
        return false;
    }
}
