package dev.fenced.internal.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ArgsTest {

    private static final List<Option> KNOWN =
            List.of(Option.URL, Option.TABLES, Option.CONFIG, Option.FORMAT, CheckCommand.MIGRATION, Option.HELP);

    @Test
    void optionsFencedKeysAndArguments() throws CliException {
        Args a = Args.parse(
                "check",
                List.of(
                        "--url=jdbc:postgresql://h/d",
                        "--tables",
                        "a,b",
                        "-Dfenced.mode=observe",
                        "--fenced.column",
                        "tok",
                        "--migration",
                        "flyway",
                        "out",
                        "--",
                        "--not-an-option"),
                KNOWN);
        assertEquals("jdbc:postgresql://h/d", a.value(Option.URL));
        assertEquals(Map.of("fenced.tables", "a,b", "fenced.mode", "observe", "fenced.column", "tok"), a.fencedKeys());
        assertEquals(List.of("flyway", "out"), a.values(CheckCommand.MIGRATION));
        assertEquals(List.of("--not-an-option"), a.arguments());
    }

    @Test
    void badUsageIsExitTwo() {
        for (List<String> argv : List.of(
                List.of("--nope"),
                List.of("--url"),
                List.of("--url", "a", "--url", "b"),
                List.of("--tables", "a", "--fenced.tables=b"),
                List.of("--migration", "flyway"),
                List.of("--migration=flyway"),
                List.of("-Dfenced.mode"),
                List.of("--help=yes"))) {
            CliException e = assertThrows(CliException.class, () -> Args.parse("check", argv, KNOWN), argv::toString);
            assertEquals(2, e.exitStatus(), argv::toString);
        }
    }
}
