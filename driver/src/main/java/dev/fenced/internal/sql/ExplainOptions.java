package dev.fenced.internal.sql;

import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * Whether an EXPLAIN runs the statement it explains, read as PostgreSQL's grammar ({@code gram.y}'s
 * {@code ExplainStmt}) reads it: {@code EXPLAIN ANALYZE|ANALYSE [VERBOSE] stmt} (the keyword, unquoted), or
 * {@code EXPLAIN (option [value], ...) stmt} where an option's name is any identifier, quoted ({@code "analyze"})
 * and {@code U&"..."} included, and its value any form {@code defGetBoolean} takes ({@code true}, {@code 'on'},
 * {@code 1}, none at all). Only an explicit false ({@code false}, {@code off}, {@code 0}, as a word, a quoted
 * name or a string) turns ANALYZE off; anything this reader cannot be sure of counts as executing, since the
 * cost of a wrong "executes" is a refusal and of a wrong "does not" an unfenced write.
 */
final class ExplainOptions {

    private ExplainOptions() {}

    /** {@code tokens}: one statement, starting with the word EXPLAIN. */
    static boolean executes(List<Token> tokens) {
        if (tokens.size() < 2) {
            return false;
        }
        Token second = tokens.get(1);
        if (second.isWord("ANALYZE") || second.isWord("ANALYSE")) {
            return true;
        }
        if (!second.isSymbol("(")) {
            return false; // EXPLAIN [VERBOSE] stmt plans only
        }
        boolean analyze = false;
        int i = 2;
        while (true) {
            if (i >= tokens.size()) {
                return true; // no closing parenthesis: not something this reader can vouch for
            }
            int end = optionEnd(tokens, i);
            if (end < 0) {
                return true;
            }
            if (mayBeAnalyze(tokens.get(i))) {
                // PostgreSQL lets a later ANALYZE option override an earlier one; any one that may be on decides
                analyze |= !isExplicitFalse(tokens.subList(i + 1, end));
            }
            if (tokens.get(end).isSymbol(")")) {
                return analyze;
            }
            i = end + 1;
        }
    }

    /** The index of the {@code ,} or {@code )} closing the option starting at {@code start}, or -1. */
    private static int optionEnd(List<Token> tokens, int start) {
        int depth = 0;
        for (int i = start; i < tokens.size(); i++) {
            Token t = tokens.get(i);
            if (t.isSymbol("(")) {
                depth++;
            } else if (t.isSymbol(")")) {
                if (depth == 0) {
                    return i;
                }
                depth--;
            } else if (t.isSymbol(",") && depth == 0) {
                return i;
            }
        }
        return -1;
    }

    /**
     * An option name that is, or may be, {@code analyze}: the keyword, the quoted name (whose case PostgreSQL keeps,
     * so {@code "ANALYZE"} is an unknown option there; counted anyway), and every {@code U&"..."} name, whose
     * escapes can spell it without containing it.
     */
    private static boolean mayBeAnalyze(Token name) {
        if (name.kind() == Token.Kind.WORD) {
            return name.isWord("ANALYZE") || name.isWord("ANALYSE");
        }
        if (name.kind() != Token.Kind.QUOTED_IDENTIFIER) {
            return true; // not a name at all: unreadable, counted as executing
        }
        if (name.isUnicodeEscapedName()) {
            return true;
        }
        String plain = unquote(name.text()).toLowerCase(Locale.ROOT);
        return plain.equals("analyze") || plain.equals("analyse");
    }

    /** {@code defGetBoolean}'s false: FALSE, OFF (any case, as a word, quoted name or plain string), or integer 0. */
    private static boolean isExplicitFalse(List<Token> value) {
        if (value.size() == 2 && (value.get(0).isSymbol("-") || value.get(0).isSymbol("+"))) {
            return isZero(value.get(1));
        }
        if (value.size() != 1) {
            return false; // no value means true; several tokens are nothing this reader vouches for
        }
        Token v = value.get(0);
        String text = switch (v.kind()) {
            case WORD -> v.text();
            case QUOTED_IDENTIFIER -> v.isUnicodeEscapedName() ? null : unquote(v.text());
            case STRING -> plainString(v.text());
            case NUMBER -> isZero(v) ? "off" : null;
            default -> null;
        };
        return text != null && (text.equalsIgnoreCase("false") || text.equalsIgnoreCase("off"));
    }

    private static boolean isZero(Token t) {
        return t.kind() == Token.Kind.NUMBER && t.text().replace("_", "").matches("0+");
    }

    private static String unquote(String quoted) {
        return quoted.substring(1, quoted.length() - 1).replace("\"\"", "\"");
    }

    /** The value of a plain {@code '...'} string with no backslash (read the same whatever the settings), or null. */
    private static @Nullable String plainString(String text) {
        if (text.length() < 2 || !text.startsWith("'") || !text.endsWith("'") || text.contains("\\")) {
            return null;
        }
        String body = text.substring(1, text.length() - 1);
        return body.contains("'") ? null : body;
    }
}
