package dev.fenced.example.nightly.scenario;

/**
 * A night's row in {@code nightly_runs}: which instance finished the night, under which token, over how many
 * restaurants and orders.
 */
public record Night(String instance, long token, int restaurants, long orders) {}
