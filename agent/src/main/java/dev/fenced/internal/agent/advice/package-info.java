/**
 * Byte Buddy advice the agent inlines into executors, futures and configured lease methods.
 *
 * <p><b>Internal to fenced.</b> Not for applications: anything here may change or go away in any release. The
 * supported API is {@link dev.fenced}; fenced's own modules may use this package.
 */
@NullMarked
package dev.fenced.internal.agent.advice;

import org.jspecify.annotations.NullMarked;
