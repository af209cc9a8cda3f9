/**
 * Configuration read once from its sources in precedence order (URL, connection properties, system properties, {@code fenced.properties}) into an immutable {@code FencedConfig}; the keys themselves are {@code dev.fenced.FencedProperty}.
 *
 * <p><b>Internal to fenced.</b> Not for applications: anything here may change or go away in any release. The
 * supported API is {@link dev.fenced}; fenced's own modules may use this package.
 */
@NullMarked
package dev.fenced.internal.config;

import org.jspecify.annotations.NullMarked;
