package dev.fenced.internal.context;

import java.util.concurrent.atomic.AtomicLong;

/**
 * A token cell that knows its token's domain ({@link TokenDomains}). The cell, not a copy of the number, is what a
 * binding shares with everything that carries it (the agent's tasks, context propagation), so the domain travels
 * with the token wherever it goes. The value follows {@link TokenCells}: the token while live, its negation once
 * revoked.
 */
public class TokenCell extends AtomicLong {

    private static final long serialVersionUID = 1L;

    private final String domain;

    public TokenCell(String domain, long token) {
        super(token);
        if (token <= 0) {
            throw new IllegalArgumentException("a fencing token must be positive, got " + token);
        }
        this.domain = TokenDomains.check(domain);
    }

    /**
     * The domain of this cell's token. Public and named so, because a driver loaded by another class loader reads
     * it by name (see {@link TokenCells#domainOf}).
     */
    public final String tokenDomain() {
        return domain;
    }
}
