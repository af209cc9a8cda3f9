package dev.fenced;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.internal.jdbc.ConnectionFactory;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;

/** Driver etiquette, without a database: URL handling and errors raised before any connection attempt. */
class FencedDriverTest {

    private final FencedDriver driver = new FencedDriver();

    @Test
    void acceptsOnlyFencedPostgresUrls() {
        assertTrue(driver.acceptsURL("jdbc:fenced:postgresql://localhost/db"));
        assertTrue(driver.acceptsURL("jdbc:fenced:postgresql:db"));
        assertFalse(driver.acceptsURL("jdbc:postgresql://localhost/db"));
        assertFalse(driver.acceptsURL("jdbc:fenced:mysql://localhost/db"));
        assertFalse(driver.acceptsURL(null));
    }

    @Test
    void connectReturnsNullForForeignUrls() throws SQLException {
        assertNull(driver.connect("jdbc:postgresql://localhost/db", new Properties()));
        assertNull(driver.connect("jdbc:h2:mem:x", new Properties()));
    }

    @Test
    void isFoundByServiceLoaderAndDriverManager() throws SQLException {
        boolean found = false;
        for (Driver d : ServiceLoader.load(Driver.class)) {
            found |= d instanceof FencedDriver;
        }
        assertTrue(found, "META-INF/services/java.sql.Driver lists dev.fenced.FencedDriver");
        assertInstanceOf(FencedDriver.class, DriverManager.getDriver("jdbc:fenced:postgresql://h/db"));
    }

    @Test
    void stripsThePrefixExactlyOnceAndKeepsForeignParameters() {
        assertEquals(
                "jdbc:postgresql://h:5432/db?user=u&ApplicationName=jdbc:fenced:x",
                ConnectionFactory.delegateUrl("jdbc:fenced:postgresql://h:5432/db?user=u&fenced.tables=a,b"
                        + "&ApplicationName=jdbc:fenced:x&fenced.mode=observe"));
        assertEquals(
                "jdbc:postgresql://h/db",
                ConnectionFactory.delegateUrl("jdbc:fenced:postgresql://h/db?fenced.tables=t"));
    }

    @Test
    void anUnknownFencedKeyIsAnErrorThatListsTheKnownOnes() {
        SQLException e = assertThrows(
                SQLException.class,
                () -> driver.connect("jdbc:fenced:postgresql://127.0.0.1:1/db?fenced.tabels=totals", new Properties()));
        assertEquals(FencingException.CONFIGURATION, e.getSQLState());
        assertTrue(e.getMessage().contains("fenced.tabels"), e.getMessage());
        assertTrue(e.getMessage().contains("did you mean fenced.tables?"), e.getMessage());
        assertTrue(e.getMessage().contains("fenced.mode"), e.getMessage());
    }

    @Test
    void aFencedUrlThatProtectsNothingIsRefusedBeforeConnectingNamingFencedTables() throws SQLException {
        // port 1: had fenced let it through, the connect itself would fail (08001), not the configuration
        SQLException e = assertThrows(
                SQLException.class, () -> driver.connect("jdbc:fenced:postgresql://127.0.0.1:1/db", new Properties()));
        assertEquals(FencingException.NOTHING_PROTECTED, e.getSQLState());
        assertTrue(e.getMessage().contains("fenced.tables is not set"), e.getMessage());
        assertTrue(e.getMessage().contains("fenced.mode=off"), e.getMessage());
        SQLException observe = assertThrows(
                SQLException.class,
                () -> driver.connect("jdbc:fenced:postgresql://127.0.0.1:1/db?fenced.mode=observe", new Properties()));
        assertEquals(FencingException.NOTHING_PROTECTED, observe.getSQLState());
        SQLException off = assertThrows(
                SQLException.class,
                () -> driver.connect("jdbc:fenced:postgresql://127.0.0.1:1/db?fenced.mode=off", new Properties()));
        assertFalse(FencingException.NOTHING_PROTECTED.equals(off.getSQLState()), off.getMessage());
    }

    @Test
    void aBadValueNamesTheKeyAndWhatWasExpected() {
        Properties p = new Properties();
        p.setProperty("fenced.mode", "strict");
        SQLException e = assertThrows(
                SQLException.class, () -> driver.connect("jdbc:fenced:postgresql://127.0.0.1:1/db?fenced.tables=t", p));
        assertTrue(
                e.getMessage()
                        .contains("fenced.mode in the connection properties: expected one of enforce,"
                                + " observe, off but got 'strict'"),
                e.getMessage());
    }

    @Test
    void propertyInfoDescribesEveryKey() throws SQLException {
        var info = driver.getPropertyInfo("jdbc:fenced:postgresql://h/db", new Properties());
        for (FencedProperty p : FencedProperty.values()) {
            boolean listed = false;
            for (var i : info) {
                listed |= i.name.equals(p.key()) && i.description != null;
            }
            assertTrue(listed, p.key());
        }
    }
}
