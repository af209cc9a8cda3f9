package dev.fenced.example.nightly;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.example.nightly.scenario.Scenario;
import dev.fenced.example.nightly.scenario.ScenarioResult;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The one command docs/spring-boot.md gives for it, run by the build: two instances of the repackaged service jar against one PostgreSQL
 * (embedded, or FENCED_TEST_JDBC_URL's server), the lock holder frozen with SIGSTOP while its first write is on
 * the wire, resumed with SIGCONT once the other instance has finished the night. Every fact is read from outside
 * the instances: their Actuator metrics over HTTP and the database.
 */
class NightlyScenarioIT {

    @Test
    void theFrozenHoldersLateWriteIsRefusedAndTheTotalsAreTheNewHolders() throws Exception {
        Path jar = Path.of(System.getProperty("example.jar", "target/fenced-example-spring-boot-nightly.jar"));
        assertTrue(Files.isRegularFile(jar), "package the service first (mvn verify does): " + jar);
        Scenario.Options defaults = Scenario.Options.defaults(jar);
        Scenario.Options options = new Scenario.Options(
                jar,
                System.getenv("FENCED_TEST_JDBC_URL"),
                200,
                defaults.ordersEach(),
                defaults.ordersArriving(),
                defaults.lockAtMostFor(),
                "enforce",
                Path.of("target", "scenario-logs"),
                defaults.timeout());

        ByteArrayOutputStream story = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(story, true, StandardCharsets.UTF_8);
        ScenarioResult r = Scenario.run(options, out);
        r.print(out);
        String told = story.toString(StandardCharsets.UTF_8);
        System.out.println(told);

        // the held write reached PostgreSQL after B's and was refused there, by the token, and counted on A
        assertEquals(1, r.aStale(), told);
        assertEquals(0, r.aLeaseLost(), "refused by the database, not before sending: " + told);
        assertEquals(1, r.aRefusedRuns(), "A's job saw the refusal and stopped: " + told);
        assertEquals(0, r.aCompletedRuns(), "A never finished a night: " + told);
        assertTrue(r.lockAgeMs() > r.lockAtMostForMs(), "A was resumed after its lock ran out: " + told);

        // B took over after A's lock ran out (A was frozen until B had finished), once, and counted the orders that
        // arrived during the freeze
        assertNotNull(r.night(), told);
        assertEquals(r.b(), r.night().instance(), told);
        assertTrue(r.bToken() > r.aToken(), "B's token is newer: " + told);
        assertEquals(1, r.bCompletedRuns(), told);
        assertEquals(1, r.runs(), "one run recorded for the night: " + told);
        assertEquals(0, r.bStale(), told);
        assertEquals(r.ordersBefore() + r.ordersArrived(), r.night().orders(), told);

        // the table: every total B's, and right
        assertEquals(200, r.totals(), told);
        assertEquals(0, r.wrongTotals(), told);
        assertEquals(0, r.totalsNotB(), told);
        assertTrue(r.fenceHeld(), told);
        assertTrue(told.contains("The fence held"), told);
    }
}
