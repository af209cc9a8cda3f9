package dev.fenced.lease.etcd;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.etcd.jetcd.Lease;
import java.lang.reflect.Proxy;
import org.junit.jupiter.api.Test;

/**
 * The keep-alive stub is jetcd 0.8.5's, read from its lease client: a lease client that keeps it elsewhere (another
 * jetcd) is refused with an error saying what is missing, so renewals fail rather than run without keep-alives.
 */
class KeepAliveRoundTest {

    @Test
    void aLeaseClientWithoutJetcdsStubIsRefusedSayingSo() {
        Lease elsewhere = (Lease) Proxy.newProxyInstance(
                Lease.class.getClassLoader(), new Class<?>[] {Lease.class}, (proxy, method, args) -> {
                    throw new UnsupportedOperationException(method.getName());
                });
        IllegalStateException refused =
                assertThrows(IllegalStateException.class, () -> KeepAliveRound.stubOf(elsewhere));
        assertTrue(refused.getMessage().contains("leaseStub"), refused.getMessage());
    }
}
