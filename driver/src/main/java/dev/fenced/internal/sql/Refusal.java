package dev.fenced.internal.sql;

/** Raised inside the rewriter when a statement cannot be fenced safely; becomes a refused plan. */
final class Refusal extends Exception {

    private static final long serialVersionUID = 1L;

    final String table;
    final String construct;
    /** A refusal for want of time (parse deadline), not for what the statement is: not to be cached. */
    final boolean transientCause;

    Refusal(String table, String construct) {
        this(table, construct, false);
    }

    Refusal(String table, String construct, boolean transientCause) {
        super(construct, null, false, false);
        this.table = table;
        this.construct = construct;
        this.transientCause = transientCause;
    }

    /** A write to {@code target}, which is not protected itself but reaches protected rows ({@code reason}). */
    static Refusal indirectWrite(dev.fenced.internal.config.TableName target, String reason) {
        return new Refusal(
                target.toString(),
                "a write to " + target + " reaches protected rows: " + reason + "; write the protected table itself");
    }

    /** The statement writes {@code table}'s fence column itself: the token is fenced's to supply, never the writer's. */
    static Refusal setsFenceColumn(dev.fenced.internal.config.ProtectedTable table) {
        return new Refusal(
                table.displayName(),
                "the statement sets the fence column " + table.column()
                        + " itself; the token is not the writer's to choose");
    }
}
