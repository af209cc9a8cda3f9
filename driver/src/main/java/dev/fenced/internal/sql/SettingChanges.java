package dev.fenced.internal.sql;

import dev.fenced.internal.config.TableName;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Finds, lexically, a statement that could turn a boolean setting off ({@code standard_conforming_strings}),
 * failing closed where the name could be hidden. Allowed: {@code SHOW name}, {@code RESET name} (back to the
 * session's start value, which was checked at connect), {@code SET [SESSION|LOCAL] name TO|= on} (also in
 * {@code ALTER ... SET}), and {@code current_setting('name')}. Refused: any other mention (a
 * {@code SET ... off}, the name in a string such as a function or DO body), {@code set_config} whose name is not
 * a plain literal (an {@code E''} or {@code U&''} escape could spell the name), or {@code set_config} in a body.
 */
public final class SettingChanges {

    private static final Set<String> ON = Set.of("on", "true", "yes", "1", "'on'", "'true'", "'yes'", "'1'");

    /** Texts that name none of the words a change could hide behind (the answer depends on the text alone). */
    private static final CleanTexts CLEAN = new CleanTexts();

    private SettingChanges() {}

    /** A description of what in {@code sql} could turn {@code setting} off, or null. */
    public static @Nullable String turnsOff(String sql, String setting) {
        if (CLEAN.contains(sql)) {
            return null;
        }
        if (!FencingTargets.containsIgnoreCase(sql, "conforming")
                && !FencingTargets.containsIgnoreCase(sql, "set_config")
                && !FencingTargets.containsIgnoreCase(sql, "u&")) {
            CLEAN.add(sql); // the common case, on every statement a connection plans
            return null;
        }
        String lower = sql.toLowerCase(Locale.ROOT);
        List<Token> tokens = SqlLexer.tokenize(sql);
        for (int i = 0; i < tokens.size(); i++) {
            Token t = tokens.get(i);
            String text = t.text().toLowerCase(Locale.ROOT);
            if (t.kind() == Token.Kind.WORD && text.equals("set_config")) {
                Token name = i + 2 < tokens.size() && tokens.get(i + 1).isSymbol("(") ? tokens.get(i + 2) : null;
                if (name == null
                        || name.kind() != Token.Kind.STRING
                        || !name.text().startsWith("'")
                        || name.text().toLowerCase(Locale.ROOT).contains(setting)) {
                    return "set_config with a setting name that is " + setting + " or not a plain literal";
                }
            } else if ((t.kind() == Token.Kind.STRING || t.kind() == Token.Kind.QUOTED_IDENTIFIER)
                    && text.startsWith("u&")
                    && (lower.contains("set_config") || lower.contains("conforming") || startsWithSetting(tokens))) {
                return "Unicode-escaped text beside a setting change";
            } else if (t.kind() == Token.Kind.STRING && (text.contains(setting) || text.contains("set_config"))) {
                if (!(text.equals("'" + setting + "'")
                        && i >= 2
                        && tokens.get(i - 1).isSymbol("(")
                        && tokens.get(i - 2).isWord("current_setting"))) {
                    return "text naming " + (text.contains(setting) ? setting : "set_config")
                            + " in a string (a function or DO body, a set_config)";
                }
            } else if ((t.kind() == Token.Kind.WORD || t.kind() == Token.Kind.QUOTED_IDENTIFIER)
                    && TableName.fold(t.text()).toLowerCase(Locale.ROOT).equals(setting)) {
                String verdict = mention(tokens, i);
                if (verdict != null) {
                    return verdict;
                }
            }
        }
        return null;
    }

    /** Whether any statement of the text (not only the first: {@code SELECT 1; SET U&"..." TO off}) could set one. */
    private static boolean startsWithSetting(List<Token> tokens) {
        for (int i = 0; i < tokens.size(); i++) {
            if (i == 0 || tokens.get(i - 1).isSymbol(";")) {
                Token first = tokens.get(i);
                if (first.isWord("SET") || first.isWord("ALTER") || first.isWord("DO") || first.isWord("CREATE")) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Null for an allowed mention of the setting's name at {@code i}. */
    private static @Nullable String mention(List<Token> tokens, int i) {
        Token prev = i > 0 ? tokens.get(i - 1) : null;
        if (prev != null && (prev.isWord("SHOW") || prev.isWord("RESET"))) {
            return null;
        }
        boolean set = prev != null
                && (prev.isWord("SET")
                        || ((prev.isWord("SESSION") || prev.isWord("LOCAL"))
                                && i > 1
                                && tokens.get(i - 2).isWord("SET")));
        if (set
                && i + 2 < tokens.size()
                && (tokens.get(i + 1).isSymbol("=") || tokens.get(i + 1).isWord("TO"))
                && ON.contains(tokens.get(i + 2).text().toLowerCase(Locale.ROOT))
                && (i + 3 == tokens.size() || tokens.get(i + 3).isSymbol(";"))) {
            return null;
        }
        return "a statement setting " + tokens.get(i).text() + " to something other than on";
    }
}
