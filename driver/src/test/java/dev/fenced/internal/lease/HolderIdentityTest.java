package dev.fenced.internal.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The default holder name: {@code host:pid:random}. */
class HolderIdentityTest {

    @Test
    void namesHostPidAndTwelveHexDigits() {
        String id = HolderIdentity.generate();
        int last = id.lastIndexOf(':');
        int pid = id.lastIndexOf(':', last - 1);
        assertTrue(pid > 0, () -> "a host before the pid: " + id);
        assertEquals(Long.toString(ProcessHandle.current().pid()), id.substring(pid + 1, last), id);
        assertTrue(id.substring(last + 1).matches("[0-9a-f]{12}"), id);
    }

    @Test
    void twoManagersInOneProcessGetDifferentNames() {
        // renewal and release only touch rows whose holder matches: two managers must never share one
        assertNotEquals(HolderIdentity.generate(), HolderIdentity.generate());
    }
}
