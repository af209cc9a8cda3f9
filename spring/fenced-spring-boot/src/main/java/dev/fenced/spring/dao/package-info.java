/**
 * fenced's refusals as Spring {@code DataAccessException}s ({@link dev.fenced.spring.dao.FencedStaleWriteException},
 * {@link dev.fenced.spring.dao.FencedLeaseLostException}, {@link dev.fenced.spring.dao.FencedWriteRefusedException}) and
 * the translators that produce them.
 */
@NullMarked
package dev.fenced.spring.dao;

import org.jspecify.annotations.NullMarked;
