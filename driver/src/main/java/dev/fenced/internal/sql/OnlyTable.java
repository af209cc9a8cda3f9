package dev.fenced.internal.sql;

import net.sf.jsqlparser.schema.Table;

/**
 * A write target written {@code ONLY name}: JSqlParser 5.3 cannot parse {@code ONLY}, so the lexical
 * stage takes the keyword out before parsing and this puts it back when the statement is printed.
 */
final class OnlyTable extends Table {

    private static final long serialVersionUID = 1L;

    OnlyTable(Table table) {
        // not (getNameParts(), getNamePartDelimiters()): JSqlParser 5.4 rejects its own parts of a qualified name there
        super(table.getSchemaName(), table.getName());
        setAlias(table.getAlias());
    }

    @Override
    public StringBuilder appendTo(StringBuilder builder) {
        builder.append("ONLY ");
        return super.appendTo(builder);
    }

    @Override
    public String toString() {
        return appendTo(new StringBuilder()).toString();
    }
}
