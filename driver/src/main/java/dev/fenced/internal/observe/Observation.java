package dev.fenced.internal.observe;

/** Why the inventory recorded a write: each is something enforce mode would refuse. */
public enum Observation {
    NO_TOKEN("no token"),
    LEASE_LOST("lease lost"),
    WRONG_TOKEN_DOMAIN("token of another domain"),
    UNFENCEABLE("unfenceable");

    private final String label;

    Observation(String label) {
        this.label = label;
    }

    /** As shown in reports and logs. */
    public String label() {
        return label;
    }
}
