/**
 * fenced's refusals as Spring {@code DataAccessException}s ({@link dev.fenced.spring.dao.FencedStaleWriteException},
 * {@link dev.fenced.spring.dao.FencedLeaseLostException}, {@link dev.fenced.spring.dao.FencedWriteRefusedException}) and
 * the translators that produce them.
 */
package dev.fenced.spring.dao;
