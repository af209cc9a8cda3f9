/**
 * The failure analyzer for a bad {@code fenced.*} setting and the build-time generator of the configuration metadata.
 *
 * <p><b>Internal to fenced.</b> Not for applications: anything here may change or go away in any release.
 */
@NullMarked
package dev.fenced.internal.spring.config;

import org.jspecify.annotations.NullMarked;
