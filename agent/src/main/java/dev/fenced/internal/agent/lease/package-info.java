/**
 * The agent's leases for configured methods ({@code fenced.lease.<name>.method}).
 *
 * <p><b>Internal to fenced.</b> Not for applications: anything here may change or go away in any release. The
 * supported API is {@link dev.fenced}; fenced's own modules may use this package.
 */
@NullMarked
package dev.fenced.internal.agent.lease;

import org.jspecify.annotations.NullMarked;
