package dev.fenced.internal.lease;

/**
 * Makes the transaction of a grant (and of a renewal) durable before PostgreSQL acknowledges it, whatever
 * {@code synchronous_commit} the server, database, role or pool sets. With {@code off} an acknowledged commit
 * can still be in WAL buffers when the server crashes; recovery then forgets the grant and the sequence
 * hands its token out again, so two holders carry the same token and are not fenced against each other.
 *
 * <p>The setting is raised inside the statement itself ({@code set_config(..., is_local => true)}), so it
 * costs no round trip and ends with the transaction: nothing leaks into a pooled session. PostgreSQL reads
 * {@code synchronous_commit} when the transaction commits, after the statement ran. Only {@code off} is raised,
 * to {@code local} (flushed on this server): a setting that already waits for standbys is kept, and a grant
 * never starts waiting for a standby the operator did not ask it to wait for. Tokens stay unique across
 * failover for another reason: the timeline in their high bits ({@link Tokens}).
 */
final class Durability {

    /** A boolean SQL expression (always true) to evaluate in the statement. */
    static final String COMMIT_DURABLY =
            "(pg_catalog.set_config('synchronous_commit', CASE WHEN pg_catalog.current_setting('synchronous_commit')"
                    + " OPERATOR(pg_catalog.=) 'off' THEN 'local' ELSE pg_catalog.current_setting('synchronous_commit') END,"
                    + " true) IS NOT NULL)";

    private Durability() {}
}
