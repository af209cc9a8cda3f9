/**
 * The fenced API: what applications call. {@link dev.fenced.Fencing} runs work under a fencing token;
 * {@link dev.fenced.LeaseManager} hands out {@link dev.fenced.Lease}s from PostgreSQL, each carrying its token;
 * {@link dev.fenced.FencedDriver} ({@code jdbc:fenced:postgresql:}) and {@link dev.fenced.FencedDataSource} wrap
 * pgjdbc so that writes to protected tables carry and check the token; {@link dev.fenced.FencingException} and its
 * subclasses ({@link dev.fenced.StaleTokenException}, {@link dev.fenced.LeaseLostException},
 * {@link dev.fenced.UnfencedWriteException}, {@link dev.fenced.UnsupportedStatementException},
 * {@link dev.fenced.TokenDomainException}) say why a write was refused; {@link dev.fenced.FencedProperty} names every
 * configuration key.
 *
 * <p>Null-marked: a type here is non-null unless it says {@code @Nullable}.
 */
@NullMarked
package dev.fenced;

import org.jspecify.annotations.NullMarked;
