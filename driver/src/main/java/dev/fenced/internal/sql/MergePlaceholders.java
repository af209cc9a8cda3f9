package dev.fenced.internal.sql;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.NullValue;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.statement.merge.MergeInsert;
import net.sf.jsqlparser.statement.merge.MergeOperation;
import net.sf.jsqlparser.statement.merge.MergeUpdate;
import org.jspecify.annotations.Nullable;

/**
 * The MERGE forms JSqlParser cannot read, given to it in a form it reads and given back as written when printed:
 * <ul>
 *   <li>the actions {@code WHEN ... THEN DO NOTHING} and {@code WHEN NOT MATCHED THEN INSERT DEFAULT VALUES}: an
 *       action naming a placeholder column stands in ({@code UPDATE SET fenced_merge_nothing_0 = NULL}, or
 *       {@code INSERT (fenced_merge_defaults_0) VALUES (NULL)} where JSqlParser reads only an INSERT).
 *       {@link MergeFencer} knows them by that column: DO NOTHING writes nothing and gets no fence; DEFAULT VALUES
 *       becomes {@code INSERT (<fence column>) VALUES (<token>)}, every other column still taking its default;</li>
 *   <li>a join as the USING source ({@code USING a JOIN b ON ... ON <merge condition>}): JSqlParser reads it in
 *       parentheses with a placeholder alias, {@code USING (a JOIN b ON ...) fenced_merge_join_0 ON ...}.
 *       Nothing is fenced in the source; the parentheses are only for JSqlParser, and PostgreSQL gets the join as
 *       written.</li>
 * </ul>
 * Printing puts the user's words back for every placeholder still there, so the fidelity check compares the user's
 * own tokens. A user name with the prefix is refused, as the cursor placeholders' are.
 */
final class MergePlaceholders {

    static final String PREFIX = "fenced_merge_";
    private static final String NOTHING = PREFIX + "nothing_";
    private static final String DEFAULTS = PREFIX + "defaults_";
    private static final String JOIN = PREFIX + "join_";

    private MergePlaceholders() {}

    /**
     * How many tokens from {@code i} a placeholder stands for: 2 for {@code DO NOTHING}, 3 for {@code INSERT
     * DEFAULT VALUES}, each right after a {@code THEN} (DO is reserved, so no expression reads {@code THEN DO};
     * ON CONFLICT's DO NOTHING has no THEN before it); 0 for anything else.
     */
    static int lengthAt(List<Token> tokens, int i) {
        if (i == 0 || !tokens.get(i - 1).isWord("THEN")) {
            return 0;
        }
        if (i + 1 < tokens.size()
                && tokens.get(i).isWord("DO")
                && tokens.get(i + 1).isWord("NOTHING")) {
            return 2;
        }
        if (i + 2 < tokens.size()
                && tokens.get(i).isWord("INSERT")
                && tokens.get(i + 1).isWord("DEFAULT")
                && tokens.get(i + 2).isWord("VALUES")) {
            return 3;
        }
        return 0;
    }

    /**
     * The action JSqlParser reads in place of the {@code n}th placeholder, which starts at {@code tokens[i]}: an
     * INSERT under {@code WHEN NOT MATCHED [BY TARGET]} (JSqlParser reads no other action there), else an UPDATE.
     * Which one stands in changes nothing but whether JSqlParser reads it: either is known as what it stands for.
     */
    static String placeholder(List<Token> tokens, int i, int n) {
        String column = (tokens.get(i).isWord("DO") ? NOTHING : DEFAULTS) + n;
        return notMatchedByTarget(tokens, i)
                ? "INSERT (" + column + ") VALUES (NULL)"
                : "UPDATE SET " + column + " = NULL";
    }

    /** Whether the WHEN clause whose THEN is {@code tokens[i - 1]} is {@code WHEN NOT MATCHED [BY TARGET]}. */
    private static boolean notMatchedByTarget(List<Token> tokens, int i) {
        for (int k = i - 2; k >= 0; k--) {
            if (tokens.get(k).isWord("WHEN") && k + 1 < tokens.size()) {
                if (tokens.get(k + 1).isWord("MATCHED")) {
                    return false;
                }
                if (k + 2 < tokens.size()
                        && tokens.get(k + 1).isWord("NOT")
                        && tokens.get(k + 2).isWord("MATCHED")) {
                    return !(k + 4 < tokens.size()
                            && tokens.get(k + 3).isWord("BY")
                            && tokens.get(k + 4).isWord("SOURCE"));
                }
            }
        }
        return false;
    }

    /** A {@code THEN DO NOTHING} placeholder (either kind). */
    static boolean isDoNothing(MergeOperation op) {
        return placeholderColumn(op, NOTHING);
    }

    /** A {@code THEN INSERT DEFAULT VALUES} placeholder (either kind). */
    static boolean isDefaultValues(MergeOperation op) {
        return placeholderColumn(op, DEFAULTS);
    }

    private static boolean placeholderColumn(MergeOperation op, String prefix) {
        if (op instanceof MergeInsert insert) {
            var columns = insert.getColumns();
            var values = insert.getValues();
            return columns != null
                    && columns.size() == 1
                    && startsWith(columns.get(0), prefix)
                    && values != null
                    && values.size() == 1
                    && values.get(0) instanceof NullValue;
        }
        if (op instanceof MergeUpdate update) {
            var sets = update.getUpdateSets();
            return sets != null
                    && sets.size() == 1
                    && sets.get(0).getColumns().size() == 1
                    && startsWith(sets.get(0).getColumns().get(0), prefix);
        }
        return false;
    }

    private static boolean startsWith(Expression column, String prefix) {
        return column instanceof Column c
                && c.getTable() == null
                && c.getColumnName().startsWith(prefix);
    }

    /**
     * Text the parser view adds before a token, by the token's index: for each {@code MERGE INTO ... USING} whose
     * source is a join, {@code (} before the source's first token and {@code ) fenced_merge_join_<n>} before the
     * MERGE's own ON. Empty when there is none.
     */
    static Map<Integer, String> joinSources(List<Token> tokens) {
        Map<Integer, String> around = Map.of();
        int n = 0;
        for (int i = 0; i + 1 < tokens.size(); i++) {
            if (!tokens.get(i).isWord("MERGE") || !tokens.get(i + 1).isWord("INTO")) {
                continue;
            }
            // MERGE INTO [ONLY] [schema.]table [*] [[AS] alias] USING: within ten tokens, none a bracket
            for (int k = i + 2; k < Math.min(tokens.size() - 1, i + 10); k++) {
                Token t = tokens.get(k);
                if (t.isSymbol("(") || t.isSymbol(")") || t.isSymbol(";")) {
                    break;
                }
                if (t.isWord("USING")) {
                    int on = joinEnd(tokens, k + 1);
                    if (on > 0) {
                        around = around.isEmpty() ? new HashMap<>() : around;
                        around.put(k + 1, "(");
                        around.put(on, ") " + JOIN + n++ + " ");
                    }
                    break;
                }
            }
        }
        return around;
    }

    /**
     * The index of the MERGE's own ON when the source starting at {@code from} is a join, else -1. Every JOIN at
     * the source's top level but CROSS and NATURAL ones owes an ON (or USING) of its own; the first ON no JOIN is
     * owed is the MERGE's. A WHEN, {@code ;} or unbalanced bracket before it: not read (-1), and JSqlParser's
     * refusal stands.
     */
    private static int joinEnd(List<Token> tokens, int from) {
        int depth = 0;
        int owed = 0;
        boolean join = false;
        for (int k = from; k < tokens.size(); k++) {
            Token t = tokens.get(k);
            if (t.isSymbol("(") || t.isSymbol("[")) {
                depth++;
            } else if (t.isSymbol(")") || t.isSymbol("]")) {
                if (--depth < 0) {
                    return -1;
                }
            } else if (depth == 0) {
                if (t.isSymbol(";") || t.isWord("WHEN")) {
                    return -1;
                }
                if (t.isWord("JOIN")) {
                    join = true;
                    owed += takesNoCondition(tokens, k) ? 0 : 1;
                } else if (t.isWord("ON")) {
                    if (owed == 0) {
                        return join ? k : -1;
                    }
                    owed--;
                } else if (t.isWord("USING") && owed > 0) {
                    owed--;
                }
            }
        }
        return -1;
    }

    /** CROSS JOIN and NATURAL [INNER | LEFT | RIGHT | FULL] [OUTER] JOIN have no ON or USING. */
    private static boolean takesNoCondition(List<Token> tokens, int join) {
        for (int k = join - 1; k >= Math.max(0, join - 3); k--) {
            Token t = tokens.get(k);
            if (t.isWord("CROSS") || t.isWord("NATURAL")) {
                return true;
            }
            if (!(t.isWord("INNER")
                    || t.isWord("LEFT")
                    || t.isWord("RIGHT")
                    || t.isWord("FULL")
                    || t.isWord("OUTER"))) {
                return false;
            }
        }
        return false;
    }

    /** {@code printed} with each placeholder left in it given back as the user wrote it. */
    static String restore(String printed, String table) throws Refusal {
        if (!printed.contains(PREFIX)) {
            return printed;
        }
        List<Token> tokens = SqlLexer.tokenize(printed);
        StringBuilder out = new StringBuilder(printed.length());
        int copied = 0;
        for (int k = 0; k < tokens.size(); k++) {
            Token t = tokens.get(k);
            if (t.kind() != Token.Kind.WORD || !t.text().startsWith(PREFIX)) {
                continue;
            }
            if (t.text().startsWith(JOIN)) {
                // (<source>) fenced_merge_join_<n>: the source as written
                int close = tokens.get(k - 1).isWord("AS") ? k - 2 : k - 1;
                int open = opening(tokens, close);
                if (open < 0) {
                    throw new Refusal(table, "a MERGE's USING join was lost in printing");
                }
                out.append(printed, copied, tokens.get(open).start())
                        .append(
                                printed,
                                tokens.get(open).end(),
                                tokens.get(close).start());
                copied = t.end();
                continue;
            }
            int to;
            if (spells(tokens, k - 2, "UPDATE", "SET", null, "=", "NULL")) {
                to = k + 2;
            } else if (spells(tokens, k - 2, "INSERT", "(", null, ")", "VALUES", "(", "NULL", ")")) {
                to = k + 5;
            } else {
                throw new Refusal(table, "a MERGE action (DO NOTHING or DEFAULT VALUES) was lost in printing");
            }
            String words = t.text().startsWith(NOTHING) ? "DO NOTHING" : "INSERT DEFAULT VALUES";
            out.append(printed, copied, tokens.get(k - 2).start()).append(words);
            copied = tokens.get(to).end();
        }
        return out.append(printed, copied, printed.length()).toString();
    }

    /** The index of the {@code (} that the {@code )} at {@code close} closes, or -1. */
    private static int opening(List<Token> tokens, int close) {
        if (close < 0 || !tokens.get(close).isSymbol(")")) {
            return -1;
        }
        int depth = 0;
        for (int k = close; k >= 0; k--) {
            if (tokens.get(k).isSymbol(")")) {
                depth++;
            } else if (tokens.get(k).isSymbol("(") && --depth == 0) {
                return k;
            }
        }
        return -1;
    }

    /** True when {@code tokens} from {@code at} read {@code texts} (case-insensitively; null: any token). */
    private static boolean spells(List<Token> tokens, int at, @Nullable String... texts) {
        if (at < 0 || at + texts.length > tokens.size()) {
            return false;
        }
        for (int k = 0; k < texts.length; k++) {
            String text = texts[k];
            if (text != null && !tokens.get(at + k).text().equalsIgnoreCase(text)) {
                return false;
            }
        }
        return true;
    }
}
