/**
 * Named, reversible actions (the audit's action store) behind {@code dev.fenced.Actions}.
 *
 * <p><b>Internal to fenced.</b> Not for applications: anything here may change or go away in any release. The
 * supported API is {@link dev.fenced}; fenced's own modules may use this package.
 */
@NullMarked
package dev.fenced.internal.action;

import org.jspecify.annotations.NullMarked;
