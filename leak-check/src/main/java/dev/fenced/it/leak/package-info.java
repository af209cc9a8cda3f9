/**
 * {@link dev.fenced.it.leak.LeakCheck}: the tests' suite-wide invariant. For fenced's own tests; not published.
 *
 * <p>Null-marked: a type here is non-null unless it says {@code @Nullable}.
 */
@NullMarked
package dev.fenced.it.leak;

import org.jspecify.annotations.NullMarked;
