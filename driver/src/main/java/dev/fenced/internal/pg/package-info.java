/**
 * What fenced knows of PostgreSQL itself rather than of its own configuration: the standard SQLStates it tests
 * for and reports.
 *
 * <p><b>Internal to fenced.</b> Not for applications: anything here may change or go away in any release. The
 * supported API is {@link dev.fenced}; fenced's own modules may use this package.
 */
@NullMarked
package dev.fenced.internal.pg;

import org.jspecify.annotations.NullMarked;
