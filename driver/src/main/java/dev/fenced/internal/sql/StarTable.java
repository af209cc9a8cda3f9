package dev.fenced.internal.sql;

import java.util.List;
import net.sf.jsqlparser.schema.Table;
import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.statement.delete.Delete;
import net.sf.jsqlparser.statement.update.Update;

/**
 * A write target written {@code name *} (the table and its inheritance children, which is also what a bare name
 * means): JSqlParser cannot parse the star, so the lexical stage takes it out before parsing and this puts it back
 * where it was when the statement is printed, so the user's tokens are all still there.
 */
final class StarTable extends Table {

    private static final long serialVersionUID = 1L;

    private StarTable(Table table) {
        super(table.getSchemaName(), table.getName());
        setAlias(table.getAlias());
    }

    /**
     * The index of a {@code *} right after the target name of the UPDATE or DELETE whose keyword is at
     * {@code keyword} ({@code UPDATE [ONLY] name *}, {@code DELETE FROM [ONLY] name *}), or -1.
     */
    static int starAfterTarget(List<Token> tokens, int keyword) {
        int i = keyword + 1;
        if (tokens.get(keyword).isWord("DELETE")) {
            if (i >= tokens.size() || !tokens.get(i).isWord("FROM")) {
                return -1;
            }
            i++;
        } else if (!tokens.get(keyword).isWord("UPDATE")) {
            return -1;
        }
        if (i < tokens.size() && tokens.get(i).isWord("ONLY")) {
            i++;
        }
        // name [. name [. name]]
        while (i < tokens.size() && isName(tokens.get(i))) {
            if (i + 2 < tokens.size() && tokens.get(i + 1).isSymbol(".") && isName(tokens.get(i + 2))) {
                i += 2;
            } else {
                break;
            }
        }
        if (i >= tokens.size() || !isName(tokens.get(i))) {
            return -1;
        }
        return i + 1 < tokens.size() && tokens.get(i + 1).isSymbol("*") ? i + 1 : -1;
    }

    private static boolean isName(Token t) {
        return t.kind() == Token.Kind.WORD || t.kind() == Token.Kind.QUOTED_IDENTIFIER;
    }

    /** The same rows in a FROM clause: {@code name *} is what {@code name} means, so the star is left out. */
    static Table plain(Table table) {
        if (!(table instanceof StarTable)) {
            return table;
        }
        Table t = new Table(table.getSchemaName(), table.getName());
        t.setAlias(table.getAlias());
        return t;
    }

    static void mark(Statement dml) {
        if (dml instanceof Update u) {
            u.setTable(new StarTable(u.getTable()));
        } else if (dml instanceof Delete d) {
            d.setTable(new StarTable(d.getTable()));
        }
    }

    @Override
    public StringBuilder appendTo(StringBuilder builder) {
        builder.append(getFullyQualifiedName()).append(" *");
        if (getAlias() != null) {
            builder.append(getAlias());
        }
        return builder;
    }

    @Override
    public String toString() {
        return appendTo(new StringBuilder()).toString();
    }
}
