package dev.fenced.internal.sql;

import dev.fenced.internal.config.TableName;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * An UPDATE's FROM list or a DELETE's USING list that is nothing but plain tables, {@code name [[AS] alias], ...}
 * ({@code name} one or two parts): what {@link SkeletonFirst} plans by position. Anything else in the list (a
 * subquery, a function, LATERAL, ONLY, {@code t *}, a JOIN, TABLESAMPLE, a column alias list, a keyword as a name) is
 * not read (null), and the statement goes to the parser's path. The list ends at a top-level WHERE or RETURNING, or
 * at the statement's end; both are reserved words, so never a name or an alias here.
 *
 * @param tables     each item's table as written, folded
 * @param qualifiers how each item's rows are named in the statement: its alias, else its bare name (folded)
 * @param end        the index of the token after the list (WHERE, RETURNING, or the statement's size)
 */
record PlainFromList(List<TableName> tables, List<String> qualifiers, int end) {

    /** The list that starts at {@code from} (the token after FROM or USING), or null when it is not plain. */
    static @Nullable PlainFromList read(List<Token> tokens, int from) {
        List<TableName> tables = new ArrayList<>();
        List<String> qualifiers = new ArrayList<>();
        int i = from;
        while (true) {
            if (i >= tokens.size() || !TokenRuns.isPlainName(tokens.get(i))) {
                return null;
            }
            String schema = null;
            String name = TableName.fold(tokens.get(i).text());
            i++;
            if (i < tokens.size() && tokens.get(i).isSymbol(".")) {
                if (i + 1 >= tokens.size() || !TokenRuns.isPlainName(tokens.get(i + 1))) {
                    return null;
                }
                schema = name;
                name = TableName.fold(tokens.get(i + 1).text());
                i += 2;
            }
            tables.add(new TableName(schema, name));
            String qualifier = name;
            if (i < tokens.size() && tokens.get(i).isWord("AS")) {
                i++;
                if (i >= tokens.size() || !TokenRuns.isPlainName(tokens.get(i))) {
                    return null;
                }
            }
            if (i < tokens.size() && TokenRuns.isPlainName(tokens.get(i))) {
                qualifier = TableName.fold(tokens.get(i).text());
                i++;
            }
            qualifiers.add(qualifier);
            if (i >= tokens.size()
                    || tokens.get(i).isWord("WHERE")
                    || tokens.get(i).isWord("RETURNING")) {
                return new PlainFromList(List.copyOf(tables), List.copyOf(qualifiers), i);
            }
            if (!tokens.get(i).isSymbol(",")) {
                return null; // JOIN, TABLESAMPLE, `*`, `(`, a dot too many ...
            }
            i++;
        }
    }

    /**
     * Whether the list is one the lane may plan beside the target: no item names anything protected or that reaches
     * protected rows (the target again, a self join, among them; by last name part, so a superset), and no item's
     * rows are named as the target's ({@code ownQualifier}, folded), so a qualified name is the target's or an
     * item's, never both.
     */
    boolean besideTarget(FencingTargets targets, String ownQualifier) {
        for (int k = 0; k < tables.size(); k++) {
            if (targets.isWatchedName(tables.get(k).name())
                    || targets.isWatchedName(qualifiers.get(k))
                    || qualifiers.get(k).equals(ownQualifier)) {
                return false;
            }
        }
        return true;
    }
}
