package dev.fenced.internal.config;

import java.util.Set;

/**
 * PostgreSQL's keywords that cannot stand as a bare column or table name in every position fenced writes one
 * (reserved, type/function-name and column-name keywords of PostgreSQL 15 to 18, from its {@code kwlist.h}).
 * Unreserved keywords are valid bare names everywhere and need no quotes.
 */
final class SqlKeywords {

    private static final Set<String> NEED_QUOTES = Set.of(
            // reserved
            "all", "analyse", "analyze", "and", "any", "array", "as", "asc", "asymmetric", "both", "case", "cast",
            "check", "collate", "column", "constraint", "create", "current_catalog", "current_date", "current_role",
            "current_time", "current_timestamp", "current_user", "default", "deferrable", "desc", "distinct", "do",
            "else", "end", "except", "false", "fetch", "for", "foreign", "from", "grant", "group", "having", "in",
            "initially", "intersect", "into", "lateral", "leading", "limit", "localtime", "localtimestamp", "not",
            "null", "offset", "on", "only", "or", "order", "placing", "primary", "references", "returning", "select",
            "session_user", "some", "symmetric", "system_user", "table", "then", "to", "trailing", "true", "union",
            "unique", "user", "using", "variadic", "when", "where", "window", "with",
            // type or function names
            "authorization", "binary", "collation", "concurrently", "cross", "current_schema", "freeze", "full",
            "ilike", "inner", "is", "isnull", "join", "left", "like", "natural", "notnull", "outer", "overlaps",
            "right", "similar", "tablesample", "verbose",
            // column names (valid as a column, not as a function or type name; quoted to be safe everywhere)
            "between", "bigint", "bit", "boolean", "char", "character", "coalesce", "dec", "decimal", "exists",
            "extract", "float", "greatest", "grouping", "inout", "int", "integer", "interval", "json", "json_array",
            "json_arrayagg", "json_exists", "json_object", "json_objectagg", "json_query", "json_scalar",
            "json_serialize", "json_table", "json_value", "least", "merge_action", "national", "nchar", "none",
            "normalize", "nullif", "numeric", "out", "overlay", "position", "precision", "real", "row", "setof",
            "smallint", "substring", "time", "timestamp", "treat", "trim", "values", "varchar", "xmlattributes",
            "xmlconcat", "xmlelement", "xmlexists", "xmlforest", "xmlnamespaces", "xmlparse", "xmlpi", "xmlroot",
            "xmlserialize", "xmltable");

    private SqlKeywords() {
    }

    /** True when {@code folded}, written bare, would be read as a keyword rather than the name. */
    static boolean needsQuotes(String folded) {
        return NEED_QUOTES.contains(folded);
    }
}
