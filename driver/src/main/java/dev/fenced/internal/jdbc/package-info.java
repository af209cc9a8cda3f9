/**
 * The JDBC surface: the wrapping connection, statements, result sets and metadata (hand-written classes carry behaviour; the generated {@code Delegating*} bases are package-private and only forward), the per-database runtime, and what it learns from the catalog.
 *
 * <p><b>Internal to fenced.</b> Not for applications: anything here may change or go away in any release. The
 * supported API is {@link dev.fenced}; fenced's own modules may use this package.
 */
@NullMarked
package dev.fenced.internal.jdbc;

import org.jspecify.annotations.NullMarked;
