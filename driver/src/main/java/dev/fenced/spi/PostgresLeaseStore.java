package dev.fenced.spi;

import dev.fenced.FencedProperty;
import dev.fenced.Fencing;
import dev.fenced.Ticker;
import dev.fenced.internal.context.TokenDomains;
import dev.fenced.internal.lease.LeaseTableName;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * The default {@link LeaseStore}: one table and one sequence in the data's own PostgreSQL, as described in
 * {@code docs/leases.md} (grants decided by the database clock, tokens carrying the WAL timeline, serialization
 * retries, late grants released, one token counter per database). Its tokens are of domain
 * {@link Fencing#FENCED_DOMAIN} by default, which a protected table accepts only from its own database's counter
 * (the data's own PostgreSQL). For one lease that fences several databases, give the store a domain of its own
 * ({@link #create(DataSource, String, boolean, String)}) and set {@code fenced.tokenDomain} to it in every database
 * the lease's holder writes.
 *
 * <p>A {@link dev.fenced.LeaseManager} given this store runs it exactly as its default store (on the manager's own
 * threads, each statement bounded by aborting its connection); called directly, each call is bounded by its
 * {@code timeout} the same way.
 */
public final class PostgresLeaseStore implements LeaseStore {

    private final DataSource dataSource;
    private final String table;
    private final boolean createTable;
    private final String tokenDomain;
    private final Object lock = new Object();
    private dev.fenced.internal.lease.@Nullable LeaseStore direct; // guarded by lock: for calls made through the SPI

    private PostgresLeaseStore(DataSource dataSource, String table, boolean createTable, String tokenDomain) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        LeaseTableName.parse(table); // a bad name fails here, not at the first grant
        this.table = table;
        this.createTable = createTable;
        this.tokenDomain = TokenDomains.check(tokenDomain);
    }

    /** The store on {@code dataSource} with the default table ({@code fenced_lease}), created if missing. */
    public static PostgresLeaseStore create(DataSource dataSource) {
        return new PostgresLeaseStore(
                dataSource,
                Objects.requireNonNull(FencedProperty.LEASE_TABLE.defaultValue()),
                Boolean.parseBoolean(FencedProperty.LEASE_CREATE_TABLE.defaultValue()),
                Fencing.FENCED_DOMAIN);
    }

    /**
     * The store on {@code dataSource} with lease table {@code table} ({@code [schema.]table}; its sequence is
     * {@code <table>_token_seq}), created on first use if {@code createTable}.
     */
    public static PostgresLeaseStore create(DataSource dataSource, String table, boolean createTable) {
        return new PostgresLeaseStore(dataSource, table, createTable, Fencing.FENCED_DOMAIN);
    }

    /**
     * As {@link #create(DataSource, String, boolean)}, its tokens of {@code tokenDomain}: for one lease over several
     * databases. Every protected table the lease's holder writes, in any database, is then configured with
     * {@code fenced.tokenDomain=<tokenDomain>}. The name must be this store's alone: two stores (two databases' lease
     * tables) of one named domain would be two unrelated counters whose numbers meet on the same rows.
     *
     * @throws IllegalArgumentException if {@code tokenDomain} is not a domain name ({@link Fencing#bind(String, long)})
     */
    public static PostgresLeaseStore create(
            DataSource dataSource, String table, boolean createTable, String tokenDomain) {
        return new PostgresLeaseStore(dataSource, table, createTable, tokenDomain);
    }

    public DataSource dataSource() {
        return dataSource;
    }

    /** The lease table, as given. */
    public String table() {
        return table;
    }

    public boolean createsTable() {
        return createTable;
    }

    @Override
    public String tokenDomain() {
        return tokenDomain;
    }

    @Override
    public @Nullable Grant grant(String name, String holder, Duration ttl, Duration timeout) throws Exception {
        dev.fenced.internal.lease.LeaseStore.Grant g =
                direct().grant(name, holder, ttl.toMillis(), timeout.toNanos(), Ticker.system());
        return g == null ? null : new Grant(g.token());
    }

    @Override
    public Renewal renew(String holder, List<Held> leases, Duration timeout) throws Exception {
        String[] names = new String[leases.size()];
        long[] tokens = new long[names.length];
        long[] ttls = new long[names.length];
        for (int i = 0; i < names.length; i++) {
            names[i] = leases.get(i).name();
            tokens[i] = leases.get(i).token();
            ttls[i] = leases.get(i).ttl().toMillis();
        }
        dev.fenced.internal.lease.LeaseStore.Renewal r =
                direct().renew(holder, names, tokens, ttls, timeout.toNanos(), Ticker.system());
        return new Renewal(r.renewed(), r.locked());
    }

    @Override
    public int release(String holder, List<Held> leases, Duration timeout) throws Exception {
        String[] names = leases.stream().map(Held::name).toArray(String[]::new);
        long[] tokens = leases.stream().mapToLong(Held::token).toArray();
        return direct().release(holder, names, tokens, timeout.toNanos());
    }

    @Override
    public Optional<Holder> describe(String name, Duration timeout) throws Exception {
        dev.fenced.internal.lease.LeaseStore.Holder h = direct().describe(name, timeout.toNanos());
        return h == null ? Optional.empty() : Optional.of(new Holder(h.holder(), h.token(), h.expiresAt(), h.live()));
    }

    @Override
    public Optional<String> check(Duration timeout) throws Exception {
        return Optional.ofNullable(direct().check(timeout.toNanos()));
    }

    private dev.fenced.internal.lease.LeaseStore direct() {
        synchronized (lock) {
            if (direct == null) {
                direct = new dev.fenced.internal.lease.LeaseStore(
                        dataSource, LeaseTableName.parse(table), createTable, tokenDomain, "spi");
            }
            return direct;
        }
    }
}
