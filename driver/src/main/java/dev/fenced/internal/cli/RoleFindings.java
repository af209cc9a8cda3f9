package dev.fenced.internal.cli;

import dev.fenced.internal.config.FencedConfig;
import dev.fenced.internal.jdbc.Relation;
import dev.fenced.internal.jdbc.RoleCheck;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code check}'s report on the role it connects as (run it as the application's role): the role, the privileges it
 * has that make it an administrator of a protected table (warnings: fenced works, but rewriting cannot fence such a
 * role), and the rights it lacks to write the tables and use fenced's objects (missing: the first connect would
 * fail or the writes be refused, so nothing is ready for it).
 */
final class RoleFindings {

    /** Every finding of this report starts so, which tells them from the server's. */
    static final String PREFIX = "role ";

    private RoleFindings() {}

    static List<Finding> read(Connection c, FencedConfig config) throws SQLException {
        List<Finding> out = new ArrayList<>();
        String role = RoleCheck.role(c);
        List<Relation> tables = RoleCheck.protectedRelations(c, config);
        List<RoleCheck.Excess> excess = RoleCheck.excess(c, tables);
        List<RoleCheck.Gap> gaps = RoleCheck.lacking(c, config, tables);
        if (excess.isEmpty() && gaps.isEmpty()) {
            out.add(Finding.ok(PREFIX + role + ": can write the protected tables and use fenced's objects, and cannot"
                    + " change their schema"));
        }
        for (RoleCheck.Excess e : excess) {
            out.add(new Finding(
                    Finding.Level.WARN,
                    PREFIX + role + " should not have: " + e.privilege()
                            + " (an administrator: rewriting cannot fence it, docs/least-privilege.md)",
                    e.fix()));
        }
        for (RoleCheck.Gap g : gaps) {
            out.add(new Finding(
                    g.blocking() ? Finding.Level.MISSING : Finding.Level.WARN,
                    PREFIX + role + " lacks what it needs: " + g.text(),
                    g.fix()));
        }
        return out;
    }

    /** True when the role's report blocks enforce mode. */
    static boolean blocked(List<Finding> findings) {
        return findings.stream()
                .anyMatch(f -> f.level() == Finding.Level.MISSING && f.text().startsWith(PREFIX));
    }
}
