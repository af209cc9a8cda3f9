package dev.fenced.internal.sql;

import java.util.ArrayList;
import java.util.List;
import net.sf.jsqlparser.schema.Table;
import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.statement.delete.Delete;
import net.sf.jsqlparser.statement.delete.ParenthesedDelete;
import net.sf.jsqlparser.statement.insert.Insert;
import net.sf.jsqlparser.statement.insert.ParenthesedInsert;
import net.sf.jsqlparser.statement.merge.Merge;
import net.sf.jsqlparser.statement.select.Select;
import net.sf.jsqlparser.statement.select.WithItem;
import net.sf.jsqlparser.statement.update.ParenthesedUpdate;
import net.sf.jsqlparser.statement.update.Update;
import org.jspecify.annotations.Nullable;

/**
 * Finds every data-modifying statement in a parsed statement, in text order: the data-modifying CTEs of
 * its WITH clause, then the statement itself. PostgreSQL allows data-modifying statements nowhere else;
 * the lexical keyword count cross-checks that nothing was missed.
 */
final class DmlCollector {

    private DmlCollector() {}

    /** Kind of a data-modifying statement, matched against the keyword that starts it. */
    enum DmlKind {
        INSERT,
        UPDATE,
        DELETE,
        MERGE;

        static DmlKind of(Statement s) {
            if (s instanceof Merge) {
                return MERGE;
            }
            if (s instanceof Insert) {
                return INSERT;
            }
            if (s instanceof Update) {
                return UPDATE;
            }
            return DELETE;
        }
    }

    /** The WITH queries of {@code statement} (a SELECT, INSERT, UPDATE, DELETE or MERGE); null when it has none. */
    static @Nullable List<WithItem<?>> withItems(Statement statement) {
        if (statement instanceof Select s) {
            return s.getWithItemsList();
        } else if (statement instanceof Insert i) {
            return i.getWithItemsList();
        } else if (statement instanceof Update u) {
            return u.getWithItemsList();
        } else if (statement instanceof Delete d) {
            return d.getWithItemsList();
        } else if (statement instanceof Merge m) {
            return m.getWithItemsList();
        }
        return null;
    }

    static List<Statement> collect(Statement statement) {
        List<Statement> out = new ArrayList<>();
        List<WithItem<?>> with = withItems(statement);
        if (with != null) {
            for (WithItem<?> item : with) {
                // WithItem.getInsert() and friends cast blindly; ask for the statement and test its type.
                Object cte = item.getParenthesedStatement();
                if (cte instanceof ParenthesedInsert pi) {
                    out.addAll(collect(pi.getInsert()));
                } else if (cte instanceof ParenthesedUpdate pu) {
                    out.addAll(collect(pu.getUpdate()));
                } else if (cte instanceof ParenthesedDelete pd) {
                    out.addAll(collect(pd.getDelete()));
                }
            }
        }
        if (statement instanceof Insert
                || statement instanceof Update
                || statement instanceof Delete
                || statement instanceof Merge) {
            out.add(statement);
        }
        return out;
    }

    static Table target(Statement dml) {
        if (dml instanceof Insert i) {
            return i.getTable();
        }
        if (dml instanceof Update u) {
            return u.getTable();
        }
        if (dml instanceof Merge m) {
            return m.getTable();
        }
        return ((Delete) dml).getTable();
    }

    /** Puts back an {@code ONLY} the lexical stage removed in front of this statement's target. */
    static void markOnly(Statement dml) {
        if (dml instanceof Update u) {
            u.setTable(new OnlyTable(u.getTable()));
        } else if (dml instanceof Delete d) {
            d.setTable(new OnlyTable(d.getTable()));
        } else if (dml instanceof Merge m) {
            m.setTable(new OnlyTable(m.getTable()));
        }
    }
}
