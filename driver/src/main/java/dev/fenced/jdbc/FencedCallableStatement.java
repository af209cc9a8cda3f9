package dev.fenced.jdbc;

import dev.fenced.jdbc.delegate.DelegatingCallableStatement;
import dev.fenced.sql.RewritePlan;
import java.sql.CallableStatement;

/**
 * Calls run as written (a call that writes a protected table is refused when it is prepared): this
 * wrapper only keeps {@code getConnection()} and result sets pointing at fenced objects.
 */
public final class FencedCallableStatement extends DelegatingCallableStatement {

    FencedCallableStatement(FencedConnection owner, CallableStatement callable) {
        super(owner, callable, RewritePlan.PASSTHROUGH);
    }
}
