package dev.fenced.internal.config;

import java.util.Map;

/** One place configuration comes from, named so that errors can say where a bad key was written. */
public record ConfigSource(String description, Map<String, String> values) {}
