package dev.fenced.it.support;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * The attack ITs' common loop: every form run as a plain and as a prepared statement, every problem collected, and
 * one failure listing them all (a first failure alone would hide how many forms are wrong).
 */
public final class EachForm {

    /** One form's attack: null when it held, else what went wrong. */
    @FunctionalInterface
    public interface Attack {
        String wrong(String sql, boolean prepared) throws SQLException;
    }

    private EachForm() {}

    /** Runs {@code attack} on each form, plain ({@code ST}) and prepared ({@code PS}); fails listing the problems. */
    public static void holds(Iterable<String> forms, Attack attack) throws SQLException {
        List<String> problems = new ArrayList<>();
        for (String sql : forms) {
            for (boolean prepared : new boolean[] {false, true}) {
                String wrong = attack.wrong(sql, prepared);
                if (wrong != null) {
                    problems.add((prepared ? "PS " : "ST ") + sql + "\n    " + wrong);
                }
            }
        }
        assertTrue(problems.isEmpty(), problems.size() + " problems:\n" + String.join("\n", problems));
    }
}
