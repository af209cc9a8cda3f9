/**
 * fenced for Spring Integration: {@link dev.fenced.spring.integration.FencedLockRegistry}, a {@code LockRegistry} whose locks are fenced leases.
 *
 * <p>Null-marked: a type here is non-null unless it says {@code @Nullable}.
 */
@NullMarked
package dev.fenced.spring.integration;

import org.jspecify.annotations.NullMarked;
