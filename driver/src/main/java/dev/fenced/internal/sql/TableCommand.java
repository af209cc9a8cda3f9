package dev.fenced.internal.sql;

import java.util.List;

/**
 * PostgreSQL's {@code TABLE name} query, which its grammar reads as exactly {@code SELECT * FROM name}
 * ({@code simple_select: TABLE relation_expr}), spelled out so that JSqlParser, which cannot read the short form, can
 * read {@code INSERT INTO t (a, b) TABLE src} or {@code ... UNION TABLE other}. Only inside a data-modifying
 * statement (one starting with INSERT, UPDATE, DELETE, MERGE or WITH), where the reserved word {@code TABLE} can mean
 * nothing else, except as a column label after {@code .} or {@code AS}; a DDL statement ({@code LOCK TABLE},
 * {@code REINDEX (VERBOSE) TABLE}, ...) is never touched.
 */
final class TableCommand {

    private static final String SPELLED_OUT = "SELECT * FROM";

    private TableCommand() {}

    /** {@code sql} with every {@code TABLE name} query spelled out, or {@code sql} itself when it has none. */
    static String expanded(String sql, List<Token> tokens) {
        StringBuilder out = null;
        int copied = 0;
        boolean dml = false;
        boolean pieceStart = true;
        for (int i = 0; i < tokens.size(); i++) {
            Token t = tokens.get(i);
            if (t.isSymbol(";")) {
                pieceStart = true;
                continue;
            }
            if (pieceStart) {
                pieceStart = false;
                dml = t.isWord("INSERT")
                        || t.isWord("UPDATE")
                        || t.isWord("DELETE")
                        || t.isWord("MERGE")
                        || t.isWord("WITH");
                continue;
            }
            if (dml && startsAt(tokens, i)) {
                if (out == null) {
                    out = new StringBuilder(sql.length() + 16);
                }
                out.append(sql, copied, t.start()).append(SPELLED_OUT);
                copied = t.end();
            }
        }
        return out == null ? sql : out.append(sql, copied, sql.length()).toString();
    }

    /** The word TABLE at {@code i} begins a query: not a label ({@code x.table}, {@code AS table}), a name next. */
    private static boolean startsAt(List<Token> tokens, int i) {
        if (!tokens.get(i).isWord("TABLE") || i + 1 >= tokens.size()) {
            return false;
        }
        return TokenRuns.isKeyword(tokens, i) && TokenRuns.isName(tokens.get(i + 1));
    }
}
