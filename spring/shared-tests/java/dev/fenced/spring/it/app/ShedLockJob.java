package dev.fenced.spring.it.app;

import dev.fenced.Fencing;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * A scheduled job under ShedLock's {@code @SchedulerLock}, with no LockProvider of the application's: the
 * starter's FencedLockProvider runs it under lease "shedlock-job", so its write to the protected table carries
 * the lease's token. Runs once, at start.
 */
@Component
public class ShedLockJob {

    private final JdbcTemplate jdbc;
    private final AtomicLong token = new AtomicLong(-1);
    private final CountDownLatch ran = new CountDownLatch(1);

    public ShedLockJob(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    @Scheduled(initialDelay = 0, fixedDelay = 86_400_000)
    @SchedulerLock(name = "shedlock-job", lockAtMostFor = "30s")
    public void run() {
        try {
            token.set(Fencing.currentToken().orElse(-1));
            jdbc.update("UPDATE totals SET amount = 501 WHERE restaurant_id = 5");
        } finally {
            ran.countDown();
        }
    }

    /** The token the run saw (-1: none), once it has run. */
    public long tokenOfTheRun() throws InterruptedException {
        if (!ran.await(60, java.util.concurrent.TimeUnit.SECONDS)) {
            throw new AssertionError("the scheduled job did not run within 60 s");
        }
        return token.get();
    }
}
