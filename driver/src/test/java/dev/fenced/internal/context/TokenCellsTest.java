package dev.fenced.internal.context;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.net.URL;
import java.net.URLClassLoader;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The token's domain is read from its cell, also from a cell a copy of the driver in another class loader made. */
class TokenCellsTest {

    @Test
    void aCellSaysItsDomain() {
        assertEquals("etcd", TokenCells.domainOf(TokenCells.live("etcd", 5)));
        assertEquals("etcd", TokenCells.domainOf(TokenCells.lost("etcd", 5)), "a revoked cell keeps its domain");
    }

    @Test
    void aPlainCellIsFencedsOwn() {
        // a cell of a driver from before token domains: every token then was of fenced's own domain
        assertEquals(TokenDomains.FENCED, TokenCells.domainOf(new AtomicLong(5)));
    }

    @Test
    void aCellOfADriverCopyInAnotherClassLoaderIsAskedByName() throws Exception {
        URL driverClasses =
                TokenCell.class.getProtectionDomain().getCodeSource().getLocation();
        try (URLClassLoader childFirst =
                new URLClassLoader(new URL[] {driverClasses}, ClassLoader.getPlatformClassLoader())) {
            Class<?> foreign = childFirst.loadClass(TokenCell.class.getName());
            assertNotSame(TokenCell.class, foreign);
            AtomicLong cell = (AtomicLong)
                    foreign.getConstructor(String.class, long.class).newInstance("zookeeper", 7L);
            assertEquals("zookeeper", TokenCells.domainOf(cell));
            assertEquals(null, TokenCells.originOf(cell));
            AtomicLong drawn = (AtomicLong) foreign.getConstructor(String.class, long.class, String.class)
                    .newInstance("fenced", 7L, "pg:1/2");
            assertEquals("pg:1/2", TokenCells.originOf(drawn), "the database a foreign lease's token was drawn in");
        }
    }

    @Test
    void aCellSaysWhichDatabaseDrewItsTokenWhenOneDid() {
        assertEquals("pg:42/16384", TokenCells.originOf(new TokenCell("fenced", 5, "pg:42/16384")));
        assertEquals(null, TokenCells.originOf(TokenCells.live("fenced", 5)), "a token bound by number");
        assertEquals(null, TokenCells.originOf(new AtomicLong(5)), "a cell of a driver from before origins");
    }

    @Test
    void domainNamesAreCheckedExactly() {
        for (String bad : new String[] {"", "Etcd", "-etcd", "etcd cluster", "é", "x".repeat(64)}) {
            assertThrows(IllegalArgumentException.class, () -> TokenDomains.check(bad), bad);
        }
        assertEquals("etcd:cluster-eu", TokenDomains.check("etcd:cluster-eu"));
        assertThrows(IllegalArgumentException.class, () -> TokenCells.live("etcd", 0));
    }
}
