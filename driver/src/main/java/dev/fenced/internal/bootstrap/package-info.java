/**
 * The one thread-local the whole JVM shares for the bound token. It uses java.base types only so that the agent can place it on the bootstrap class path and every class loader's copy of the driver finds the same state.
 *
 * <p><b>Internal to fenced.</b> Not for applications: anything here may change or go away in any release. The
 * supported API is {@link dev.fenced}; fenced's own modules may use this package.
 *
 * <p>Not {@code @NullMarked}: that annotation is a type outside java.base, which this package must not reference
 * ({@code ArchitectureTest.theBootstrapStoreUsesJavaBaseOnly}).
 */
package dev.fenced.internal.bootstrap;
