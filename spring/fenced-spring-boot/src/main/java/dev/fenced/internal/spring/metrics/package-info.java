/**
 * Binds fenced's counters to the application's Micrometer registry.
 *
 * <p><b>Internal to fenced.</b> Not for applications: anything here may change or go away in any release. The
 * supported API is {@code dev.fenced}, {@code dev.fenced.spring} and the public types of {@code dev.fenced.spring.dao}
 * and {@code dev.fenced.spring.config}.
 */
@NullMarked
package dev.fenced.internal.spring.metrics;

import org.jspecify.annotations.NullMarked;
