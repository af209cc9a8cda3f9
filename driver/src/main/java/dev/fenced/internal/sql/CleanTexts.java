package dev.fenced.internal.sql;

/**
 * Remembers texts a pure lexical check found nothing in, so a statement a connection sends again and again pays
 * for the check once (the same idea as {@link RewriteCache}'s pass-through memory). Only "nothing found" is kept,
 * and only for checks whose answer depends on the text alone: a hit can never change a verdict. A fixed number of
 * slots, indexed by hash; a collision only means the check runs again. Races are benign: a slot holds a complete
 * String or an older one.
 */
final class CleanTexts {

    private static final int SLOTS = 512;

    private final String[] clean = new String[SLOTS];

    boolean contains(String sql) {
        String seen = clean[sql.hashCode() & (SLOTS - 1)];
        return seen == sql || (seen != null && seen.equals(sql));
    }

    void add(String sql) {
        clean[sql.hashCode() & (SLOTS - 1)] = sql;
    }
}
