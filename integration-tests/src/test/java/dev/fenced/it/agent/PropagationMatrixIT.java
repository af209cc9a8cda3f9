package dev.fenced.it.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.it.support.ChildJvm;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The propagation matrix: hand-over kind x submitter state (token / none / unfenced) x what the task saw, from a
 * child JVM with the agent ({@link MatrixMain}). The rule: a task runs with exactly the submitter's state, except
 * that an unfenced section is never handed over (its tasks carry no token). The matrix is written to
 * {@code target/propagation-matrix.md}; docs/agent.md holds the same table, which this test compares.
 */
@Tag("jvm-sensitive")
class PropagationMatrixIT {

    private static final Path AGENT_DOC = Path.of("../docs/agent.md");
    private static final String BEGIN = "<!-- propagation-matrix: begin";
    private static final String END = "<!-- propagation-matrix: end -->";

    /** What a task handed over from {@code state} must see. */
    static String expected(String state) {
        return state.equals("token") ? Long.toString(MatrixMain.TOKEN) : "none";
    }

    @Test
    void everyHandOverRunsWithExactlyTheSubmittersStateAndRestoresTheWorker() throws Exception {
        Map<String, Map<String, String>> cells = new LinkedHashMap<>();
        List<String> mainAfter;
        try (ChildJvm child = AgentChild.start("", List.of(), MatrixMain.class)) {
            assertEquals(0, child.await(Duration.ofSeconds(120)), () -> "stderr: " + child.stderr());
            for (String l : child.lines("cell ")) {
                String[] p = l.split(" ");
                cells.computeIfAbsent(p[0].replace('_', ' '), k -> new LinkedHashMap<>())
                        .put(p[1], p[2]);
            }
            mainAfter = child.lines("main-after ");
        }
        String table = table(cells);
        Path out =
                Path.of("target", "propagation-matrix-java" + Runtime.version().feature() + ".md");
        Files.writeString(out, table, StandardCharsets.UTF_8);

        List<String> wrong = new ArrayList<>();
        if (!mainAfter.equals(List.of("none"))) {
            wrong.add("the submitting thread, after all hand-overs (it joined and helped): " + mainAfter);
        }
        cells.forEach((kind, byState) -> MatrixMain.STATES.forEach(s -> {
            if (!expected(s).equals(byState.get(s))) {
                wrong.add(kind + " / " + s + ": saw " + byState.get(s) + ", expected " + expected(s));
            }
        }));
        assertTrue(wrong.isEmpty(), () -> "cells that break the rule:\n" + String.join("\n", wrong) + "\n" + table);

        if (Runtime.version().feature() >= 21) {
            // docs/agent.md shows the Java 21+ matrix; Java 17 has the same rows but the virtual-thread ones.
            assertEquals(
                    table.strip(),
                    readmeTable().strip(),
                    "docs/agent.md's propagation matrix differs from the tested one (" + out.toAbsolutePath() + ")");
        } else {
            List<String> readmeRows = readmeTable().lines().toList();
            List<String> missing =
                    table.lines().filter(l -> !readmeRows.contains(l)).toList();
            assertEquals(List.of(), missing, "rows missing from docs/agent.md's propagation matrix");
        }
    }

    static String table(Map<String, Map<String, String>> cells) {
        StringBuilder b = new StringBuilder(
                "| hand-over | submitter has token 42 | submitter has none | inside `Fencing.unfenced` |\n");
        b.append("|---|---|---|---|\n");
        cells.forEach((kind, byState) -> {
            b.append("| ").append(kind);
            for (String s : MatrixMain.STATES) {
                b.append(" | ").append(byState.get(s));
            }
            b.append(" |\n");
        });
        return b.toString();
    }

    private static String readmeTable() throws Exception {
        String readme = Files.readString(AGENT_DOC, StandardCharsets.UTF_8);
        int begin = readme.indexOf(BEGIN);
        int end = readme.indexOf(END);
        assertTrue(begin >= 0 && end > begin, "docs/agent.md has no propagation matrix markers");
        String inside = readme.substring(readme.indexOf('\n', begin) + 1, end);
        return inside;
    }
}
