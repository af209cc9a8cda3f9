package dev.fenced.internal.config;

/** What {@code SET x = x + 1} on a protected table gets: a warning, a refusal, or nothing. */
public enum RelativeUpdatePolicy {
    WARN,
    REFUSE,
    ALLOW
}
