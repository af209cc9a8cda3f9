package dev.fenced.lease.etcd;

import dev.fenced.spi.LeaseStore;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.api.VertxLeaseGrpc;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Leases in etcd: a lease is an etcd lease (its ttl in whole seconds, rounded up), the grant a transaction that
 * creates the lock key {@code <prefix><name>} bound to it only if the key is absent ({@code createRevision == 0}),
 * and the token the key's create revision: etcd's store revision, global, strictly growing and linearizable. Expiry
 * is etcd's (the key goes with its lease); renewal is a keep-alive of each lease whose key still has its token (the
 * keys read in batches, the keep-alives on a few streams opened for the round).
 * Tokens are of domain {@value #DOMAIN}. The store keeps no state of its own: a new instance sees every lease.
 */
public final class EtcdLeaseStore implements LeaseStore {

    /** The token domain of this store's tokens. */
    public static final String DOMAIN = "etcd";

    private final Client client;
    private final String prefix;

    /** A store on {@code client} with lock keys under {@code prefix} (say {@code fenced/leases/}). */
    public EtcdLeaseStore(Client client, String prefix) {
        this.client = client;
        this.prefix = prefix;
    }

    @Override
    public String tokenDomain() {
        return DOMAIN;
    }

    private ByteSequence key(String name) {
        return ByteSequence.from(prefix + name, StandardCharsets.UTF_8);
    }

    private static long seconds(Duration ttl) {
        return Math.max(1, (ttl.toMillis() + 999) / 1000);
    }

    private static long ms(Duration timeout) {
        return Math.max(1, timeout.toMillis());
    }

    /** A store call, run with a context class loader jetcd can start on ({@link #onClientLoader}). */
    @FunctionalInterface
    private interface Call<T> {
        T run() throws Exception;
    }

    /**
     * jetcd starts vert.x at its first call, and vert.x needs the thread's context class loader, which fenced's
     * lease workers leave unset on purpose (no application loader kept alive by a pool thread). Without this, a
     * store whose first call comes from a lease worker fails to start, and every later call in that JVM fails too.
     * The loader that loaded jetcd is set for the call and taken off after it.
     */
    private <T> T onClientLoader(Call<T> call) throws Exception {
        Thread thread = Thread.currentThread();
        if (thread.getContextClassLoader() != null) {
            return call.run();
        }
        thread.setContextClassLoader(Client.class.getClassLoader());
        try {
            return call.run();
        } finally {
            thread.setContextClassLoader(null);
        }
    }

    @Override
    public @Nullable Grant grant(String name, String holder, Duration ttl, Duration timeout) throws Exception {
        // Optional through the generic call, null for the SPI (someone else holds the name)
        return onClientLoader(() -> grantNow(name, holder, ttl, timeout)).orElse(null);
    }

    private Optional<Grant> grantNow(String name, String holder, Duration ttl, Duration timeout) throws Exception {
        ByteSequence key = key(name);
        long lease = client.getLeaseClient()
                .grant(seconds(ttl))
                .get(ms(timeout), TimeUnit.MILLISECONDS)
                .getID();
        TxnResponse txn = client.getKVClient()
                .txn()
                .If(new Cmp(key, Cmp.Op.EQUAL, CmpTarget.createRevision(0)))
                .Then(Op.put(
                        key,
                        ByteSequence.from(holder, StandardCharsets.UTF_8),
                        PutOption.builder().withLeaseId(lease).build()))
                .commit()
                .get(ms(timeout), TimeUnit.MILLISECONDS);
        if (!txn.isSucceeded()) {
            client.getLeaseClient().revoke(lease); // not awaited: an unused lease also expires by itself
            return Optional.empty();
        }
        // the put is the transaction's only write: the revision it made is the key's create revision
        return Optional.of(new Grant(txn.getHeader().getRevision()));
    }

    /** The key of {@code name} if it is still {@code holder}'s grant with {@code token}. */
    private @Nullable KeyValue mine(String holder, String name, long token, Duration timeout) throws Exception {
        return mineOf(
                client.getKVClient()
                        .get(key(name), GetOption.DEFAULT)
                        .get(ms(timeout), TimeUnit.MILLISECONDS)
                        .getKvs(),
                holder,
                token);
    }

    /** Of the key's values read ({@code kvs}), the key if it is still {@code holder}'s grant with {@code token}. */
    private static @Nullable KeyValue mineOf(List<KeyValue> kvs, String holder, long token) {
        if (kvs.isEmpty()) {
            return null;
        }
        KeyValue kv = kvs.get(0);
        return kv.getCreateRevision() == token
                        && kv.getValue().toString(StandardCharsets.UTF_8).equals(holder)
                ? kv
                : null;
    }

    @Override
    public Renewal renew(String holder, List<Held> leases, Duration timeout) throws Exception {
        return onClientLoader(() -> renewNow(holder, leases, timeout));
    }

    /**
     * The most keys read in one transaction: etcd's default {@code --max-txn-ops} (a server started with less refuses
     * the transaction, and the leases in it are not renewed: lost, never kept by mistake).
     */
    private static final int READS_PER_TXN = 128;

    /** Read transactions in flight at once: a bounded window keeps the requests queued in jetcd and etcd few. */
    private static final int TXNS_IN_FLIGHT = 4;

    /** jetcd's stub for etcd's lease service, looked up at the first renewal ({@link KeepAliveRound#stubOf}). */
    private volatile VertxLeaseGrpc.@Nullable LeaseVertxStub leaseStub;

    private volatile boolean leaseStubLookedUp;

    private KeepAliveRound keepAliveRound() {
        if (!leaseStubLookedUp) {
            leaseStub = KeepAliveRound.stubOf(client.getLeaseClient());
            leaseStubLookedUp = true;
        }
        return new KeepAliveRound(client.getLeaseClient(), leaseStub);
    }

    /**
     * Every lease renewed by one deadline, {@code timeout} from now: the whole call is bounded, not each lease. A
     * lease's renewal is a read of its key (still the holder's grant?) and a keep-alive of its etcd lease. The keys are
     * read {@value #READS_PER_TXN} at a time in one read-only transaction (linearizable, like a single get: a member
     * cut off from the majority cannot answer it), their create revisions compared here; only the leases still the
     * holder's are kept alive, each by one message on one of the round's keep-alive streams. (Read one by one and kept
     * alive by {@code keepAliveOnce}, a stream each, a lease cost etcd two requests and a stream a round.)
     */
    private Renewal renewNow(String holder, List<Held> leases, Duration timeout) throws Exception {
        if (leases.isEmpty()) {
            return new Renewal(Set.of(), Set.of());
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        List<CompletableFuture<Boolean>> calls = new ArrayList<>(leases.size());
        List<CompletableFuture<?>> reads = new ArrayList<>(TXNS_IN_FLIGHT);
        try (KeepAliveRound round = keepAliveRound()) {
            for (int from = 0; from < leases.size(); from += READS_PER_TXN) {
                List<Held> batch = leases.subList(from, Math.min(leases.size(), from + READS_PER_TXN));
                reads.add(readAndKeepAlive(holder, batch, round, calls));
                if (reads.size() == TXNS_IN_FLIGHT) {
                    for (CompletableFuture<?> read : reads) {
                        read.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                    }
                    reads.clear();
                }
            }
            Set<Long> renewed = new HashSet<>();
            for (int i = 0; i < leases.size(); i++) {
                if (calls.get(i).get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                    renewed.add(leases.get(i).token());
                }
            }
            return new Renewal(renewed, Set.of());
        } finally {
            calls.forEach(c -> c.cancel(false)); // those not done by the deadline (or after a failure)
        }
    }

    /**
     * Reads the keys of {@code batch} in one transaction and adds to {@code calls}, for each lease in order, true
     * once its key was read as still {@code holder}'s grant and its etcd lease was kept alive in {@code round}.
     * Returns the read.
     */
    private CompletableFuture<List<GetResponse>> readAndKeepAlive(
            String holder, List<Held> batch, KeepAliveRound round, List<CompletableFuture<Boolean>> calls) {
        Op[] gets = new Op[batch.size()];
        for (int i = 0; i < gets.length; i++) {
            gets[i] = Op.get(key(batch.get(i).name()), GetOption.DEFAULT);
        }
        CompletableFuture<List<GetResponse>> read =
                client.getKVClient().txn().Then(gets).commit().thenApply(TxnResponse::getGetResponses);
        for (int i = 0; i < batch.size(); i++) {
            Held h = batch.get(i);
            int at = i;
            calls.add(read.thenCompose(keys -> {
                KeyValue kv = mineOf(keys.get(at).getKvs(), holder, h.token());
                return kv == null ? CompletableFuture.completedFuture(false) : round.keepAlive(kv.getLease());
            }));
        }
        return read;
    }

    @Override
    public int release(String holder, List<Held> leases, Duration timeout) throws Exception {
        return onClientLoader(() -> releaseNow(holder, leases, timeout));
    }

    private int releaseNow(String holder, List<Held> leases, Duration timeout) throws Exception {
        int released = 0;
        for (Held h : leases) {
            KeyValue kv = mine(holder, h.name(), h.token(), timeout);
            if (kv == null) {
                continue;
            }
            TxnResponse txn = client.getKVClient()
                    .txn()
                    .If(new Cmp(key(h.name()), Cmp.Op.EQUAL, CmpTarget.createRevision(h.token())))
                    .Then(Op.delete(key(h.name()), io.etcd.jetcd.options.DeleteOption.DEFAULT))
                    .commit()
                    .get(ms(timeout), TimeUnit.MILLISECONDS);
            if (txn.isSucceeded()) {
                released++;
                client.getLeaseClient().revoke(kv.getLease());
            }
        }
        return released;
    }

    @Override
    public Optional<Holder> describe(String name, Duration timeout) throws Exception {
        return onClientLoader(() -> describeNow(name, timeout));
    }

    private Optional<Holder> describeNow(String name, Duration timeout) throws Exception {
        List<KeyValue> kvs = client.getKVClient()
                .get(key(name), GetOption.DEFAULT)
                .get(ms(timeout), TimeUnit.MILLISECONDS)
                .getKvs();
        if (kvs.isEmpty()) {
            return Optional.empty();
        }
        KeyValue kv = kvs.get(0);
        return Optional.of(new Holder(
                kv.getValue().toString(StandardCharsets.UTF_8),
                kv.getCreateRevision(),
                "with etcd lease " + Long.toHexString(kv.getLease()),
                true));
    }
}
