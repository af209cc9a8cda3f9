/**
 * fenced for ShedLock: {@link dev.fenced.shedlock.FencedLockProvider}, a {@code LockProvider} whose locks are fenced leases.
 *
 * <p>Null-marked: a type here is non-null unless it says {@code @Nullable}.
 */
@NullMarked
package dev.fenced.shedlock;

import org.jspecify.annotations.NullMarked;
