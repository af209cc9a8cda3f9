/**
 * A connection held by a plain lock ({@code dev.fenced.PlainLock}).
 *
 * <p><b>Internal to fenced.</b> Not for applications: anything here may change or go away in any release. The
 * supported API is {@link dev.fenced}; fenced's own modules may use this package.
 */
@NullMarked
package dev.fenced.internal.lock;

import org.jspecify.annotations.NullMarked;
