/**
 * Wiring that puts fenced's exception translation into the application's {@code JdbcTemplate}s and JPA, and the one
 * mapping from a fenced {@code SQLException} to its Spring type.
 *
 * <p><b>Internal to fenced.</b> Not for applications: anything here may change or go away in any release.
 */
@NullMarked
package dev.fenced.internal.spring.dao;

import org.jspecify.annotations.NullMarked;
