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
 * Issue 26 widened it to the ordinary PostgreSQL forms a skeleton reader has to place fragments around: row
 * constructors in SET ({@code (a, b) = ROW(...)}, {@code (a, b) = (SELECT ...)}), unary chains ({@code - - a},
 * {@code @ -a}), IS chains ({@code b IS NOT NULL IS TRUE}), jsonb and text operators ({@code @?}, {@code @@},
 * {@code ->>}, {@code @>}, {@code ?|}, {@code ~}, {@code ^@}; written {@code @??} in a prepared statement, as pgjdbc
 * wants), {@code INSERT ... TABLE src}, OFFSET / LIMIT / FETCH in every order inside subqueries, JDBC escapes
 * ({@code {fn abs(-3)}}, {@code {d '2020-01-01'}}), DELETE ... USING, and MERGE with every action (UPDATE, DELETE,
 * INSERT with and without a column list, DEFAULT VALUES, DO NOTHING; ONLY; a join as the source; conditions; NOT
 * MATCHED BY SOURCE and RETURNING, which a server before 17 rejects raw and fenced alike), and a WITH of read-only
 * queries before any of them (named as the tables they read or write, too).
 * One statement is a {@link Case}: its text and the values its {@code ?}s take.
 */
final class DmlGenerator {

    /** Rows the harness loads: ids 1..ROWS. */
    static final int ROWS = 8;

    /**
     * The unprotected tables the statements read, created and loaded by the harness: {@code src} shares keys 3 with
     * the protected table ({@code 9, 10} are new), {@code src2}'s keys are all new.
     */
    static final String[] SOURCES = {
        "CREATE TABLE src (id int, a int, b text)",
        "INSERT INTO src VALUES (3, 30, 's3'), (9, 90, 's9'), (10, 1, NULL)",
        "CREATE TABLE src2 (id int, a int, b text)",
        "INSERT INTO src2 VALUES (20, 2, 'n20'), (21, 5, 'n21')",
    };

    private static final String[] JSONS = {
        "'{\"a\": 1}'", "'{\"a\": 2, \"b\": [1, 2]}'", "'{}'", "'[1, 2]'", "'{\"c\": \"x\"}'",
    };

    private static final String[] PATHS = {"'$.a'", "'$.b[*]'", "'$.c'", "'$.a ? (@ > 1)'", "'$'"};

    private static final String[] PREDICATES = {"'$.a == 1'", "'$.b[0] == 1'", "'exists($.c)'", "'$.a > 1'"};

    private static final String[] DATES = {"2020-01-01", "2021-02-28", "1999-12-31"};

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
    /** Inside MERGE: every column reference names its table (the source has columns of the same names). */
    private boolean qualifyAll;
    /** Inside a JDBC escape: plain spaces only, as pgjdbc's escape reader expects. */
    private boolean plainGaps;

    private int nextId = 100;
    /** The {@code (...) = (SELECT ...)} items of the MERGE being written (see rowSet); elsewhere not counted. */
    private int mergeSubselects;

    DmlGenerator(long seed) {
        this.random = new Random(seed);
    }

    Case next() {
        sql.setLength(0);
        parameters.clear();
        prepared = random.nextBoolean();
        qualifier = null;
        qualifyAll = false;
        mergeSubselects = Integer.MIN_VALUE;
        if (random.nextInt(10) == 0) {
            withPrefix();
        }
        switch (random.nextInt(10)) {
            case 0, 1, 2 -> update();
            case 3, 4 -> delete();
            case 5, 6, 7 -> insert();
            default -> merge();
        }
        if (random.nextInt(8) == 0) {
            word(";");
        }
        return new Case(sql.toString(), List.copyOf(parameters), prepared);
    }

    // ----------------------------------------------------------------------------------------- statements

    /**
     * {@code WITH [RECURSIVE] name [(columns)] AS [[NOT] MATERIALIZED] (query), ...} before the write: read-only
     * queries, some named as the tables the statement reads ({@code src}) or writes ({@code dh}), so that a name in
     * a subquery means the CTE, while the write's own target is always the table.
     */
    private void withPrefix() {
        word(pick("WITH", "with"));
        boolean recursive = random.nextInt(4) == 0;
        if (recursive) {
            word("RECURSIVE");
        }
        int members = 1 + random.nextInt(2);
        for (int m = 0; m < members; m++) {
            if (m > 0) {
                word(",");
            }
            if (recursive && m == 0) {
                word("r (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3)");
                continue;
            }
            String name = pick("w", "src", "dh", "\"W\"");
            word(name);
            boolean columns = random.nextBoolean();
            if (columns) {
                word("(id, a, b)");
            }
            word("AS");
            if (random.nextInt(4) == 0) {
                word(pick("MATERIALIZED", "NOT MATERIALIZED"));
            }
            word("(");
            switch (random.nextInt(5)) {
                case 0 -> word("SELECT id, a, b FROM src2");
                case 1 -> word("SELECT id, a + 1, b FROM src WHERE id > 3");
                case 2 -> word("VALUES (3, 7, 'w3'), (5, 8, 'w5')");
                case 3 -> word("SELECT id, a, b FROM dh WHERE a IS NOT NULL");
                default -> word(columns ? "TABLE src" : "SELECT id, a, b FROM src ORDER BY id LIMIT 2");
            }
            word(")");
        }
    }

    private void update() {
        word(pick("UPDATE", "update", "Update"));
        target();
        word(pick("SET", "set"));
        if (random.nextInt(8) == 0) {
            smuggled();
            return;
        }
        boolean from = random.nextInt(8) == 0;
        if (from) {
            // src has columns of the same names: every reference names its table
            qualifyAll = true;
            qualifier = qualifier == null ? "dh" : qualifier;
        }
        setList();
        if (from) {
            word("FROM");
            sourceJoin(qualifier);
        } else if (random.nextInt(5) > 0) {
            word(pick("WHERE", "where"));
            condition(3);
        }
        returning();
    }

    /** An UPDATE's (or MERGE's, ON CONFLICT's) SET list: single columns and row constructors, in any order. */
    private void setList() {
        assigned.clear();
        int items = 1 + random.nextInt(3);
        for (int i = 0; i < items; i++) {
            if (i > 0) {
                word(",");
            }
            setItem(i);
        }
    }

    /** The columns each {@link #setItem} form assigns, by its number (4 and 5: a row constructor, see rowSet). */
    private static final String[][] ITEM_COLUMNS = {{"b"}, {"b"}, {"j"}, {"d"}, {}, {}, {"a"}, {"a"}, {"a"}};

    /** The columns of the current SET list so far: a column is assigned once (mostly), as PostgreSQL requires. */
    private final java.util.Set<String> assigned = new java.util.HashSet<>();

    private void setItem(int position) {
        int form = random.nextInt(position == 0 ? 9 : 6);
        for (int tries = 0; tries < 6 && !available(form); tries++) {
            form = random.nextInt(9);
        }
        assigned.addAll(List.of(ITEM_COLUMNS[form]));
        switch (form) {
            case 0, 1 -> {
                column("b");
                word("=");
                textExpr(2, true);
            }
            case 2 -> {
                column("j");
                word("=");
                jsonExpr(true);
            }
            case 3 -> {
                column("d");
                word("=");
                dateExpr(true);
            }
            case 4, 5 -> rowSet();
            default -> {
                column("a");
                word("=");
                intExpr(3, true);
            }
        }
    }

    /** {@code (a, b) = ROW(...)}, {@code (a, b) = (...)}, {@code (b, a) = (SELECT ...)}, {@code (a) = ROW(...)}. */
    private boolean available(int form) {
        return form == 4 || form == 5
                ? !assigned.contains("a") && !assigned.contains("b")
                        || !assigned.contains("j") && !assigned.contains("d")
                : java.util.Collections.disjoint(assigned, List.of(ITEM_COLUMNS[form]));
    }

    private void rowSet() {
        int form = random.nextInt(5);
        if (form < 4 && (assigned.contains("a") || assigned.contains("b"))) {
            form = 4;
        } else if (form == 4 && (assigned.contains("j") || assigned.contains("d"))) {
            form = random.nextInt(4);
        }
        if (form == 3 && mergeSubselects++ > 0) {
            // PostgreSQL 18.1's backend crashes on some MERGEs with a (...) = (SELECT ...) in two UPDATE actions
            form = 1;
        }
        assigned.addAll(form < 4 ? List.of("a", "b") : List.of("j", "d"));
        switch (form) {
            case 0 -> {
                word("(");
                column("a");
                word(")");
                word("=");
                word(pick("ROW", "row"));
                word("(");
                intExpr(2, true);
                word(")");
            }
            case 1, 2 -> {
                word("(");
                column("a");
                word(",");
                column("b");
                word(")");
                word("=");
                if (random.nextBoolean()) {
                    word(pick("ROW", "row", "Row"));
                }
                word("(");
                intExpr(2, true);
                word(",");
                textExpr(2, true);
                word(")");
            }
            case 3 -> {
                word("(");
                column("b");
                word(",");
                column("a");
                word(")");
                word("=");
                word("(");
                word("SELECT");
                word("s.b");
                word(",");
                word("s.a");
                word("FROM");
                word("src");
                word("s");
                if (random.nextBoolean()) {
                    word("WHERE");
                    word("s.id");
                    word("=");
                    if (random.nextBoolean()) {
                        word((qualifier == null ? "dh" : qualifier) + ".id");
                    } else {
                        word(Integer.toString(pick(3, 9, 10, 4)));
                    }
                } else {
                    word("ORDER");
                    word("BY");
                    word("s.id");
                    word(pick("", "DESC", "NULLS FIRST"));
                    limitClauses(true);
                }
                word(")");
            }
            default -> {
                word("(");
                column("j");
                word(",");
                column("d");
                word(")");
                word("=");
                word("ROW");
                word("(");
                jsonExpr(true);
                word(",");
                dateExpr(true);
                word(")");
            }
        }
    }

    /**
     * The issue's attack family, varied: text a lexer that is not PostgreSQL's reads as a whole statement, with
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
        if (random.nextInt(8) == 0) {
            qualifyAll = true;
            qualifier = qualifier == null ? "dh" : qualifier;
            word("USING");
            sourceJoin(qualifier);
        } else if (random.nextInt(6) > 0) {
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
        boolean wide = random.nextInt(4) == 0;
        if (wide) {
            word(",");
            word(pick("j", "J"));
            word(",");
            word(pick("d", "\"d\""));
        }
        word(")");
        boolean conflict = random.nextBoolean();
        if (wide || random.nextInt(3) > 0) {
            word(pick("VALUES", "values"));
            int rows = 1 + random.nextInt(2);
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
                if (wide) {
                    word(",");
                    jsonExpr(false);
                    word(",");
                    dateExpr(false);
                }
                word(")");
            }
        } else {
            insertQuery(conflict);
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
                // unqualified, a column is ambiguous with EXCLUDED's (PostgreSQL rejects it): mostly qualified
                qualifier = aliased ? "x" : random.nextInt(4) > 0 ? "dh" : null;
                qualifyAll = qualifier != null && random.nextInt(4) > 0;
                intExpr(2, true);
                if (random.nextBoolean()) {
                    assigned.clear();
                    assigned.add("a");
                    word(",");
                    setItem(1);
                }
                if (random.nextInt(4) == 0) {
                    word("WHERE");
                    condition(2);
                }
            }
        }
        returning();
    }

    /**
     * An INSERT's query source for {@code (id, a, b)}: {@code TABLE src}, set operations of TABLE, a SELECT with
     * OFFSET / LIMIT / FETCH; from {@code src} (a key shared with the protected table) only when {@code conflict}.
     */
    private void insertQuery(boolean conflict) {
        String source = conflict ? "src" : "src2";
        switch (random.nextInt(5)) {
            case 0, 1 -> {
                word(pick("TABLE", "table"));
                word(pick(source, "public." + source, source.toUpperCase()));
            }
            case 2 -> {
                word("(");
                word("TABLE");
                word(source);
                word(")");
                word(pick("UNION", "UNION ALL", "EXCEPT", "INTERSECT"));
                word("TABLE");
                word("src2");
            }
            case 3 -> {
                word("SELECT");
                int offset = conflict ? 0 : nextId;
                nextId += 20;
                word("s.id");
                word("+");
                word(Integer.toString(offset));
                word(",");
                word("s.a");
                word(",");
                word("s.b");
                word("FROM");
                word("src");
                word("s");
                word("ORDER");
                word("BY");
                word("s.id");
                limitClauses(false);
            }
            default -> {
                word(pick("VALUES", "values"));
                word("(");
                word(Integer.toString(conflict ? 1 + random.nextInt(ROWS) : nextId++));
                word(",");
                intExpr(1, false);
                word(",");
                textExpr(1, false);
                word(")");
                word("UNION ALL");
                word("TABLE");
                word("src2");
            }
        }
    }

    /**
     * MERGE into the protected table from {@code src} (keys 3 shared, 9 and 10 new), a query or VALUES, with one
     * to four WHEN clauses of every kind, each maybe conditional, maybe RETURNING.
     */
    private void merge() {
        word(pick("MERGE", "merge"));
        word(pick("INTO", "into"));
        if (random.nextInt(4) == 0) {
            word(pick("ONLY", "only"));
        }
        word(table());
        qualifier = "dh";
        if (random.nextBoolean()) {
            qualifier = pick("x", "t");
            if (random.nextBoolean()) {
                word("AS");
            }
            word(qualifier);
        }
        qualifyAll = true;
        mergeSubselects = 0;
        word(pick("USING", "using"));
        int source = random.nextInt(5);
        switch (source) {
            case 0 -> word("src");
            case 3 -> mergeJoinSource();
            case 1 -> {
                word("(");
                word("SELECT");
                word("id");
                word(",");
                word("a");
                word(",");
                word("b");
                word("FROM");
                word("src");
                word("UNION ALL");
                word("SELECT");
                word("id");
                word(",");
                word("a");
                word(",");
                word("b");
                word("FROM");
                word("src2");
                if (random.nextBoolean()) {
                    word("ORDER");
                    word("BY");
                    word("1");
                    limitClauses(false);
                }
                word(")");
            }
            case 2 -> {
                word("(");
                word("VALUES");
                word("(");
                word(Integer.toString(1 + random.nextInt(ROWS)));
                word(",");
                intExpr(1, false);
                word(",");
                textExpr(1, false);
                word(")");
                word(",");
                word("(");
                word(Integer.toString(nextId++));
                word(",");
                word("4");
                word(",");
                word("'v'");
                word(")");
                word(")");
                word("AS");
                word("s");
                word("(");
                word("id");
                word(",");
                word("a");
                word(",");
                word("b");
                word(")");
            }
            default -> {
                word("(");
                word("TABLE");
                word("src");
                word(")");
            }
        }
        if (source != 2 && source != 3) {
            word(pick("AS s", "s"));
        }
        word("ON");
        word(qualifier + ".id");
        word("=");
        word("s.id");
        int clauses = 1 + random.nextInt(4);
        for (int c = 0; c < clauses; c++) {
            word("WHEN");
            int kind = random.nextInt(3);
            switch (kind) {
                case 0 -> word("MATCHED");
                case 1 -> word(pick("NOT MATCHED", "NOT MATCHED BY TARGET"));
                default -> word("NOT MATCHED BY SOURCE");
            }
            if (random.nextBoolean()) {
                word("AND");
                if (kind == 1) {
                    mergeSourceCondition();
                } else {
                    condition(2);
                }
            }
            word("THEN");
            if (random.nextInt(6) == 0) {
                word("DO");
                word("NOTHING");
            } else if (kind == 1) {
                mergeInsert();
            } else if (random.nextInt(3) == 0) {
                word("DELETE");
            } else {
                word("UPDATE");
                word("SET");
                assigned.clear();
                int items = 1 + random.nextInt(2);
                for (int i = 0; i < items; i++) {
                    if (i > 0) {
                        word(",");
                    }
                    if (kind == 0 && assigned.isEmpty() && random.nextBoolean()) {
                        String name = pick("a", "b");
                        assigned.add(name);
                        column(name);
                        word("=");
                        word("s." + name);
                    } else {
                        setItem(i);
                    }
                }
            }
        }
        if (random.nextInt(5) == 0) {
            word("RETURNING");
            word(pick("merge_action()", "s.*", qualifier + ".id"));
            word(",");
            word(qualifier + ".a");
        }
    }

    /**
     * A join as MERGE's source, {@code src} as {@code s} joined to {@code src2} in every way PostgreSQL joins: with
     * ON, with USING, or a CROSS JOIN to one row (a CROSS JOIN to src2 would match target rows twice, which
     * PostgreSQL refuses whole).
     */
    private void mergeJoinSource() {
        word("src");
        word(pick("AS s", "s"));
        if (random.nextInt(5) == 0) {
            word(pick("CROSS JOIN", "cross join"));
            word("(VALUES (1)) AS s2 (k)");
            return;
        }
        word(pick("JOIN", "INNER JOIN", "LEFT JOIN", "LEFT OUTER JOIN", "RIGHT JOIN", "FULL JOIN", "full join"));
        word("src2");
        word(pick("AS s2", "s2"));
        if (random.nextInt(3) == 0) {
            word("USING (id)");
        } else {
            word("ON");
            // src2's keys 20 and 21 meet src's 3 and 10 each once this way, none the plain way
            word(pick("s2.id = s.id", "s2.id - 17 = s.id", "s2.id = s.id + 11"));
            if (random.nextBoolean()) {
                word("AND");
                word("s2.a");
                word(pick("IS NOT NULL", "> 0", "IS NULL"));
            }
        }
    }

    /** A NOT MATCHED clause's condition: it can read only the source's columns. */
    private void mergeSourceCondition() {
        switch (random.nextInt(4)) {
            case 0 -> {
                word("s.a");
                word(pick(">", "<", "IS NOT DISTINCT FROM"));
                intExpr(1, false);
            }
            case 1 -> {
                word("s.b");
                word(pick("IS NULL", "IS NOT NULL", "IS NOT NULL IS TRUE", "IS NULL IS NOT TRUE"));
            }
            case 2 -> {
                word("s.b");
                word(pick("~", "~*", "!~", "^@", "LIKE"));
                word(pick("'s'", "'^n2'", "'S%'"));
            }
            default -> {
                word("s.id");
                word("IN");
                word("(");
                word("SELECT");
                word("id");
                word("FROM");
                word("src2");
                limitClauses(false);
                word(")");
            }
        }
    }

    /** WHEN NOT MATCHED's INSERT: with a column list, positional, or DEFAULT VALUES (a NULL key: fails raw). */
    private void mergeInsert() {
        word("INSERT");
        int form = random.nextInt(8);
        if (form == 0) {
            word("DEFAULT");
            word("VALUES");
            return;
        }
        if (form > 2) {
            word("(");
            word(pick("id", "ID", "\"id\""));
            word(",");
            word("a");
            word(",");
            word("b");
            word(")");
        }
        word("VALUES");
        word("(");
        word("s.id");
        word(",");
        if (random.nextBoolean()) {
            word("s.a");
        } else {
            intExpr(1, false);
        }
        word(",");
        word(random.nextBoolean() ? "s.b" : literal());
        word(")");
    }

    /**
     * OFFSET / LIMIT / FETCH of a subquery, in every order PostgreSQL accepts (and some it rejects: two limits);
     * {@code one}: at most one row comes out (a scalar subquery).
     */
    private void limitClauses(boolean one) {
        String n = one ? "1" : Integer.toString(1 + random.nextInt(3));
        switch (random.nextInt(one ? 6 : 11)) {
            case 0 -> {
                word("LIMIT");
                count(n);
            }
            case 1 -> {
                word("OFFSET");
                count(Integer.toString(random.nextInt(3)));
                word("LIMIT");
                count(n);
            }
            case 2 -> {
                word("LIMIT");
                count(n);
                word("OFFSET");
                count(Integer.toString(random.nextInt(3)));
            }
            case 3 -> {
                word("OFFSET");
                count(Integer.toString(random.nextInt(3)));
                word(pick("ROW", "ROWS"));
                word("FETCH");
                word(pick("FIRST", "NEXT"));
                count(n);
                word(pick("ROW", "ROWS"));
                word("ONLY");
            }
            case 4 -> {
                word("FETCH");
                word(pick("FIRST", "NEXT"));
                count(n);
                word(pick("ROW", "ROWS"));
                word("ONLY");
                word("OFFSET");
                count(Integer.toString(random.nextInt(3)));
                word(pick("ROW", "ROWS", ""));
            }
            case 5 -> {
                word("FETCH");
                word("FIRST");
                word(pick("ROW", "ROWS"));
                word("ONLY");
            }
            case 6 -> {
                word("OFFSET");
                count(Integer.toString(random.nextInt(3)));
            }
            case 7 -> {
                word("LIMIT");
                word("ALL");
                if (random.nextBoolean()) {
                    word("OFFSET");
                    count("1");
                }
            }
            case 8 -> {
                word("FETCH");
                word("FIRST");
                count(n);
                word("ROWS");
                word("WITH TIES");
            }
            case 9 -> {
                word("LIMIT");
                word("(");
                intExpr(1, false);
                word(")");
            }
            default -> {
                // two limits: PostgreSQL rejects it, raw and fenced alike
                word("LIMIT");
                count(n);
                word("FETCH");
                word("FIRST");
                count(n);
                word("ROWS");
                word("ONLY");
            }
        }
    }

    /** A row count: a literal or, prepared, a parameter. */
    private void count(String n) {
        if (prepared && random.nextInt(3) == 0) {
            word("?");
            parameters.add(Integer.parseInt(n));
        } else {
            word(n);
        }
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
        if (qualifier != null && (qualifyAll || random.nextBoolean())) {
            word(qualifier);
            word(".");
        }
        column(name);
    }

    private void intExpr(int depth, boolean columns) {
        int choice = random.nextInt(depth <= 0 ? 3 : 15);
        switch (choice) {
            case 9 -> {
                // unary chains: - - a, + - a, @ - a (absolute value)
                word(pick("-", "+", "@"));
                word(pick("-", "- -", "+"));
                intExpr(depth - 1, columns);
            }
            case 10 -> escapeFunction(depth, columns);
            case 11 -> {
                word("(");
                word("SELECT");
                word(pick("s.a", "max(s.a)", "count(*)"));
                word("FROM");
                word("src");
                word("s");
                word("ORDER");
                word("BY");
                word("1");
                limitClauses(random.nextInt(6) > 0);
                word(")");
            }
            case 12 -> {
                if (columns) {
                    word("CAST");
                    word("(");
                    ref("j");
                    word("->>");
                    word("'a'");
                    word("AS");
                    word("int");
                    word(")");
                } else {
                    word("jsonb_array_length");
                    word("(");
                    word("'[1, 2]'");
                    word(")");
                }
            }
            case 13 -> {
                word("(");
                word("CASE");
                word("WHEN");
                if (columns) {
                    condition(depth - 1);
                } else {
                    word("1 = 1");
                }
                word("IS");
                word(pick("TRUE", "NOT TRUE", "NOT FALSE", "UNKNOWN"));
                word("THEN");
                word("1");
                word("ELSE");
                word("2");
                word("END");
                word(")");
            }
            case 14 -> {
                if (columns) {
                    word("length");
                    word("(");
                    ref("j");
                    if (random.nextBoolean()) {
                        word("#>>");
                        word(pick("'{b}'", "'{a}'"));
                    } else {
                        word("->>");
                        word("'a'");
                    }
                    word(")");
                } else {
                    word(Integer.toString(random.nextInt(9)));
                }
            }
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
        int choice = random.nextInt(depth <= 0 ? 2 : 8);
        switch (choice) {
            case 5 -> {
                if (columns) {
                    word("(");
                    ref("j");
                    if (random.nextBoolean()) {
                        word("->>");
                        word(pick("'a'", "'c'"));
                    } else {
                        word("#>>");
                        word(pick("'{c}'", "'{b,1}'"));
                    }
                    word(")");
                } else {
                    word(literal());
                }
            }
            case 6 -> {
                plainGaps = true;
                switch (random.nextInt(3)) {
                    case 0 -> {
                        word("{fn ucase(");
                        textExpr(depth - 1, columns);
                        word(")}");
                    }
                    case 1 -> {
                        word("{fn concat(");
                        textExpr(depth - 1, columns);
                        word(",");
                        word(literal());
                        word(")}");
                    }
                    default -> {
                        word("{fn ltrim(");
                        textExpr(depth - 1, columns);
                        word(")}");
                    }
                }
                plainGaps = false;
            }
            case 7 -> {
                word("(");
                word("SELECT");
                word("s.b");
                word("FROM");
                word("src");
                word("s");
                word("ORDER");
                word("BY");
                word("s.id");
                word(pick("DESC", "ASC", ""));
                limitClauses(true);
                word(")");
            }
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

    /** A jsonb value: a literal, the column with {@code ||}, {@code -}, {@code #-}, jsonb_set. */
    private void jsonExpr(boolean columns) {
        switch (random.nextInt(columns ? 6 : 2)) {
            case 0 -> word(pick(JSONS));
            case 1 -> word("NULL");
            case 2 -> {
                ref("j");
                word("||");
                word(pick(JSONS));
            }
            case 3 -> {
                ref("j");
                if (random.nextBoolean()) {
                    word("-");
                    word(pick("'a'", "'c'"));
                } else {
                    word("#-");
                    word(pick("'{a}'", "'{b,0}'"));
                }
            }
            case 4 -> {
                word("jsonb_set");
                word("(");
                word("COALESCE");
                word("(");
                ref("j");
                word(",");
                word("'{}'");
                word(")");
                word(",");
                word("'{a}'");
                word(",");
                word("'5'");
                word(")");
            }
            default -> {
                word("CAST");
                word("(");
                word("'{\"a\": ' || 3 || '}'");
                word("AS");
                word("jsonb");
                word(")");
            }
        }
    }

    /** A date: a JDBC escape, a typed literal, or the column moved. */
    private void dateExpr(boolean columns) {
        plainGaps = true;
        switch (random.nextInt(columns ? 5 : 3)) {
            case 0, 1 -> word(pick("{d '", "{D '", "{d  '") + pick(DATES) + "'}");
            case 2 -> word("DATE '" + pick(DATES) + "'");
            case 3 -> {
                ref("d");
                word(pick("+", "-"));
                word(Integer.toString(1 + random.nextInt(40)));
            }
            default -> word("{ts '2020-06-01 10:00:00'}");
        }
        plainGaps = false;
    }

    /** jsonb operators; a {@code ?} in one is written {@code ??} in a prepared statement (pgjdbc's escape). */
    private void jsonCondition() {
        ref("j");
        switch (random.nextInt(9)) {
            case 0 -> {
                word(op("@?"));
                word(pick(PATHS));
            }
            case 1 -> {
                word("@@");
                word(pick(PREDICATES));
            }
            case 2 -> {
                word("->>");
                word("'a'");
                word(pick("=", "<>", ">"));
                word(pick("'1'", "'2'"));
            }
            case 3 -> {
                word(pick("@>", "<@"));
                word(pick(JSONS));
            }
            case 4 -> {
                word(op("?"));
                word(pick("'a'", "'c'"));
            }
            case 5 -> {
                word(op(pick("?|", "?&")));
                word(pick("array['a', 'c']", "ARRAY['b']"));
            }
            case 6 -> {
                word("->");
                word("'a'");
                word("=");
                word("'1'::jsonb");
            }
            case 7 -> {
                word(op("@?"));
                word(pick(PATHS));
                word(pick("IS TRUE", "IS NOT TRUE", "IS UNKNOWN"));
            }
            default -> {
                word("#>");
                word("'{b}'");
                word("IS NOT NULL");
            }
        }
    }

    /** pgjdbc reads {@code ?} as a parameter in a prepared statement, where the operator is written {@code ??}. */
    private String op(String operator) {
        return prepared ? operator.replace("?", "??") : operator;
    }

    /** A JDBC escape function pgjdbc translates: {@code {fn abs(-3)}}, {@code {fn mod(a, 3)}}, ... */
    private void escapeFunction(int depth, boolean columns) {
        plainGaps = true;
        switch (random.nextInt(5)) {
            case 0 -> word(pick("{fn abs(-3)}", "{fn ABS(-28)}", "{FN abs(-1)}", "{ fn abs(-3) }"));
            case 1 -> {
                word("{fn abs(");
                intExpr(depth - 1, columns);
                word(")}");
            }
            case 2 -> {
                word("{fn mod(");
                intExpr(depth - 1, columns);
                word(",");
                word(Integer.toString(2 + random.nextInt(3)));
                word(")}");
            }
            case 3 -> {
                word("{fn length(");
                textExpr(depth - 1, columns);
                word(")}");
            }
            default -> {
                word("{fn sign(");
                intExpr(depth - 1, columns);
                word(")}");
            }
        }
        plainGaps = false;
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

    /** {@code src s WHERE <qualifier>.id = s.id [AND ...]}: the source of UPDATE ... FROM and DELETE ... USING. */
    private void sourceJoin(String qualifier) {
        word("src");
        word("s");
        word("WHERE");
        word(qualifier + ".id");
        word("=");
        word("s.id");
        if (random.nextBoolean()) {
            word("AND");
            condition(2);
        }
    }

    private void condition(int depth) {
        int choice = random.nextInt(depth <= 0 ? 4 : 16);
        switch (choice) {
            case 9 -> {
                // IS chains
                switch (random.nextInt(4)) {
                    case 0 -> {
                        ref("b");
                        word(pick("IS NOT NULL", "IS NULL"));
                        word(pick("IS TRUE", "IS NOT TRUE", "IS FALSE", "IS NOT FALSE", "IS UNKNOWN"));
                    }
                    case 1 -> {
                        ref("a");
                        word(pick(">", "<"));
                        intExpr(0, true);
                        word(pick("IS TRUE", "IS NOT FALSE", "IS UNKNOWN", "IS NOT UNKNOWN"));
                    }
                    case 2 -> {
                        // unparenthesised, PostgreSQL rejects it (IS does not associate): both must fail alike
                        boolean parenthesised = random.nextInt(4) > 0;
                        if (parenthesised) {
                            word("(");
                        }
                        ref("a");
                        word("IS DISTINCT FROM");
                        intExpr(0, true);
                        if (parenthesised) {
                            word(")");
                        }
                        word(pick("IS TRUE", "IS NOT TRUE"));
                    }
                    default -> {
                        word("(");
                        condition(depth - 1);
                        word(")");
                        word(pick("IS TRUE", "IS NOT TRUE", "IS NOT NULL IS TRUE", "IS NULL IS NOT TRUE"));
                    }
                }
            }
            case 10 -> jsonCondition();
            case 11 -> {
                ref("b");
                word(pick("~", "~*", "!~", "!~*", "^@", "~~", "!~~", "ILIKE", "SIMILAR TO"));
                word(pick("'o'", "'^O'", "'%e%'", "'-'", "'x.*y'", "'(a|one)'", "'i'"));
            }
            case 12 -> {
                ref("d");
                word(pick("<", ">=", "=", "<>"));
                plainGaps = true;
                word(random.nextInt(4) == 0 ? "{ts '2020-06-01 10:00:00'}" : "{d '" + pick(DATES) + "'}");
                plainGaps = false;
            }
            case 13 -> {
                ref("id");
                word(pick("IN", "NOT IN", "= ANY"));
                word("(");
                word("SELECT");
                if (random.nextBoolean()) {
                    word("id");
                    word("FROM");
                    word(pick("dh", "public.dh"));
                    word(random.nextBoolean() ? "ORDER BY id" : "ORDER BY a DESC NULLS LAST, id");
                } else {
                    word("s.id");
                    word("FROM");
                    word("src");
                    word("s");
                    word("ORDER");
                    word("BY");
                    word("s.id");
                }
                limitClauses(false);
                word(")");
            }
            case 14 -> {
                word(pick("EXISTS", "NOT EXISTS"));
                word("(");
                word("SELECT");
                word("1");
                word("FROM");
                word("src");
                word("s");
                word("WHERE");
                word("s.id");
                word("=");
                word((qualifier == null ? "dh" : qualifier) + ".id");
                if (random.nextBoolean()) {
                    word("OFFSET");
                    word("0");
                }
                word(")");
            }
            case 15 -> {
                ref("a");
                word(pick("=", "<", ">="));
                escapeFunction(depth, true);
            }
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
            sql.append(!plainGaps && random.nextInt(3) == 0 ? pick(GAPS) : " ");
        }
        sql.append(w);
    }

    @SafeVarargs
    private <T> T pick(T... options) {
        return options[random.nextInt(options.length)];
    }
}
