package dev.fenced.lease.etcd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.etcd.jetcd.Lease;
import io.etcd.jetcd.lease.LeaseKeepAliveResponse;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The keep-alive stub is jetcd 0.8.5's, read from its lease client. A lease client that keeps it elsewhere (another
 * jetcd) has none to give; the round then keeps each lease alive with the client's own {@code keepAliveOnce}, and
 * reports what etcd answered: slower, never a lease kept without etcd's word.
 */
class KeepAliveRoundTest {

    @Test
    void withoutJetcdsStubEachLeaseIsKeptAliveByKeepAliveOnceAndItsAnswerCounts() throws Exception {
        List<Long> asked = new ArrayList<>();
        Lease elsewhere = (Lease) Proxy.newProxyInstance(
                Lease.class.getClassLoader(), new Class<?>[] {Lease.class}, (proxy, method, args) -> {
                    if (method.getName().equals("keepAliveOnce")) {
                        long id = (Long) args[0];
                        asked.add(id);
                        // etcd's answer: lease 7 alive (ttl 5), lease 8 gone (ttl 0)
                        return CompletableFuture.completedFuture(
                                new LeaseKeepAliveResponse(io.etcd.jetcd.api.LeaseKeepAliveResponse.newBuilder()
                                        .setID(id)
                                        .setTTL(id == 7 ? 5 : 0)
                                        .build()));
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
        assertNull(KeepAliveRound.stubOf(elsewhere));
        try (KeepAliveRound round = new KeepAliveRound(elsewhere, null)) {
            assertTrue(round.keepAlive(7).get(5, TimeUnit.SECONDS));
            assertEquals(false, round.keepAlive(8).get(5, TimeUnit.SECONDS));
        }
        assertEquals(List.of(7L, 8L), asked);
    }
}
