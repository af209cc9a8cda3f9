package dev.fenced.internal.sql;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SettingChangesTest {

    private static final String S = "standard_conforming_strings";

    @ParameterizedTest
    @ValueSource(
            strings = {
                "SET standard_conforming_strings = off",
                "set standard_conforming_strings to false",
                "SET LOCAL standard_conforming_strings = 0",
                "SET SESSION \"standard_conforming_strings\" TO 'off'",
                "SELECT set_config('standard_conforming_strings', 'off', false)",
                "SELECT set_config(E'standard\\137conforming_strings', 'off', false)",
                "SELECT set_config(?, 'off', false)",
                "SELECT set_config(U&'standard\\005fconforming_strings', 'off', false)",
                "ALTER ROLE r SET standard_conforming_strings = off",
                "DO $$ BEGIN PERFORM set_config(E'x', 'off', false); END $$",
                "CREATE FUNCTION f() RETURNS void LANGUAGE sql SET standard_conforming_strings = off AS $$ SELECT 1 $$",
                "SET standard_conforming_strings = on; SET standard_conforming_strings = off",
            })
    void aChangeThatCouldTurnItOffIsFound(String sql) {
        assertNotNull(SettingChanges.turnsOff(sql, S), sql);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "SHOW standard_conforming_strings",
                "SET standard_conforming_strings = on",
                "RESET standard_conforming_strings",
                "SELECT current_setting('standard_conforming_strings')",
                "SELECT set_config('search_path', 'x', false)",
                "UPDATE t SET v = 'conforming'",
                "SET standard_conforming_strings TO on;",
            })
    void harmlessMentionsPass(String sql) {
        assertNull(SettingChanges.turnsOff(sql, S), sql);
    }
}
