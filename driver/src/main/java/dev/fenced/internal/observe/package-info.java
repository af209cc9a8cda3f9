/**
 * Observe mode's writer inventory: which code writes which protected table with which statement shape, over JMX and as a JSON report.
 *
 * <p><b>Internal to fenced.</b> Not for applications: anything here may change or go away in any release. The
 * supported API is {@link dev.fenced}; fenced's own modules may use this package.
 */
@NullMarked
package dev.fenced.internal.observe;

import org.jspecify.annotations.NullMarked;
