package dev.fenced.it.clients;

import dev.fenced.LeaseLostException;
import dev.fenced.StaleTokenException;
import dev.fenced.UnfencedWriteException;
import dev.fenced.UnsupportedStatementException;
import java.sql.SQLException;
import org.springframework.dao.ConcurrencyFailureException;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.InvalidDataAccessApiUsageException;
import org.springframework.dao.OptimisticLockingFailureException;
import org.springframework.jdbc.support.SQLExceptionSubclassTranslator;
import org.springframework.jdbc.support.SQLExceptionTranslator;

/**
 * The recipe docs/clients.md gives Spring users. Spring's default translator knows nothing of SQLState class
 * {@code FN}, so without this a stale write surfaces as {@code UncategorizedSQLException}. With it:
 * <ul>
 *   <li>{@link StaleTokenException} (FN001) becomes {@link OptimisticLockingFailureException}: someone
 *       newer changed the row, re-read before writing again (here: take the lease again);</li>
 *   <li>{@link LeaseLostException} (FN004) becomes {@link ConcurrencyFailureException};</li>
 *   <li>{@link UnfencedWriteException} (FN002) and {@link UnsupportedStatementException} (FN003) become
 *       {@link InvalidDataAccessApiUsageException}: the code, not the data, must change;</li>
 *   <li>everything else goes to Spring's own default, {@link SQLExceptionSubclassTranslator}.</li>
 * </ul>
 * A Spring Boot application declares it as a bean: Boot's auto-configured {@code JdbcTemplate} takes a
 * single {@code SQLExceptionTranslator} bean. Elsewhere: {@code jdbcTemplate.setExceptionTranslator(...)}.
 */
final class FencedExceptionTranslator implements SQLExceptionTranslator {

    private final SQLExceptionTranslator standard = new SQLExceptionSubclassTranslator();

    @Override
    public DataAccessException translate(String task, String sql, SQLException ex) {
        String message = task + (sql == null ? "" : " [" + sql + "]") + "; " + ex.getMessage();
        if (ex instanceof StaleTokenException) {
            return new OptimisticLockingFailureException(message, ex);
        }
        if (ex instanceof LeaseLostException) {
            return new ConcurrencyFailureException(message, ex);
        }
        if (ex instanceof UnfencedWriteException || ex instanceof UnsupportedStatementException) {
            return new InvalidDataAccessApiUsageException(message, ex);
        }
        return standard.translate(task, sql, ex);
    }
}
