package dev.fenced.internal.context;

import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * A token cell that knows its token's domain ({@link TokenDomains}). The cell, not a copy of the number, is what a
 * binding shares with everything that carries it (the agent's tasks, context propagation), so the domain travels
 * with the token wherever it goes. The value follows {@link TokenCells}: the token while live, its negation once
 * revoked.
 */
public class TokenCell extends AtomicLong {

    private static final long serialVersionUID = 1L;

    private final String domain;
    private final @Nullable String origin;

    public TokenCell(String domain, long token) {
        this(domain, token, null);
    }

    /**
     * A cell whose token was drawn from the counter of one database, {@code origin} (see
     * {@link dev.fenced.internal.pg.DatabaseOrigin}); null when the counter is not one database's (or not known).
     */
    public TokenCell(String domain, long token, @Nullable String origin) {
        super(token);
        if (token <= 0) {
            throw new IllegalArgumentException("a fencing token must be positive, got " + token);
        }
        this.domain = TokenDomains.check(domain);
        this.origin = origin;
    }

    /**
     * The domain of this cell's token. Public and named so, because a driver loaded by another class loader reads
     * it by name (see {@link TokenCells#domainOf}).
     */
    public final String tokenDomain() {
        return domain;
    }

    /**
     * The database whose counter drew this token, or null. Public and named so for the same reason as
     * {@link #tokenDomain}.
     */
    public final @Nullable String tokenOrigin() {
        return origin;
    }
}
