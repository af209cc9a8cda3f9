/**
 * fenced for db-scheduler: {@link dev.fenced.dbscheduler.FencedExecutionInterceptor} runs each execution under a fenced lease per task instance.
 *
 * <p>Null-marked: a type here is non-null unless it says {@code @Nullable}.
 */
@NullMarked
package dev.fenced.dbscheduler;

import org.jspecify.annotations.NullMarked;
