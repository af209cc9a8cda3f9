/**
 * Where fenced's log records go: SLF4J when the application has it (with a provider) on the class path, else
 * {@link java.lang.System.Logger} (java.util.logging unless the JDK is told otherwise). One record per event.
 *
 * <p><b>Internal to fenced.</b> Not for applications: anything here may change or go away in any release. The
 * supported API is {@link dev.fenced}; fenced's own modules may use this package.
 */
@NullMarked
package dev.fenced.internal.log;

import org.jspecify.annotations.NullMarked;
