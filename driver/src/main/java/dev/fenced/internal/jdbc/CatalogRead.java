package dev.fenced.internal.jdbc;

import dev.fenced.internal.config.FencedConfig;
import dev.fenced.internal.config.MissingTablePolicy;
import dev.fenced.internal.config.ProtectedTable;
import dev.fenced.internal.config.TableName;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * How one {@link CatalogInspector#inspect catalog read} goes: made only by the factories, one per kind of caller,
 * so each says what it needs instead of passing a row of booleans.
 *
 * @param tables           the protected-table entries to look up
 * @param lenient          a table not ready (no fence column yet, wrong type) is logged rather than fatal and
 *                         stays fenced by name, so a write to it fails at PostgreSQL instead of passing unfenced
 * @param failOnMissing    an entry in enforce mode that matches no table fails the read (a typo there would leave
 *                         the real table unprotected)
 * @param tombstones       the tombstone table, or null for none: with one, every protected relation's columns
 *                         and primary key are read too
 * @param createTombstones create the tombstone table and its insert checks (the driver; never a tool that only
 *                         reads)
 * @param domainRegistry   the token domain registry to record each protected relation's domain in (failing
 *                         when the database records another), or null to record nothing
 */
record CatalogRead(
        List<ProtectedTable> tables,
        boolean lenient,
        boolean failOnMissing,
        @Nullable TableName tombstones,
        boolean createTombstones,
        @Nullable TableName domainRegistry) {

    /**
     * The driver's read at first connect ({@code afterDdl} false: strict) and again after DDL or periodically
     * ({@code afterDdl} true: lenient, as a migration may add the fence column in a later step). It creates
     * the tombstone table and records token domains.
     */
    static CatalogRead forDriver(FencedConfig config, boolean afterDdl) {
        return new CatalogRead(
                config.tables(),
                afterDdl,
                config.missingTables() == MissingTablePolicy.FAIL,
                config.tombstoneTable(),
                true,
                config.tokenDomainTable());
    }

    /**
     * For the command line's {@code install}: the driver's strict first-connect read, creating what is missing and
     * recording the token domains, so an administrator creates exactly what the first connect would.
     */
    static CatalogRead forInstall(FencedConfig config) {
        return forDriver(config, false);
    }

    /**
     * For the command line's {@code check}, {@code explain} and {@code audit}, which plan as the driver would:
     * lenient (a table not ready is left fenced by name, as after DDL), and nothing created or recorded.
     */
    static CatalogRead forTools(FencedConfig config, List<ProtectedTable> tables) {
        return new CatalogRead(tables, true, false, config.tombstoneTable(), false, null);
    }
}
