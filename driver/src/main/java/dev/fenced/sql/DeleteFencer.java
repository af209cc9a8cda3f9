package dev.fenced.sql;

import dev.fenced.FencingMode;
import dev.fenced.config.ProtectedTable;
import java.util.List;
import net.sf.jsqlparser.statement.delete.Delete;

/**
 * DELETE: the stale check goes behind the statement's own WHERE. That WHERE is printed twice, so a
 * volatile function in it (random(), nextval(), ...) would be evaluated twice with different results:
 * such a DELETE is refused rather than changed in meaning.
 */
final class DeleteFencer {

    private DeleteFencer() {
    }

    static void fence(Delete delete, ProtectedTable table, FenceContext ctx) throws Refusal {
        if ((delete.getTables() != null && !delete.getTables().isEmpty())
                || delete.getOrderByElements() != null || delete.getLimit() != null || delete.getOutputClause() != null) {
            throw new Refusal(table.displayName(), "DELETE with several targets, ORDER BY, LIMIT or OUTPUT"
                    + " (not PostgreSQL syntax)");
        }
        if (table.mode() == FencingMode.OBSERVE) {
            return; // nothing to record on a row that goes away; observe never refuses
        }
        if (delete.getWhere() != null) {
            String fn = volatileFunctionIn(delete.getWhere().toString(), ctx.targets);
            if (fn != null) {
                throw new Refusal(table.displayName(), "DELETE whose WHERE calls the volatile function " + fn
                        + "(): fenced evaluates the WHERE twice to check only the rows it deletes");
            }
        }
        delete.setWhere(Guards.deleteWhere(delete.getWhere(), FenceContext.columnRef(delete.getTable(), table),
                table.displayName(), ctx.tokenParam));
    }

    /** Lexically: any {@code name(} whose name is a known volatile function, subqueries included. */
    static String volatileFunctionIn(String text, FencingTargets targets) {
        List<Token> tokens = SqlLexer.tokenize(text);
        for (int i = 0; i + 1 < tokens.size(); i++) {
            Token t = tokens.get(i);
            if ((t.kind() == Token.Kind.WORD || t.kind() == Token.Kind.QUOTED_IDENTIFIER) && tokens.get(i + 1).isSymbol("(")
                    && targets.isVolatile(dev.fenced.config.TableName.fold(t.text()))) {
                return t.text();
            }
        }
        return null;
    }
}
