package dev.fenced.spring.dao;

import dev.fenced.internal.spring.dao.FencedExceptions;
import java.sql.SQLException;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.support.SQLExceptionTranslator;

/** Decorates the translator a JdbcTemplate already has: fenced's refusals first, everything else to it. */
public final class FencedSQLExceptionTranslator implements SQLExceptionTranslator {

    private final SQLExceptionTranslator delegate;

    public FencedSQLExceptionTranslator(SQLExceptionTranslator delegate) {
        this.delegate = delegate;
    }

    @Override
    public @Nullable DataAccessException translate(String task, @Nullable String sql, SQLException ex) {
        DataAccessException fenced = FencedExceptions.translate(task, sql, ex);
        return fenced != null ? fenced : delegate == null ? null : delegate.translate(task, sql, ex);
    }

    /** The translator this one decorates. */
    public SQLExceptionTranslator delegate() {
        return delegate;
    }
}
