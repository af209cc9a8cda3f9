package dev.fenced.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReportTest {

    private static final long TOKEN = 8_796_093_022_208L; // timeline 1, sequence 0: 13 digits

    private static ModeResult result(Options.Mode mode, long wrong, long staleAttempted, long refused) {
        ModeResult r = new ModeResult(mode);
        r.runs = 1013;
        r.pauses = 13;
        r.staleAttempted = staleAttempted;
        r.staleRefusedByDatabase = refused;
        r.wrongTotals = wrong;
        r.lostOrders = wrong * 2;
        return r;
    }

    private static List<ModeResult> night() {
        return List.of(result(Options.Mode.LEASE, 9, 13, 0), result(Options.Mode.FENCED, 0, 13, 13));
    }

    @Test
    void theDecisiveRowComesFirstAndEveryRowHasALabel() {
        List<String> table = Report.table(night());
        assertTrue(table.get(0).contains("lease only") && table.get(0).contains("lease + fenced"), table.get(0));
        assertTrue(table.get(1).startsWith("totals left wrong"), table.get(1));
        assertTrue(table.get(1).matches(".*\\s9\\s+0$"), "wrong totals: 9 against 0: " + table.get(1));
        for (Report.Line line : Report.LINES) {
            assertFalse(line.label().isBlank());
        }
        int width = table.get(0).length();
        for (String row : table) {
            assertEquals(width, row.length(), "columns line up: " + row);
        }
    }

    @Test
    void failedRenewalsAreExplained() {
        assertTrue(Report.LINES.stream().anyMatch(l -> l.label().contains("renewals that failed (no answer in time")));
        assertTrue(String.join(" ", Report.NOTES).contains("Renewals fail when a frozen holder"));
    }

    @Test
    void theSentenceNamesBothModes() {
        assertEquals(
                "lease only: 9 totals corrupted; lease + fenced: 0 totals corrupted, 13 stale writes refused",
                Report.sentence(night()));
    }

    @Test
    void theIntroductionIsFiveLinesAndTokensAreExplainedOnce() {
        Options o = Options.parse();
        List<String> intro = DemoMain.introduction(o);
        assertEquals(5, intro.size());
        assertTrue(intro.get(0).contains("Lease vs lock vs fencing token"));
        assertTrue(intro.get(2).contains("2% of the holders freeze for 45 s"), intro.get(2));
        assertTrue(String.join(" ", DemoMain.TOKENS).contains("13 digits"));
        for (String line : intro) {
            assertFalse(line.contains("seed"), "the article is cited by its title: " + line);
        }
    }

    private static Incident overwritten() {
        long t = 1_000_000;
        return new Incident(
                Options.Mode.LEASE,
                417,
                61_230,
                58_900,
                List.of(
                        new Incident.Holder(
                                TOKEN + 5,
                                "worker-3",
                                t,
                                t + 200,
                                t + 1100,
                                t + 1100,
                                t + 1120,
                                "written",
                                "before-write",
                                58_900),
                        new Incident.Holder(
                                TOKEN + 9,
                                "worker-9",
                                t + 800,
                                null,
                                null,
                                t + 1000,
                                t + 1010,
                                "written",
                                "none",
                                61_230)));
    }

    @Test
    void anIncidentTellsItsStoryInTheArticlesSeconds() {
        Incident i = overwritten();
        assertEquals(
                "restaurant 417 should total 61,230 (the sum of its orders); the table holds 58,900: WRONG by 2,330",
                i.headline());
        List<String> story = i.story(Options.parse()); // 20 ms a second
        assertEquals(
                List.of(
                        "    0 s  worker-3 (token 8796093022213) takes the lease and counts the orders: 58,900",
                        "   10 s  worker-3 checks its lease (still valid) and freezes before writing (GC pause)",
                        "   40 s  worker-3's lease expires while it is frozen; worker-9 is granted it",
                        "   40 s  worker-9 (token 8796093022217) takes the lease and counts the orders: 61,230",
                        "   50 s  worker-9 writes 61,230",
                        "   55 s  worker-3 wakes and writes 58,900 over the newer total: the write LANDS"),
                story);
    }

    @Test
    void theHtmlReportShowsEveryModeAndWritesItsPictures(@TempDir Path dir) throws Exception {
        List<ModeResult> results = night();
        results.get(0).incident = overwritten();
        Path html = HtmlReport.write(dir, results, Options.parse());
        String page = Files.readString(html);
        assertTrue(page.contains("<svg"), "the picture is inline");
        assertTrue(page.contains("WRONG by 2,330"));
        assertTrue(page.contains("No frozen holder met a newer holder"), "the fenced mode without an incident says so");
        assertTrue(Files.readString(dir.resolve("lease.svg")).contains("viewBox"), "the SVG scales in the page");
        assertTrue(Files.readString(dir.resolve("nightly-totals.svg")).contains("<svg y='0' "), "the modes in one");
    }

    @Test
    void progressPrintsLinesWhenNotOnATerminal() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        Progress p = new Progress(new PrintStream(bytes, true, StandardCharsets.UTF_8), false);
        for (int done = 0; done <= 100; done += 5) {
            p.show("lease", done, 100, done);
        }
        p.finish();
        String out = bytes.toString(StandardCharsets.UTF_8);
        assertFalse(out.contains("\r"));
        assertEquals(5, out.lines().count(), "0, 25, 50, 75 and 100%: " + out);
    }
}
