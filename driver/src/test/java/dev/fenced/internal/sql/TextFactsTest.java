package dev.fenced.internal.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.fenced.internal.config.TableName;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The write targets the unknown-name lookup asks the server about, each with its schema as written. */
class TextFactsTest {

    private static List<String> targets(String sql) {
        return TextFacts.writeTargetNames(sql).stream().map(TableName::toString).toList();
    }

    @Test
    void everyNameOfATruncateListIsATarget() {
        assertEquals(List.of("a", "s.b", "c", "\"D\""), targets("TRUNCATE TABLE a, s.b, ONLY c, \"D\" CASCADE"));
        assertEquals(List.of("b"), TextFacts.writeTargets("truncate s . b"));
    }

    @Test
    void writeTargetsKeepTheirSchema() {
        assertEquals(
                List.of("app.t", "u", "\"My Schema\".v"),
                targets("INSERT INTO app.t VALUES (1);" + " UPDATE ONLY u SET x = 1; DELETE FROM \"My Schema\".v"));
        assertEquals(List.of("t"), targets("WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d"));
        assertEquals(List.of(), targets("SELECT * FROM t FOR UPDATE"));
    }
}
