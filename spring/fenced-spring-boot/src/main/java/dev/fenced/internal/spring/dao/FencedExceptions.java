package dev.fenced.internal.spring.dao;

import dev.fenced.LeaseLostException;
import dev.fenced.StaleTokenException;
import dev.fenced.UnfencedWriteException;
import dev.fenced.UnsupportedStatementException;
import dev.fenced.spring.dao.FencedLeaseLostException;
import dev.fenced.spring.dao.FencedStaleWriteException;
import dev.fenced.spring.dao.FencedWriteRefusedException;
import java.sql.SQLException;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessException;

/**
 * Spring's view of fenced's refusals, one mapping for JdbcTemplate and JPA alike: finds a fenced exception in the
 * cause chain (Hibernate wraps the driver's in its own) and names it in Spring's data-access terms.
 */
public final class FencedExceptions {

    private FencedExceptions() {}

    /** The translation of {@code ex}, or null when no fenced refusal is in its cause chain. */
    public static @Nullable DataAccessException translate(@Nullable String task, @Nullable String sql, Throwable ex) {
        for (Throwable t = ex; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SQLException e) {
                DataAccessException translated = translateOne(task, sql, e);
                if (translated != null) {
                    return translated;
                }
                SQLException next = e.getNextException();
                if (next != null && next != e) {
                    translated = translateOne(task, sql, next);
                    if (translated != null) {
                        return translated;
                    }
                }
            }
        }
        return null;
    }

    private static @Nullable DataAccessException translateOne(
            @Nullable String task, @Nullable String sql, SQLException e) {
        String what = (task == null ? "" : task + "; ") + (sql == null ? "" : "SQL [" + sql + "]; ") + e.getMessage();
        if (e instanceof StaleTokenException stale) {
            return new FencedStaleWriteException(what, stale);
        }
        if (e instanceof LeaseLostException lost) {
            return new FencedLeaseLostException(what, lost);
        }
        if (e instanceof UnfencedWriteException || e instanceof UnsupportedStatementException) {
            return new FencedWriteRefusedException(what, e);
        }
        return null;
    }
}
