package dev.fenced.internal.jdbc;

import dev.fenced.FencedProperty;
import dev.fenced.FencingException;
import dev.fenced.internal.config.TableName;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The database's record of each protected table's token domain: one row per relation, written by the first
 * configuration that protects it and compared by every later one. In-memory checks stop a token of another domain
 * from reaching a table; this stops two applications that give one table different domains (one writing fenced
 * lease tokens, one etcd revisions) from both connecting: the second fails at connect naming the table and both
 * domains. The first claim wins atomically (a primary key and {@code ON CONFLICT DO NOTHING}), so two that connect
 * at once cannot both believe their own.
 *
 * <p>Read at first connect and at each catalog re-read, never on the write path. A database that has every row needs
 * only SELECT on the registry; the first claim of a table needs INSERT (and CREATE, once, for the table itself).
 */
final class TokenDomainRegistry {

    /** One relation fenced protects, the domain this configuration gives it, and the entry that protects it. */
    record Claim(String schema, String name, String domain, String entry) {
        String display() {
            return new TableName(schema, name).toString();
        }
    }

    /** A relation as the registry keys it: its schema and name. */
    private record Name(String schema, String name) {}

    private TokenDomainRegistry() {}

    private static List<Name> names(List<Claim> claims) {
        return claims.stream()
                .map(claim -> new Name(claim.schema(), claim.name()))
                .toList();
    }

    static String createTable(TableName registry) {
        return "CREATE TABLE IF NOT EXISTS " + registry
                + " (relation_schema pg_catalog.text NOT NULL, relation_name pg_catalog.text NOT NULL,"
                + " token_domain pg_catalog.text NOT NULL, recorded_at pg_catalog.timestamptz NOT NULL DEFAULT"
                + " pg_catalog.now(), recorded_by pg_catalog.text NOT NULL DEFAULT current_user,"
                + " PRIMARY KEY (relation_schema, relation_name))";
    }

    /**
     * Records the claims not recorded yet and compares every claim with the record.
     *
     * @throws FencingException {@link FencingException#TOKEN_DOMAIN_RECORDED} naming each table the database records
     *         with another domain; {@link FencingException#SCHEMA} when the registry cannot be created or written
     */
    static void claim(Connection c, TableName registry, List<Claim> claims) throws SQLException {
        if (claims.isEmpty()) {
            return;
        }
        Map<String, String> recorded;
        try {
            if (!exists(c, registry)) {
                try {
                    SchemaWrites.run(c, createTable(registry));
                } catch (SQLException e) {
                    if (!exists(c, registry)) { // else another connect created it at the same moment
                        throw e;
                    }
                }
            }
            recorded = read(c, registry, names(claims));
            List<Claim> missing = new ArrayList<>();
            for (Claim claim : claims) {
                if (!recorded.containsKey(key(claim.schema(), claim.name()))) {
                    missing.add(claim);
                }
            }
            if (!missing.isEmpty()) {
                SchemaWrites.run(c, conn -> insert(conn, registry, missing));
                recorded = read(c, registry, names(claims));
            }
        } catch (SQLException e) {
            throw new FencingException(
                    "fenced: cannot record the token domains of the protected tables in " + registry
                            + " (" + e.getMessage() + "); create it (" + createTable(registry)
                            + ") and grant SELECT, INSERT on it,"
                            + " or name another with " + FencedProperty.TOKEN_DOMAIN_TABLE.key(),
                    FencingException.SCHEMA,
                    e);
        }
        List<String> conflicts = new ArrayList<>();
        for (Claim claim : claims) {
            String domain = recorded.get(key(claim.schema(), claim.name()));
            if (domain == null) {
                // not visible after the insert: a transaction snapshot older than another writer's claim
                conflicts.add("table " + claim.display() + " has no record this transaction can see; connect outside"
                        + " a REPEATABLE READ or SERIALIZABLE transaction");
            } else if (!domain.equals(claim.domain())) {
                conflicts.add("table " + claim.display() + " is recorded with token domain '" + domain + "', but this"
                        + " configuration gives it '" + claim.domain() + "' (entry " + claim.entry() + ")");
            }
        }
        if (!conflicts.isEmpty()) {
            throw new FencingException(
                    "fenced: protected tables belong to another token source: " + String.join("; ", conflicts)
                            + ". Every writer of a table must use tokens of one domain (" + registry + " records it):"
                            + " set " + FencedProperty.TABLE_TOKEN_DOMAIN.key() + " or "
                            + FencedProperty.TOKEN_DOMAIN.key()
                            + " to the recorded one. To move a table to another source, stop its writers, set its fence column"
                            + " to NULL and delete its row in " + registry,
                    FencingException.TOKEN_DOMAIN_RECORDED);
        }
    }

    /** The domain the database records for one relation, or null (not recorded, or no registry yet). */
    static @Nullable String recorded(Connection c, TableName registry, String schema, String name) throws SQLException {
        if (!exists(c, registry)) {
            return null;
        }
        return read(c, registry, List.of(new Name(schema, name))).get(key(schema, name));
    }

    private static String key(String schema, String name) {
        return schema + '\u0000' + name;
    }

    private static boolean exists(Connection c, TableName registry) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT pg_catalog.to_regclass(?) IS NOT NULL")) {
            ps.setString(1, registry.toString());
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() && rs.getBoolean(1);
            }
        }
    }

    private static Map<String, String> read(Connection c, TableName registry, List<Name> names) throws SQLException {
        Map<String, String> out = new HashMap<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT r.relation_schema, r.relation_name, r.token_domain FROM "
                + registry + " r WHERE EXISTS (SELECT 1 FROM ROWS FROM (pg_catalog.unnest(?::pg_catalog.text[]),"
                + " pg_catalog.unnest(?::pg_catalog.text[])) AS c(s, n) WHERE r.relation_schema"
                + " OPERATOR(pg_catalog.=) c.s AND r.relation_name OPERATOR(pg_catalog.=) c.n)")) {
            bindNames(c, ps, names);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.put(key(rs.getString(1), rs.getString(2)), rs.getString(3));
                }
            }
        }
        return out;
    }

    private static void insert(Connection c, TableName registry, List<Claim> claims) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + registry
                + " (relation_schema, relation_name, token_domain)"
                + " SELECT s, n, d FROM ROWS FROM (pg_catalog.unnest(?::pg_catalog.text[]),"
                + " pg_catalog.unnest(?::pg_catalog.text[]), pg_catalog.unnest(?::pg_catalog.text[])) AS c(s, n, d)"
                + " ON CONFLICT DO NOTHING")) {
            bindNames(c, ps, names(claims));
            Array domains =
                    c.createArrayOf("text", claims.stream().map(Claim::domain).toArray());
            ps.setArray(3, domains);
            ps.executeUpdate();
        }
    }

    private static void bindNames(Connection c, PreparedStatement ps, List<Name> names) throws SQLException {
        ps.setArray(1, c.createArrayOf("text", names.stream().map(Name::schema).toArray()));
        ps.setArray(2, c.createArrayOf("text", names.stream().map(Name::name).toArray()));
    }
}
