/**
 * The calling thread's fencing state: token cells, their domains, and access to the shared thread-local (the agent's bootstrap copy when present).
 *
 * <p><b>Internal to fenced.</b> Not for applications: anything here may change or go away in any release. The
 * supported API is {@link dev.fenced}; fenced's own modules may use this package.
 */
@NullMarked
package dev.fenced.internal.context;

import org.jspecify.annotations.NullMarked;
