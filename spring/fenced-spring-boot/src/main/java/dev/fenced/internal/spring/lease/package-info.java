/**
 * Spring AOP for lease methods: {@code @WithLease} and {@code fenced.lease.<name>.method} beans are advised to run under their lease, and checked at start-up.
 *
 * <p><b>Internal to fenced.</b> Not for applications: anything here may change or go away in any release. The
 * supported API is {@code dev.fenced}, {@code dev.fenced.spring} and the public types of {@code dev.fenced.spring.dao}
 * and {@code dev.fenced.spring.config}.
 */
@NullMarked
package dev.fenced.internal.spring.lease;

import org.jspecify.annotations.NullMarked;
