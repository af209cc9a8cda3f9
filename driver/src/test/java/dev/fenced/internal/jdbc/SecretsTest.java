package dev.fenced.internal.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.SQLException;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/** Error messages about URLs never carry the credentials in them. */
class SecretsTest {

    @Test
    void noDriverErrorsDoNotPrintThePassword() {
        SQLException e = assertThrows(
                SQLException.class,
                () -> DelegateDrivers.find("jdbc:nosuchdb://h/db?user=u&password=hunter2&sslpassword=s3cret"));
        assertFalse(e.getMessage().contains("hunter2"), e.getMessage());
        assertFalse(e.getMessage().contains("s3cret"), e.getMessage());
        assertTrue(e.getMessage().contains("user=u"), e.getMessage());
    }

    @Test
    void aDeclinedOrRefusedConnectDoesNotPrintThePassword() {
        Properties info = new Properties();
        info.setProperty("password", "hunter2");
        SQLException e = assertThrows(
                SQLException.class,
                () -> ConnectionFactory.open(
                        "jdbc:fenced:postgresql://127.0.0.1:1/db?user=u&password=hunter2&fenced.tables=t", info));
        assertFalse(e.getMessage().contains("hunter2"), e.getMessage());
        SQLException twice = assertThrows(
                SQLException.class,
                () -> ConnectionFactory.open(
                        "jdbc:fenced:postgresql://h/db?password=hunter2&fenced.tables=t&fenced.tables=u", info));
        assertFalse(twice.getMessage().contains("hunter2"), twice.getMessage());
    }

    @Test
    void everySecretLookingParameterIsMasked() {
        assertEquals(
                "jdbc:postgresql://h/db?user=u&password=***&sslpassword=***&x=1",
                Secrets.mask("jdbc:postgresql://h/db?user=u&password=p@ss&sslpassword=k&x=1"));
        assertEquals("jdbc:postgresql://h/db?PASSWORD=***", Secrets.mask("jdbc:postgresql://h/db?PASSWORD=x"));
        assertEquals("jdbc:postgresql://u:***@h/db", Secrets.mask("jdbc:postgresql://u:pw@h/db"));
        assertEquals("jdbc:postgresql://h/db", Secrets.mask("jdbc:postgresql://h/db"));
    }
}
