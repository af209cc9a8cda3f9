package dev.fenced.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class OptionsTest {

    @Test
    void defaultsFollowTheArticle() {
        Options o = Options.parse();
        assertEquals(1000, o.restaurants);
        assertEquals(Duration.ofMillis(600), o.scaled(o.lease));
        assertEquals(Duration.ofMillis(200), o.scaled(o.renew));
        assertEquals(0.01, o.slowRate);
        assertEquals(List.of(Options.Mode.LEASE, Options.Mode.FENCED), o.modes);
    }

    @Test
    void optionsParseInBothForms() {
        Options o =
                Options.parse("--restaurants", "50", "--modes=lease,fenced,lease-no-renew", "--article-second=10ms");
        assertEquals(50, o.restaurants);
        assertEquals(3, o.modes.size());
        assertEquals(Duration.ofMillis(300), o.scaled(o.lease));
    }

    @Test
    void theOldNameOfTheArticleSecondStillWorks() {
        assertEquals(
                Duration.ofMillis(150), Options.parse("--seed-second", "5ms").scaled(30));
        assertEquals(Duration.ofMillis(150), Options.parse("--seed-second=5").scaled(30));
        assertTrue(
                Options.helpText().contains("--seed-second is an old name"),
                "help names the alias once, in --article-second's line");
    }

    @Test
    void theReportIsDrawnByDefaultAndNoneTurnsItOff() {
        assertNull(Options.parse().report, "null: the default directory");
        assertEquals(Options.NO_REPORT, Options.parse("--report", "none").report);
        assertEquals("out/pics", Options.parse("--report=out/pics").report);
    }

    @Test
    void workerProcessesGetTheArticleSecondUnderItsNewName() {
        Options o = Options.parse("--article-second", "7ms");
        assertTrue(o.workerArgs().contains("--article-second=7ms"));
        assertEquals(Duration.ofMillis(7), Options.parse(o.workerArgs().toArray(String[]::new)).articleSecond);
    }

    @Test
    void badOptionsSayWhatIsWrong() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Options.parse("--article-second", "0ms"))
                .getMessage()
                .contains("at least 1 ms"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Options.parse("--restarants", "5"))
                .getMessage()
                .contains("unknown option --restarants"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Options.parse("--renew", "40"))
                .getMessage()
                .contains("--renew must be shorter than --lease"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Options.parse("--modes", "both"))
                .getMessage()
                .contains("unknown mode 'both'"));
        assertThrows(IllegalArgumentException.class, () -> Options.parse("--jdbc-url", "jdbc:mysql://x"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Options.parse("--databases", "3"))
                .getMessage()
                .contains("--databases is 1 or 2"));
        assertEquals(2, Options.parse("--databases", "2").databases);
        assertTrue(Options.parse("--databases=2").workerArgs().contains("--databases=2"), "worker JVMs write both");
    }

    @Test
    void helpListsEveryOptionWithItsDefault() {
        String help = Options.helpText();
        for (String option : List.of(
                "--restaurants",
                "--workers",
                "--processes",
                "--databases",
                "--modes",
                "--article-second",
                "--lease",
                "--renew",
                "--run",
                "--slow-rate",
                "--slow-run",
                "--pause-rate",
                "--pause",
                "--orders-per-second",
                "--random-seed",
                "--jdbc-url",
                "--timeline",
                "--report",
                "--quick",
                "--help")) {
            assertTrue(help.contains(option), option);
        }
        assertTrue(help.contains("(default 1000)"));
    }

    @Test
    void runPlansAreTheSameForEveryMode() {
        Options o = Options.parse("--pause-rate", "0.5");
        for (int r = 1; r <= 50; r++) {
            assertEquals(RunPlan.of(o, r, 1), RunPlan.of(o, r, 1));
            assertEquals(RunPlan.Freeze.NONE, RunPlan.of(o, r, 2).freeze(), "only a first holder freezes");
        }
    }
}
