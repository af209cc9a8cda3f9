package dev.fenced.it.diff;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * A seeded grammar of the DML fenced rewrites, written the way an attacker or an odd ORM would: random case and
 * quoting of names, a comment or odd whitespace in every gap (nested block comments, line comments holding quotes
 * and comment starts), every string form PostgreSQL has (doubled quotes, E'' escapes, tagged and untagged dollar
 * quotes, continuation across a newline, U&''), literal contents that look like SQL ({@code WHERE id = 1 --},
 * {@code $a$}, {@code ?}, {@code * /}), deep parentheses, unary minus runs, and JDBC parameters.
 * One statement is a {@link Case}: its text and the values its {@code ?}s take.
 */
final class DmlGenerator {

    /** Rows the harness loads: ids 1..ROWS. */
    static final int ROWS = 8;

    record Case(String sql, List<Object> parameters, boolean prepared) {}

    private static final String[] GAPS = {
        " ",
        " ",
        " ",
        "  ",
        "\n",
        "\t",
        " /* c */ ",
        " /* a /* nested */ b */ ",
        " -- line ' $a$ /*\n",
        " /* ' -- $$ */ ",
        " /**/ ",
        " /* *-/ /* ** */ */ ",
        "\n--\n",
        " /*/ */ ",
    };

    private static final String[] TEXTS = {
        "one", "it''s", "x--y", "a/*b", "WHERE id = 1 --", "$a$", "?", "*/", "q$q", "", " ", "UPDATE dh SET a = 0",
    };

    private final Random random;
    private final StringBuilder sql = new StringBuilder();
    private final List<Object> parameters = new ArrayList<>();
    private boolean prepared;
    private String qualifier;
    private int nextId = 100;

    DmlGenerator(long seed) {
        this.random = new Random(seed);
    }

    Case next() {
        sql.setLength(0);
        parameters.clear();
        prepared = random.nextBoolean();
        switch (random.nextInt(3)) {
            case 0 -> update();
            case 1 -> delete();
            default -> insert();
        }
        if (random.nextInt(8) == 0) {
            word(";");
        }
        return new Case(sql.toString(), List.copyOf(parameters), prepared);
    }

    // ----------------------------------------------------------------------------------------- statements

    private void update() {
        word(pick("UPDATE", "update", "Update"));
        target();
        word(pick("SET", "set"));
        if (random.nextInt(8) == 0) {
            smuggled();
            return;
        }
        column("a");
        word("=");
        intExpr(3, true);
        if (random.nextBoolean()) {
            word(",");
            column("b");
            word("=");
            textExpr(2, true);
        }
        if (random.nextInt(5) > 0) {
            word(pick("WHERE", "where"));
            condition(3);
        }
        returning();
    }

    /**
     * The attack family, varied: text a lexer that is not PostgreSQL's reads as a whole statement, with
     * a WHERE or parentheses PostgreSQL reads as part of a string or a comment.
     */
    private void smuggled() {
        int id = 1 + random.nextInt(ROWS);
        String tag = pick("$a$", "$q1$", "$_$", "$$");
        String ident = pick("x", "y", "id", "b");
        switch (random.nextInt(3)) {
            case 0 -> {
                // PostgreSQL: b = one dollar-quoted string, no WHERE; a lexer reading identifiers sees a WHERE
                column("b");
                word("=");
                word((tag.equals("$$") ? "$a$" : tag) + ident + " WHERE " + ident + (tag.equals("$$") ? "$a$" : tag));
            }
            case 1 -> {
                // PostgreSQL: E'\' || ' is one string, the rest of the line a comment, then WHERE id = <id>
                column("b");
                word("=");
                word("E'\\' || '--' WHERE b = '\nWHERE id = " + id + " --'");
            }
            default -> {
                // PostgreSQL: 100 - 10 - 1 (nested comments); a lexer that closes at the first */ sees parentheses
                column("a");
                word("=");
                word("100 - /* /* */ ( --*/\n10 - 1 /* /* */ ) --*/\nWHERE id = " + id);
            }
        }
    }

    private void delete() {
        word(pick("DELETE", "delete"));
        word(pick("FROM", "from"));
        target();
        if (random.nextInt(6) > 0) {
            word(pick("WHERE", "where"));
            condition(3);
        }
        returning();
    }

    private void insert() {
        qualifier = null;
        word(pick("INSERT", "insert"));
        word(pick("INTO", "into"));
        word(table());
        boolean aliased = random.nextInt(3) == 0;
        if (aliased) {
            word("AS");
            word("x");
        }
        word("(");
        word(pick("id", "ID", "\"id\""));
        word(",");
        word(pick("a", "A", "\"a\""));
        word(",");
        word(pick("b", "\"b\""));
        word(")");
        word(pick("VALUES", "values"));
        int rows = 1 + random.nextInt(2);
        boolean conflict = random.nextBoolean();
        for (int r = 0; r < rows; r++) {
            if (r > 0) {
                word(",");
            }
            word("(");
            int id = conflict && random.nextBoolean() ? 1 + random.nextInt(DmlGenerator.ROWS) : nextId++;
            word(Integer.toString(id));
            word(",");
            intExpr(2, false);
            word(",");
            textExpr(2, false);
            word(")");
        }
        if (conflict) {
            word("ON");
            word("CONFLICT");
            word("(");
            word("id");
            word(")");
            if (random.nextInt(3) == 0) {
                word("DO");
                word("NOTHING");
            } else {
                word("DO");
                word("UPDATE");
                word("SET");
                word("a");
                word("=");
                word(pick("EXCLUDED", "excluded"));
                word(".");
                word("a");
                word("+");
                qualifier = aliased ? "x" : null;
                intExpr(2, true);
                if (random.nextBoolean()) {
                    word(",");
                    word("b");
                    word("=");
                    textExpr(2, true);
                }
            }
        }
        returning();
    }

    private void target() {
        word(table());
        qualifier = null;
        if (random.nextInt(3) == 0) {
            qualifier = pick("x", "X", "\"x\"");
            if (random.nextBoolean()) {
                word("AS");
            }
            word(qualifier);
        }
    }

    private String table() {
        return pick("dh", "DH", "\"dh\"", "public.dh", "public.\"dh\"", "PUBLIC.Dh");
    }

    private void returning() {
        if (random.nextInt(3) == 0) {
            word(pick("RETURNING", "returning"));
            word("id");
            word(",");
            word("a");
            if (random.nextBoolean()) {
                word(",");
                word("b");
            }
        }
    }

    // ---------------------------------------------------------------------------------------- expressions

    private void column(String name) {
        word(random.nextInt(4) == 0 ? "\"" + name + "\"" : random.nextBoolean() ? name.toUpperCase() : name);
    }

    private void ref(String name) {
        if (qualifier != null && random.nextBoolean()) {
            word(qualifier);
            word(".");
        }
        column(name);
    }

    private void intExpr(int depth, boolean columns) {
        int choice = random.nextInt(depth <= 0 ? 3 : 9);
        switch (choice) {
            case 0 -> word(Integer.toString(random.nextInt(20)));
            case 1 -> {
                if (prepared) {
                    word("?");
                    parameters.add(random.nextInt(20));
                } else {
                    word(Integer.toString(random.nextInt(5)));
                }
            }
            case 2 -> {
                if (columns) {
                    ref("a");
                } else {
                    word("7");
                }
            }
            case 3, 4 -> {
                word("(");
                intExpr(depth - 1, columns);
                word(pick("+", "-", "*"));
                intExpr(depth - 1, columns);
                word(")");
            }
            case 5 -> {
                word("-");
                intExpr(depth - 1, columns);
            }
            case 6 -> {
                word("CASE");
                word("WHEN");
                if (columns) {
                    condition(depth - 1);
                } else {
                    word("true");
                }
                word("THEN");
                intExpr(depth - 1, columns);
                word("ELSE");
                intExpr(depth - 1, columns);
                word("END");
            }
            case 7 -> {
                word("length");
                word("(");
                textExpr(depth - 1, columns);
                word(")");
            }
            default -> {
                word("(");
                word("(");
                intExpr(depth - 1, columns);
                word(")");
                word(")");
            }
        }
    }

    private void textExpr(int depth, boolean columns) {
        int choice = random.nextInt(depth <= 0 ? 2 : 5);
        switch (choice) {
            case 0 -> word(literal());
            case 1 -> {
                if (prepared && random.nextBoolean()) {
                    word("?");
                    parameters.add(pick(TEXTS).replace("''", "'"));
                } else if (columns) {
                    ref("b");
                } else {
                    word(literal());
                }
            }
            case 2 -> {
                textExpr(depth - 1, columns);
                word("||");
                textExpr(depth - 1, columns);
            }
            case 3 -> {
                word(pick("upper", "lower", "btrim"));
                word("(");
                textExpr(depth - 1, columns);
                word(")");
            }
            default -> {
                word("COALESCE");
                word("(");
                textExpr(depth - 1, columns);
                word(",");
                word(literal());
                word(")");
            }
        }
    }

    /** A string literal in one of PostgreSQL's forms; every form means one of {@link #TEXTS}. */
    private String literal() {
        String text = pick(TEXTS);
        String raw = text.replace("''", "'");
        return switch (random.nextInt(9)) {
            case 0, 1 -> "'" + text + "'";
            case 2 -> "E'" + raw.replace("\\", "\\\\").replace("'", "\\'") + "'";
            case 3 -> "e'" + raw.replace("'", "''") + "'";
            case 4 -> raw.contains("$$") ? "'" + text + "'" : "$$" + raw + "$$";
            case 5 -> raw.contains("$t$") ? "'" + text + "'" : "$t$" + raw + "$t$";
            case 6 -> raw.contains("$a$") ? "'" + text + "'" : "$a$" + raw + "$a$";
            case 7 ->
                raw.isEmpty()
                        ? "''"
                        : "'" + raw.substring(0, 1).replace("'", "''") + "'\n'"
                                + raw.substring(1).replace("'", "''") + "'";
            default -> "U&'" + raw.replace("'", "''").replace("\\", "\\\\") + "'";
        };
    }

    private void condition(int depth) {
        int choice = random.nextInt(depth <= 0 ? 4 : 9);
        switch (choice) {
            case 0 -> {
                ref("id");
                word("=");
                word(Integer.toString(1 + random.nextInt(ROWS + 1)));
            }
            case 1 -> {
                ref("id");
                word("IN");
                word("(");
                word(Integer.toString(1 + random.nextInt(ROWS)));
                word(",");
                intExpr(1, false);
                word(")");
            }
            case 2 -> {
                ref("a");
                word(pick(">", "<=", "<>", "!=", "="));
                intExpr(depth - 1, true);
            }
            case 3 -> {
                ref("b");
                word(pick("=", "LIKE", "IS NOT DISTINCT FROM", ">"));
                textExpr(depth - 1, true);
            }
            case 4 -> {
                word("(");
                condition(depth - 1);
                word(")");
                word(pick("AND", "OR", "and", "or"));
                word("(");
                condition(depth - 1);
                word(")");
            }
            case 5 -> {
                word("NOT");
                word("(");
                condition(depth - 1);
                word(")");
            }
            case 6 -> {
                ref("b");
                word(pick("IS NULL", "IS NOT NULL"));
            }
            case 7 -> {
                ref("a");
                word("BETWEEN");
                intExpr(depth - 1, true);
                word("AND");
                intExpr(depth - 1, true);
            }
            default -> {
                word("(");
                word("(");
                condition(depth - 1);
                word(")");
                word(")");
            }
        }
    }

    // ------------------------------------------------------------------------------------------ plumbing

    /** Appends {@code w} after a random gap (the first token of a statement gets none). */
    private void word(String w) {
        if (sql.length() > 0) {
            sql.append(random.nextInt(3) == 0 ? pick(GAPS) : " ");
        }
        sql.append(w);
    }

    @SafeVarargs
    private <T> T pick(T... options) {
        return options[random.nextInt(options.length)];
    }
}
