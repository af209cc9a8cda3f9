package dev.fenced.internal.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * With SLF4J and a provider on the class path (slf4j-simple here, which writes to System.err), fenced's records go
 * to SLF4J: one line per event, parameters formatted, levels mapped.
 */
class LogsTest {

    @Test
    void recordsGoToSlf4jOneLineEach() {
        assertTrue(Logs.throughSlf4j(), "slf4j-simple is on the test class path");
        PrintStream before = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            System.Logger log = Logs.get("dev.fenced.logstest");
            log.log(System.Logger.Level.WARNING, "fenced: lost lease ''{0}'' (token {1})", "nightly", 42);
            log.log(System.Logger.Level.DEBUG, "fenced: not shown at slf4j-simple's default level");
        } finally {
            System.setErr(before);
        }
        List<String> lines = captured.toString(StandardCharsets.UTF_8).lines().toList();
        assertEquals(1, lines.size(), () -> "one line per event: " + lines);
        assertTrue(
                lines.get(0).contains("WARN dev.fenced.logstest - fenced: lost lease 'nightly' (token 42)"),
                lines::toString);
        assertFalse(Logs.get("dev.fenced.logstest").isLoggable(System.Logger.Level.DEBUG));
    }
}
