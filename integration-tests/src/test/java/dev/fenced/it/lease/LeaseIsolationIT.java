package dev.fenced.it.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariDataSource;
import dev.fenced.Lease;
import dev.fenced.LeaseManager;
import dev.fenced.it.support.FencedTestExtension;
import dev.fenced.it.support.TestDatabase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Pools whose sessions default to REPEATABLE READ or SERIALIZABLE: racing grants of one name (a fresh
 * insert, and a takeover of a released row) answer "busy" to all but one, never a serialization failure.
 */
@Tag("server-sensitive")
class LeaseIsolationIT {

    @ParameterizedTest
    @ValueSource(strings = {"repeatable read", "serializable"})
    void racingGrantsAnswerBusyUnderStricterIsolation(String level) throws Exception {
        race(level, true, 6, 30);
    }

    /**
     * The pool hands out connections with autocommit off and the DataSource's default isolation SERIALIZABLE, and
     * twelve grants race for one name: before the retries backed off, eight attempts back to back could all fail
     * to serialize and the grant threw 40001 instead of answering busy.
     */
    @ParameterizedTest
    @ValueSource(strings = {"serializable"})
    void racingGrantsWithAutocommitOffAnswerBusy(String level) throws Exception {
        race(level, false, 12, 40);
    }

    private static void race(String level, boolean autoCommit, int racers, int rounds) throws Exception {
        TestDatabase db = TestDatabase.create();
        db.execute("ALTER DATABASE " + db.name() + " SET default_transaction_isolation = '" + level + "'");
        ExecutorService threads = Executors.newFixedThreadPool(racers);
        List<LeaseManager> managers = new ArrayList<>();
        try (HikariDataSource pool = DataSources.pool(db, racers, autoCommit)) {
            for (int i = 0; i < racers; i++) {
                managers.add(LeaseManager.create(pool));
            }
            managers.get(0)
                    .tryAcquire("warm-up", Duration.ofSeconds(30))
                    .orElseThrow()
                    .close();
            try (var c = pool.getConnection();
                    var st = c.createStatement();
                    var rs = st.executeQuery("SHOW transaction_isolation")) {
                rs.next();
                assertEquals(level, rs.getString(1));
            }
            CyclicBarrier start = new CyclicBarrier(racers);
            List<String> failures = new ArrayList<>();
            for (int round = 0; round < rounds; round++) {
                String name = "race-" + (round % 2 == 0 ? round : round - 1); // odd rounds take over a released row
                List<Future<Optional<Lease>>> results = new ArrayList<>();
                for (LeaseManager m : managers) {
                    results.add(threads.submit(() -> {
                        start.await();
                        try {
                            return m.tryAcquire(name, Duration.ofSeconds(30));
                        } finally {
                            FencedTestExtension.unbind();
                        }
                    }));
                }
                List<Lease> winners = new ArrayList<>();
                for (Future<Optional<Lease>> r : results) {
                    try {
                        r.get(30, TimeUnit.SECONDS).ifPresent(winners::add);
                    } catch (java.util.concurrent.ExecutionException e) {
                        failures.add(e.getCause().toString());
                    }
                }
                assertTrue(winners.size() <= 1, winners + " won round " + round);
                winners.forEach(Lease::close); // only once every racer has answered
            }
            assertTrue(failures.isEmpty(), failures.size() + " grants failed instead of answering busy: " + failures);
        } finally {
            threads.shutdownNow();
            managers.forEach(LeaseManager::close);
        }
    }
}
