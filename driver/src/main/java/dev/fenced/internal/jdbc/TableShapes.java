package dev.fenced.internal.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/** Reads what {@link dev.fenced.internal.sql.TableShape} holds: a relation's live columns and its primary key. */
final class TableShapes {

    private TableShapes() {}

    /** Live columns in attnum order, dropped ones left out: how PostgreSQL maps positional INSERT values. */
    static List<String> liveColumns(Connection c, long oid) throws SQLException {
        return names(
                c,
                "SELECT a.attname FROM pg_catalog.pg_attribute a WHERE a.attrelid OPERATOR(pg_catalog.=) ? AND"
                        + " a.attnum OPERATOR(pg_catalog.>) 0 AND NOT a.attisdropped ORDER BY a.attnum",
                oid);
    }

    /** The primary key's columns in index order; empty when there is none. */
    static List<String> primaryKey(Connection c, long oid) throws SQLException {
        return names(
                c,
                "SELECT a.attname FROM pg_catalog.pg_index i"
                        + " CROSS JOIN LATERAL pg_catalog.unnest(i.indkey::pg_catalog.int2[]) WITH ORDINALITY AS"
                        + " k(attnum, ord) JOIN pg_catalog.pg_attribute a ON a.attrelid OPERATOR(pg_catalog.=)"
                        + " i.indrelid AND a.attnum OPERATOR(pg_catalog.=) k.attnum"
                        + " WHERE i.indrelid OPERATOR(pg_catalog.=) ? AND i.indisprimary ORDER BY k.ord",
                oid);
    }

    private static List<String> names(Connection c, String sql, long oid) throws SQLException {
        List<String> out = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setLong(1, oid);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getString(1));
                }
            }
        }
        return out;
    }
}
