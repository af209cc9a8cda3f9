/**
 * fenced for Quartz: {@link dev.fenced.quartz.FencedJobFactory} runs each job under a fenced lease per job key.
 *
 * <p>Null-marked: a type here is non-null unless it says {@code @Nullable}.
 */
@NullMarked
package dev.fenced.quartz;

import org.jspecify.annotations.NullMarked;
