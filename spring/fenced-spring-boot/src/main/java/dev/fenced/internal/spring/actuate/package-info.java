/**
 * The fenced health indicator and readiness group defaults (Boot 3 and Boot 4 variants).
 *
 * <p><b>Internal to fenced.</b> Not for applications: anything here may change or go away in any release. The
 * supported API is {@code dev.fenced}, {@code dev.fenced.spring} and the public types of {@code dev.fenced.spring.dao}
 * and {@code dev.fenced.spring.config}.
 */
@NullMarked
package dev.fenced.internal.spring.actuate;

import org.jspecify.annotations.NullMarked;
