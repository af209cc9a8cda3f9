package dev.fenced.internal.config;

/**
 * What the first connect does when a protected-table entry in enforce mode matches no table
 * ({@code fenced.missingTables}).
 */
public enum MissingTablePolicy {
    /** {@code fail}: the connect fails, since a typo would leave the real table unprotected. */
    FAIL,
    /** {@code warn}: the connect logs it and fences the name once it exists (a migration creates it later). */
    WARN
}
