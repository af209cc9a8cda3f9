/**
 * Leases from the data's own PostgreSQL: the lease table and its store calls, grants, batched renewal, deadlines on a monotonic clock, loss and callbacks, and the token layout (timeline and sequence).
 *
 * <p><b>Internal to fenced.</b> Not for applications: anything here may change or go away in any release. The
 * supported API is {@link dev.fenced}; fenced's own modules may use this package.
 */
@NullMarked
package dev.fenced.internal.lease;

import org.jspecify.annotations.NullMarked;
