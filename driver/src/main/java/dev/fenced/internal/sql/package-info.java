/**
 * SQL rewriting: PostgreSQL-exact lexing, statement classification, the fencers that splice the token guard into UPDATE, INSERT, DELETE and MERGE, the fidelity check of what is sent, and the plan cache.
 *
 * <p><b>Internal to fenced.</b> Not for applications: anything here may change or go away in any release. The
 * supported API is {@link dev.fenced}; fenced's own modules may use this package.
 */
@NullMarked
package dev.fenced.internal.sql;

import org.jspecify.annotations.NullMarked;
