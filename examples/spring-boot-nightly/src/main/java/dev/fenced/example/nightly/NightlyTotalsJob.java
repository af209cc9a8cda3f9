package dev.fenced.example.nightly;

import dev.fenced.Fencing;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.dao.ConcurrencyFailureException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The nightly job: for each restaurant, the sum of its orders written to {@code totals} (a protected table), and
 * the night recorded in {@code nightly_runs}, in one transaction. It fires on {@code nightly.cron} on every
 * instance; the lock lets one of them in, and a night already recorded is not run again (so a schedule that fires
 * often, to catch up after a failed run, still runs the job once a night).
 *
 * <p>While the lock is held, its fencing token is bound to this thread, and every {@code totals} write carries it.
 * If this instance lost the lock (it froze past {@code lockAtMostFor} and another instance took over), its writes
 * are refused: by the driver when it can see the lease has run out, and otherwise by PostgreSQL, because the newer
 * holder's token is already on the rows. Spring sees either as a {@link ConcurrencyFailureException}
 * ({@code FencedStaleWriteException}, {@code FencedLeaseLostException}); the transaction rolls back and the job
 * stops, as the seed says a refused holder must.
 */
@Component
public class NightlyTotalsJob {

    private static final Logger log = LoggerFactory.getLogger(NightlyTotalsJob.class);

    private final JdbcTemplate jdbc;
    private final TransactionTemplate transactions;
    private final MeterRegistry meters;
    private final String instance;

    public NightlyTotalsJob(
            JdbcTemplate jdbc,
            TransactionTemplate transactions,
            MeterRegistry meters,
            @Value("${nightly.instance}") String instance) {
        this.jdbc = jdbc;
        this.transactions = transactions;
        this.meters = meters;
        this.instance = instance;
    }

    @Scheduled(cron = "${nightly.cron}")
    @SchedulerLock(name = "nightly-totals", lockAtMostFor = "${nightly.lock-at-most-for}")
    public void run() {
        long token = Fencing.currentToken().orElseThrow(() -> new IllegalStateException("no lock token bound"));
        String outcome;
        try {
            outcome = transactions.execute(tx -> runNight(token));
        } catch (ConcurrencyFailureException refused) {
            log.warn("nightly totals: lost the lock (token {}), nothing written: {}", token, refused.getMessage());
            outcome = "refused";
        }
        meters.counter("nightly.runs", "outcome", outcome).increment();
    }

    private String runNight(long token) {
        Integer done =
                jdbc.queryForObject("SELECT count(*) FROM nightly_runs WHERE night = current_date", Integer.class);
        if (done != null && done > 0) {
            return "skipped";
        }
        List<long[]> totals = jdbc.query("""
                SELECT t.restaurant_id, coalesce(sum(o.amount), 0), count(o.order_id)
                  FROM totals t LEFT JOIN orders o ON o.restaurant_id = t.restaurant_id
                 GROUP BY t.restaurant_id ORDER BY t.restaurant_id""", (rs, i) -> new long[] {rs.getLong(1), rs.getLong(2), rs.getLong(3)});
        long orders = 0;
        for (long[] t : totals) {
            // a whole new value, never amount + x: a stale write that lands first is then simply replaced
            jdbc.update("UPDATE totals SET amount = ? WHERE restaurant_id = ?", t[1], t[0]);
            orders += t[2];
        }
        jdbc.update(
                "INSERT INTO nightly_runs (night, instance, token, restaurants, orders) VALUES (current_date, ?, ?, ?, ?)",
                instance,
                token,
                totals.size(),
                orders);
        log.info("nightly totals: {} restaurants, {} orders, token {}", totals.size(), orders, token);
        return "completed";
    }
}
