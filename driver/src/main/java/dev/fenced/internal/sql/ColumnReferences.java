package dev.fenced.internal.sql;

import dev.fenced.internal.config.TableName;
import java.util.ArrayList;
import java.util.List;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.ExpressionVisitorAdapter;
import net.sf.jsqlparser.expression.TrimFunction;
import net.sf.jsqlparser.schema.Column;
import org.jspecify.annotations.Nullable;

/** Collects the column references of an expression (not descending into subqueries). */
final class ColumnReferences extends ExpressionVisitorAdapter<Void> {

    private final List<Column> columns = new ArrayList<>();

    static List<Column> of(Expression e) {
        ColumnReferences v = new ColumnReferences();
        e.accept(v, null);
        return v.columns;
    }

    @Override
    public <S> Void visit(Column column, S context) {
        columns.add(column);
        return null;
    }

    /**
     * Both operands: JSqlParser's adapter visits only {@link TrimFunction#getExpression()}, which is null in
     * {@code trim(leading FROM b)} (pgjdbc's {@code {fn ltrim(b)}}), and never the FROM operand, where the column is.
     */
    @Override
    public <S> Void visit(TrimFunction trim, S context) {
        if (trim.getExpression() != null) {
            trim.getExpression().accept(this, context);
        }
        if (trim.getFromExpression() != null) {
            trim.getFromExpression().accept(this, context);
        }
        return null;
    }

    /**
     * True if {@code value} reads one of {@code targets} of the row being written: an unqualified
     * reference, or one qualified with the row's own {@code qualifier}.
     */
    static @Nullable String readsOwnColumn(
            Expression value, List<Column> targets, String qualifier, @Nullable List<String> tableColumns) {
        List<String> assigned = new ArrayList<>();
        for (Column target : targets) {
            assigned.add(TableName.fold(target.getColumnName()));
        }
        String byName = readsOwnRow(SqlLexer.tokenize(value.toString()), assigned, qualifier, tableColumns);
        if (byName != null) {
            return byName;
        }
        for (Column ref : of(value)) {
            String refTable = ref.getTable() == null ? null : ref.getTable().getName();
            if (refTable != null && !TableName.fold(refTable).equals(TableName.fold(qualifier))) {
                continue;
            }
            String name = TableName.fold(ref.getColumnName());
            for (Column target : targets) {
                if (TableName.fold(target.getColumnName()).equals(name)) {
                    return name;
                }
            }
        }
        return null;
    }
    /**
     * What the column references above do not show, read from a value's tokens: the row read as a whole
     * ({@code f(t)}, {@code (t).n}, {@code t.*}, {@code t::text}: every column, the assigned ones too), or a query
     * inside the value naming an assigned column bare or by the row's own name (a correlated subquery reads the outer
     * row's old value: {@code (SELECT n + 1)}). Conservative: a query's own column of an assigned column's name counts
     * too. The first assigned column so read, or null.
     *
     * @param assigned the folded columns the SET list assigns
     * @param qualifier how the statement names the row: its alias, else the target's bare name (as written)
     * @param tableColumns the target's columns as the catalog read them, or null when not read
     *                     ({@link #callsOnRow})
     */
    static @Nullable String readsOwnRow(
            List<Token> value, List<String> assigned, String qualifier, @Nullable List<String> tableColumns) {
        if (assigned.isEmpty()) {
            return null;
        }
        String own = TableName.fold(qualifier);
        boolean query = holdsQuery(value);
        for (int j = 0; j < value.size(); j++) {
            Token t = value.get(j);
            if (!TokenRuns.isName(t)) {
                continue;
            }
            String name = TableName.fold(t.text());
            Token before = j > 0 ? value.get(j - 1) : null;
            Token next = j + 1 < value.size() ? value.get(j + 1) : null;
            if (callsOnRow(value, j, own, tableColumns)) {
                return assigned.get(0);
            }
            if (before != null && before.isSymbol(".")) {
                // a field, or a column qualified by a name: the row's own inside a query (outside, the caller's)
                boolean ownQualifier =
                        j >= 2 && TableName.fold(value.get(j - 2).text()).equals(own);
                if (query && ownQualifier && assigned.contains(name)) {
                    return name;
                }
                continue;
            }
            if (name.equals(own) && wholeRow(value, j)) {
                return assigned.get(0);
            }
            if (query && assigned.contains(name) && (next == null || !next.isSymbol("(") && !next.isSymbol("."))) {
                return name;
            }
        }
        return null;
    }

    /**
     * The name at {@code j} after the row's own name and a dot ({@code x.f}, {@code public.t.f}) names no column of
     * the target ({@code tableColumns}): PostgreSQL reads it in attribute notation as {@code f(x)}, a function of the
     * whole row, which reads every column, the assigned ones too. Undecidable, so false, when the target's columns
     * were not read (null); {@code x.f(...)} is a call of a function in schema {@code x}.
     *
     * @param own the row's own name, folded
     */
    static boolean callsOnRow(List<Token> value, int j, String own, @Nullable List<String> tableColumns) {
        if (tableColumns == null
                || j < 2
                || !TokenRuns.isName(value.get(j))
                || !value.get(j - 1).isSymbol(".")
                || !TokenRuns.isName(value.get(j - 2))
                || !TableName.fold(value.get(j - 2).text()).equals(own)
                || j + 1 < value.size() && value.get(j + 1).isSymbol("(")) {
            return false;
        }
        return !tableColumns.contains(TableName.fold(value.get(j).text()));
    }

    /** A query inside a value's tokens: any SELECT, VALUES, TABLE or WITH in it. */
    static boolean holdsQuery(List<Token> value) {
        for (Token t : value) {
            if (t.isWord("SELECT") || t.isWord("VALUES") || t.isWord("TABLE") || t.isWord("WITH")) {
                return true;
            }
        }
        return false;
    }

    /**
     * The name at {@code j} (the row's own name) stands for the whole row: not a qualifier of a column after it
     * ({@code t.n}), nor a function ({@code t(...)}).
     */
    static boolean wholeRow(List<Token> value, int j) {
        Token next = j + 1 < value.size() ? value.get(j + 1) : null;
        Token after = j + 2 < value.size() ? value.get(j + 2) : null;
        if (next != null && next.isSymbol("(")) {
            return false;
        }
        return !(next != null && next.isSymbol(".") && after != null && TokenRuns.isName(after));
    }
}
