package dev.fenced.sql;

import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Guards against JSqlParser printing something that means other than what it read. Known cases on
 * PostgreSQL's own DML: INSERT column lists lose subscripts and field qualifiers ({@code (f3.if1)}
 * becomes {@code (if1)}), {@code !~~} and {@code U&'...'} are misread. Re-parsing cannot see these
 * (it is idempotent on the wrong text), so the printed statement's tokens are compared with the
 * original's, as multisets, ignoring only what printing legitimately changes: parentheses, {@code AS},
 * the statement separator and keyword case. Any other difference refuses the statement.
 */
final class FidelityCheck {

    private FidelityCheck() {
    }

    /** Null when the two token streams agree; otherwise a description of the first difference. */
    static String difference(List<Token> original, List<Token> printed) {
        Map<String, Integer> counts = new HashMap<>();
        int param = 0;
        for (Token t : original) {
            String key = t.kind() == Token.Kind.PARAMETER ? "?" + (++param) : normalise(t);
            if (key != null) {
                counts.merge(key, 1, Integer::sum);
            }
        }
        for (Token t : printed) {
            String key = normalise(t);
            if (key != null) {
                counts.merge(key, -1, Integer::sum);
            }
        }
        Map<String, Integer> diff = new TreeMap<>();
        counts.forEach((k, v) -> {
            if (v != 0) {
                diff.put(k, v);
            }
        });
        if (diff.isEmpty()) {
            return null;
        }
        StringBuilder b = new StringBuilder("the SQL parser would change the statement (");
        boolean first = true;
        for (Map.Entry<String, Integer> e : diff.entrySet()) {
            if (!first) {
                b.append(", ");
            }
            first = false;
            b.append(e.getValue() > 0 ? "drops " : "adds ").append('`').append(e.getKey()).append('`');
        }
        return b.append(")").toString();
    }

    private static String normalise(Token t) {
        if (t.isSymbol("(") || t.isSymbol(")") || t.isSymbol(";") || t.isWord("AS")) {
            return null;
        }
        return t.kind() == Token.Kind.WORD ? t.text().toUpperCase(Locale.ROOT) : t.text();
    }
}
