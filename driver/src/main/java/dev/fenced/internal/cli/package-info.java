/**
 * The roll-out command line in the driver jar ({@code java -jar fenced-driver-<version>.jar check|audit|explain}): argument parsing, catalog and server checks, reports and exit codes.
 *
 * <p><b>Internal to fenced.</b> Not for applications: anything here may change or go away in any release. The
 * supported API is {@link dev.fenced}; fenced's own modules may use this package.
 */
@NullMarked
package dev.fenced.internal.cli;

import org.jspecify.annotations.NullMarked;
