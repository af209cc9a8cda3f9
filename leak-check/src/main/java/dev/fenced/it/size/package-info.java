/**
 * {@link dev.fenced.it.size.LongRun}: how much generated input the seeded tests run, the one switch of the long runs.
 * In this module because every test module depends on it. For fenced's own tests; not published.
 *
 * <p>Null-marked: a type here is non-null unless it says {@code @Nullable}.
 */
@NullMarked
package dev.fenced.it.size;

import org.jspecify.annotations.NullMarked;
