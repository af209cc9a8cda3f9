package dev.fenced;

/**
 * Why the {@link WriterInventory} recorded a writer ({@link WriterInventory.Writer#kind()}): each is a write that
 * enforce mode would refuse and observe mode lets through. Reports print the {@link #label()}.
 */
public enum WriterKind {
    /** {@code no token}: the write ran with no lease token bound. */
    NO_TOKEN("no token"),
    /** {@code lease lost}: the token bound belongs to a lease that was lost before the write. */
    LEASE_LOST("lease lost"),
    /** {@code token of another domain}: the token bound comes from another token source than the table's. */
    WRONG_TOKEN_DOMAIN("token of another domain"),
    /** {@code unfenceable}: a statement fenced cannot fence (the reason names the construct). */
    UNFENCEABLE("unfenceable");

    private final String label;

    WriterKind(String label) {
        this.label = label;
    }

    /** As shown in reports and logs. */
    public String label() {
        return label;
    }
}
