/**
 * The java agent's entry point and installer: reads the configuration, appends the bootstrap jar and installs the transformations.
 *
 * <p><b>Internal to fenced.</b> Not for applications: anything here may change or go away in any release. The
 * supported API is {@link dev.fenced}; fenced's own modules may use this package.
 */
@NullMarked
package dev.fenced.internal.agent;

import org.jspecify.annotations.NullMarked;
