package dev.fenced.internal.jdbc;

import dev.fenced.FencingMode;
import dev.fenced.Ticker;
import dev.fenced.UnsupportedStatementException;
import dev.fenced.WriterKind;
import dev.fenced.internal.config.FencedConfig;
import dev.fenced.internal.lease.LeaseRegistry;
import dev.fenced.internal.log.Logs;
import dev.fenced.internal.metrics.Counter;
import dev.fenced.internal.metrics.Tracker;
import dev.fenced.internal.observe.Inventory;
import dev.fenced.internal.pg.DatabaseOrigin;
import dev.fenced.internal.sql.FencingTargets;
import dev.fenced.internal.sql.RewriteCache;
import dev.fenced.internal.sql.RewritePlan;
import dev.fenced.internal.sql.SqlRewriter;
import dev.fenced.internal.sql.TextFacts;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * Everything the connections of one configuration on one database share: the configuration, what the
 * catalog said, the rewriter and its plan cache, the tracker its decisions count in. Built at the first connect,
 * then reused; owned by {@link Runtimes}.
 */
public final class FencedRuntime {

    private static final System.Logger LOG = Logs.get("dev.fenced.jdbc");
    /** Observe-mode findings are logged at WARNING this many times per runtime, then at DEBUG. */
    private static final int LOUD_OBSERVATIONS = 20;

    private final FencedConfig config;
    private final Inventory.Settings inventory;
    private final AtomicInteger observations = new AtomicInteger();
    private final AtomicBoolean refreshing = new AtomicBoolean();
    /**
     * Set when the catalog read is out of date (a statement found a table created again, or the event trigger
     * told of DDL): read before the next statement.
     */
    private volatile boolean readAgain;
    /** The event trigger ({@link DdlNotices}) was in place at the first read: a listener may tell of DDL at once. */
    private final boolean eventTrigger;

    private final long refreshNanos;
    private final Tracker tracker;
    /** Measures the catalog refresh interval. */
    private final Ticker ticker;
    /**
     * The database this configuration writes ({@link DatabaseOrigin}), read at its first connect; null where the
     * server does not say.
     */
    private final @Nullable String databaseOrigin;
    /** What the catalog said last, with the cache of plans made from it; replaced whole on refresh. */
    private volatile Snapshot snapshot;

    /**
     * One catalog read: the targets and the plans made from them, which {@code generation} numbers (it
     * grows whenever the targets change, so a statement prepared before compares one counter at execute
     * time); every relation name the read saw, so a write to a name it did not see is looked up first; the
     * texts already checked against it, and the names looked up and still not found.
     */
    private record Snapshot(
            FencingTargets targets,
            @Nullable RewriteCache cache, // null: nothing is protected, every text passes through
            long readAtNanos,
            long generation,
            @Nullable Set<String> relations, // null: the catalog is not read (inactive, fenced.checkSchema=false)
            Set<String> vetted,
            Set<String> absent) {}

    private FencedRuntime(
            FencedConfig config,
            Catalog catalog,
            Tracker tracker,
            Ticker ticker,
            boolean eventTrigger,
            @Nullable String databaseOrigin) {
        this.config = config;
        this.databaseOrigin = databaseOrigin;
        this.eventTrigger = eventTrigger;
        this.inventory = Inventory.Settings.of(config);
        this.refreshNanos = config.catalogRefresh().toNanos();
        this.tracker = tracker;
        this.ticker = ticker;
        this.snapshot = snapshot(catalog, 1, null);
    }

    /** What one read of the catalog found. */
    private record Catalog(FencingTargets targets, @Nullable Set<String> relations) {}

    private Snapshot snapshot(Catalog catalog, long generation, @Nullable Snapshot keep) {
        RewriteCache cache = keep != null
                ? keep.cache()
                : catalog.targets().isEmpty()
                        ? null
                        : new RewriteCache(
                                new SqlRewriter(catalog.targets(), config.relativeUpdates(), config.parseTimeout()),
                                config.cacheSize(),
                                tracker);
        Set<String> absent = ConcurrentHashMap.newKeySet();
        if (keep != null) {
            for (String name : keep.absent()) {
                if (catalog.relations() == null || !catalog.relations().contains(name)) {
                    absent.add(name);
                }
            }
        }
        return new Snapshot(
                catalog.targets(),
                cache,
                ticker.read(),
                generation,
                catalog.relations(),
                ConcurrentHashMap.newKeySet(),
                absent);
    }

    private static Catalog read(FencedConfig config, Connection connection, boolean lenient) throws SQLException {
        if (config.inactive()) {
            return new Catalog(FencingTargets.of(java.util.List.of()), null);
        }
        if (!config.checkSchema()) {
            return new Catalog(FencingTargets.of(config.tables()), null);
        }
        return new Catalog(
                CatalogInspector.inspect(connection, CatalogRead.forDriver(config, lenient)),
                CatalogInspector.relationNames(connection));
    }

    /**
     * Reads the catalog again on {@code connection} (raw) and replaces the plans: after DDL that names a
     * protected table, so a new view, partition or child is fenced from the next statement on. With
     * {@code committed} false the connection is inside a transaction whose DDL may still roll back: what
     * the read finds is added and nothing is forgotten (a rolled-back DROP VIEW must not unprotect the
     * view for every connection); the caller reads again with {@code committed} once the transaction ends.
     */
    void refresh(Connection connection, boolean committed) throws SQLException {
        if (config.inactive() || !config.checkSchema()) {
            return;
        }
        Catalog found = read(config, connection, true);
        synchronized (this) {
            Snapshot s = snapshot;
            if (!committed) {
                Set<String> relations = new HashSet<>(s.relations() == null ? Set.of() : s.relations());
                relations.addAll(found.relations());
                found = new Catalog(s.targets().union(found.targets()), relations);
            }
            // A re-read that finds what the last one found keeps the plans: they are decided from the targets
            // and this runtime's configuration alone, so they are still right, and the periodic re-read
            // (fenced.catalogRefresh) does not send every statement back to the parser once a minute.
            snapshot = found.targets().equals(s.targets())
                    ? snapshot(found, s.generation(), s)
                    : snapshot(found, s.generation() + 1, null);
        }
    }

    /**
     * A periodic re-read, for DDL run by others; one connection does it while the rest go on. Returns
     * true when it read inside an open transaction (the caller reads again once it ends).
     */
    boolean refreshIfDue(Connection connection) {
        if ((!readAgain && ticker.read() - snapshot.readAtNanos() < refreshNanos)
                || !refreshing.compareAndSet(false, true)) {
            return false;
        }
        // cleared before the read, not after: DDL told of while it reads is read again by the next statement
        boolean wasToldToReadAgain = readAgain;
        readAgain = false;
        try {
            boolean committed = connection.getAutoCommit();
            refresh(connection, committed);
            return !committed;
        } catch (SQLException | RuntimeException e) {
            if (wasToldToReadAgain) {
                readAgain = true;
            }
            LOG.log(
                    System.Logger.Level.WARNING,
                    "fenced: could not read the catalog again; keeping what it said" + " before: " + e.getMessage());
            synchronized (this) {
                Snapshot s = snapshot;
                snapshot = new Snapshot(
                        s.targets(), s.cache(), ticker.read(), s.generation(), s.relations(), s.vetted(), s.absent());
            }
            return false;
        } finally {
            refreshing.set(false);
        }
    }

    /**
     * The exception to throw for {@code e}, raised by a fenced statement that carried {@code token} (see
     * {@link StaleWrites}); when it says a protected table lost its tombstone check, the catalog is read again
     * before the next statement, which restores the check.
     */
    SQLException writeFailure(SQLException e, long token) {
        SQLException translated = StaleWrites.translate(e, token, tracker());
        if (StaleWrites.isCheckMissing(translated)) {
            readAgain = true;
        }
        return translated;
    }

    /**
     * The event trigger's listener heard {@code notices} notices of DDL (0: it has just begun to listen, and what
     * happened before is unknown): the next statement reads the catalog again.
     */
    void catalogChanged(int notices) {
        readAgain = true;
        if (notices > 0) {
            tracker.add(Counter.CATALOG_NOTICES, notices);
        }
    }

    /**
     * Starts this runtime's one listener ({@link DdlListener}) when the event trigger is in place; called once, by
     * the owner that keeps this runtime. Without the trigger, DDL by others is learned at the periodic re-read; so
     * it is for a pool fenced in place ({@code opener} null), whose connections fenced does not open and must not
     * keep one of for ever (a pool of one would have none left).
     */
    void listenForDdl(DdlListener.@Nullable Opener opener, String where) {
        if (!eventTrigger) {
            return;
        }
        if (opener == null) {
            LOG.log(
                    System.Logger.Level.INFO,
                    "fenced: the event trigger is in place, but a pool fenced in place is not listened for (fenced"
                            + " would hold one of its connections); DDL run by others is learned at the next catalog"
                            + " read (fenced.catalogRefresh). A jdbc:fenced: URL in the pool listens.");
            return;
        }
        DdlListener.start(this, opener, where);
    }

    /** Numbers the targets: a plan made at one generation is still right while it is current. */
    long generation() {
        return snapshot.generation();
    }

    /**
     * For a text fenced would pass through: when it writes a relation the last catalog read did not see
     * (a view or partition someone else made since), reads the catalog before the write is decided, so
     * there is no window until the next periodic read. Paid once per new text and name: checked texts and
     * names still not found after a read are remembered until the targets change. Returns true when it
     * read inside an open transaction (the caller reads again once it ends).
     */
    boolean lookUpUnknownTargets(String sql, Connection connection) throws SQLException {
        Snapshot s = snapshot;
        if (s.relations() == null || s.vetted().contains(sql)) {
            return false;
        }
        boolean executes = !TextFacts.executedNames(sql).isEmpty();
        java.util.List<dev.fenced.internal.config.TableName> targets = TextFacts.writeTargetNames(sql);
        java.util.List<String> names = new java.util.ArrayList<>();
        for (dev.fenced.internal.config.TableName t : targets) {
            names.add(t.name());
        }
        boolean merged = lookUp(names, connection);
        Unseen unseen = checkUnseen(targets, connection);
        merged |= unseen == Unseen.READ_IN_TRANSACTION;
        s = snapshot;
        if (s.vetted().size() >= config.cacheSize()) {
            s.vetted().clear();
        }
        if (!executes && unseen == Unseen.NONE) {
            // a text with an SQL EXECUTE is asked about each time: what the name holds can change; so is one
            // that writes a name no catalog read has seen (it may be created at any time)
            s.vetted().add(sql);
        }
        return merged;
    }

    /**
     * For the write targets no catalog read has seen: asks the server, as the statement itself will resolve
     * them (search path, latest committed catalog), whether they exist now. A name created since it was
     * looked up is read again; one the read still cannot see (a REPEATABLE READ or SERIALIZABLE transaction's
     * snapshot is older than the relation, while the write itself would resolve it) is refused: fenced cannot
     * tell whether it reaches a protected table.
     */
    private Unseen checkUnseen(java.util.List<dev.fenced.internal.config.TableName> targets, Connection connection)
            throws SQLException {
        Set<String> relations = snapshot.relations();
        if (relations == null) {
            return Unseen.NONE; // the catalog is not read: nothing to compare with
        }
        java.util.List<String> unseen = new java.util.ArrayList<>();
        java.util.List<String> known = new java.util.ArrayList<>();
        for (dev.fenced.internal.config.TableName t : targets) {
            if (!relations.contains(t.name())) {
                unseen.add(t.toString());
            } else {
                known.add(t.toString());
            }
        }
        if (!known.isEmpty()) {
            // a name seen in some schema may resolve (by this session's search path, or spelled with another
            // schema) to a relation of that name made since elsewhere (public.v beside a known other.v): the
            // relation the write will land on decides, and one that does not resolve yet is asked about again
            Map<String, String> where = resolve(known, connection);
            for (String name : known) {
                String oid = where.get(name);
                if (oid == null || !relations.contains(oid)) {
                    unseen.add(name);
                }
            }
        }
        if (unseen.isEmpty()) {
            return Unseen.NONE;
        }
        Map<String, String> existing = resolve(unseen, connection);
        if (existing.isEmpty()) {
            return Unseen.ABSENT;
        }
        boolean committed = connection.getAutoCommit();
        refresh(connection, committed);
        relations = seen(snapshot);
        for (dev.fenced.internal.config.TableName t : targets) {
            String where = existing.get(t.toString());
            if (where != null && !relations.contains(where)) {
                refuseOrObserve(
                        t.toString(),
                        strictestMode(snapshot.targets()),
                        "relation " + t + " was created after"
                                + " this transaction's snapshot, so fenced cannot see whether it reaches a protected table;"
                                + " write it in a new transaction",
                        t.toString());
            }
        }
        return committed ? Unseen.ABSENT : Unseen.READ_IN_TRANSACTION;
    }

    /**
     * What {@link #checkUnseen} found: every target seen by a catalog read; some not (the text is asked
     * about again next time); some not, and the catalog was read inside an open transaction.
     */
    private enum Unseen {
        NONE,
        ABSENT,
        READ_IN_TRANSACTION
    }

    /**
     * Where each of {@code names} (SQL spellings) resolves now, as a statement would resolve it (search path
     * included, and the latest committed catalog, as {@code to_regclass} reads it whatever the transaction's
     * snapshot): spelling to {@link CatalogInspector#oidKey}, for the names that resolve.
     */
    private static Map<String, String> resolve(java.util.List<String> names, Connection connection)
            throws SQLException {
        Map<String, String> out = new java.util.LinkedHashMap<>();
        try (java.sql.PreparedStatement ps = connection.prepareStatement(
                "SELECT n, pg_catalog.to_regclass(n)::pg_catalog.oid"
                        + " FROM pg_catalog.unnest(?::pg_catalog.text[]) n WHERE pg_catalog.to_regclass(n) IS NOT NULL")) {
            ps.setArray(1, connection.createArrayOf("text", names.toArray()));
            try (java.sql.ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.put(rs.getString(1), CatalogInspector.oidKey(rs.getLong(2)));
                }
            }
        }
        return out;
    }

    /**
     * A runtime for {@code config}, checked against the catalog on {@code connection} (a raw connection to its
     * database); its owner ({@link Runtimes}) keeps it.
     */
    static FencedRuntime build(FencedConfig config, Connection connection, Tracker tracker, Ticker ticker)
            throws SQLException {
        Catalog catalog = read(config, connection, false);
        RoleCheck.atConnect(config, connection); // once per runtime: the first connect of its configuration
        boolean eventTrigger = !config.inactive() && config.checkSchema() && DdlNotices.installed(connection);
        // read with the catalog: fenced.checkSchema=false reads nothing at connect, and lease tokens are then checked
        // by domain only
        String origin = config.inactive() || !config.checkSchema() ? null : DatabaseOrigin.read(connection);
        return new FencedRuntime(config, catalog, tracker, ticker, eventTrigger, origin);
    }

    /** The database this runtime writes, as {@link DatabaseOrigin} names it; null where the server does not say. */
    @Nullable
    String databaseOrigin() {
        return databaseOrigin;
    }

    /** Where this runtime's decisions are counted (its owner's tracker). */
    Tracker tracker() {
        return tracker;
    }

    @Nullable
    String leaseName(long token) {
        return LeaseRegistry.nameOf(token);
    }

    FencedConfig config() {
        return config;
    }

    /**
     * The relation names {@code s} saw. Only a runtime that reads the catalog refreshes, and its snapshots all
     * have them (they are null exactly when the configuration reads nothing: inactive, fenced.checkSchema=false).
     */
    private static Set<String> seen(Snapshot s) {
        return java.util.Objects.requireNonNull(s.relations(), "a runtime that reads the catalog keeps what it saw");
    }

    /** The plan for {@code sql}. Cheap for statements that cannot touch a protected table. */
    RewritePlan plan(String sql) {
        RewriteCache cache = snapshot.cache();
        return cache == null ? RewritePlan.Passthrough.PASSTHROUGH : cache.plan(sql);
    }

    /**
     * {@code plan} (for {@code sql}) to run with a NULL token: itself, or when it {@link RewritePlan#tokenRequired()
     * requires} a token, the text that keeps the row's fence value instead; refused when there is none.
     */
    RewritePlan.Fenced forNullToken(RewritePlan.Fenced plan, String sql) throws SQLException {
        if (!plan.tokenRequired()) {
            return plan;
        }
        RewriteCache cache = snapshot.cache();
        RewritePlan variant = cache == null ? null : cache.planForNullToken(sql);
        if (!(variant instanceof RewritePlan.Fenced fenced) || fenced.tokenRequired()) {
            tracker.increment(Counter.UNSUPPORTED_REFUSED);
            throw new UnsupportedStatementException(
                    plan.table(),
                    "no text to run it without a token" + " (the catalog changed while it was planned); run it again");
        }
        return fenced;
    }

    /**
     * The plan to run for {@code sql}: a refusal is thrown in enforce mode, and in observe mode counted,
     * logged and turned into a pass-through. Inside {@code Fencing.unfenced} a refused statement runs as
     * written (migrations: DO blocks, TRUNCATE, MERGE); the refused plan is returned, which callers run as
     * a pass-through, and a prepared statement checks again at execute time that it is still unfenced.
     */
    RewritePlan planOrRefuse(String sql) throws SQLException {
        RewritePlan plan = plan(sql);
        if (!(plan instanceof RewritePlan.Refused refused)) {
            return plan;
        }
        if (refused.mode() == FencingMode.ENFORCE) {
            if (TokenResolver.inUnfencedSection()) {
                LOG.log(
                        System.Logger.Level.INFO,
                        "fenced: unfenced section runs as written a statement on {0}"
                                + " that fenced would refuse ({1}): {2}",
                        refused.table(),
                        refused.construct(),
                        sql);
                return refused;
            }
            tracker.increment(Counter.UNSUPPORTED_REFUSED);
            throw refused.refusal();
        }
        observedUnfenceable(refused.table(), refused.construct(), sql);
        return refused.schemaChange() ? RewritePlan.Passthrough.SCHEMA_CHANGE : RewritePlan.Passthrough.PASSTHROUGH;
    }

    /** For a refused plan let through inside {@code Fencing.unfenced}: refuses it now, outside one. */
    void refuseUnlessUnfenced(RewritePlan plan) throws SQLException {
        if (plan instanceof RewritePlan.Refused refused
                && refused.mode() == FencingMode.ENFORCE
                && !TokenResolver.inUnfencedSection()) {
            tracker.increment(Counter.UNSUPPORTED_REFUSED);
            throw refused.refusal();
        }
    }

    /**
     * Reads the catalog when one of {@code names} was not seen by the last read nor looked up since; the
     * names still not found are remembered until the targets change. True when it read inside an open
     * transaction.
     */
    private boolean lookUp(java.util.List<String> names, Connection connection) throws SQLException {
        Snapshot s = snapshot;
        if (s.relations() == null) {
            return false;
        }
        boolean unknown = false;
        for (String name : names) {
            if (!s.relations().contains(name) && !s.absent().contains(name)) {
                unknown = true;
                break;
            }
        }
        if (!unknown) {
            return false;
        }
        boolean committed = connection.getAutoCommit();
        refresh(connection, committed);
        s = snapshot;
        Set<String> seen = seen(s);
        for (String name : names) {
            if (!seen.contains(name)) {
                s.absent().add(name);
            }
        }
        return !committed;
    }

    /**
     * An updatable result set's {@code updateRow}, {@code insertRow} or {@code deleteRow}: pgjdbc builds that
     * write itself and sends it on the raw connection, so it cannot carry the token. Refused when the query
     * that made the rows names a protected table or view (or is unknown).
     *
     * @param query the text that made the rows; null when fenced did not run it (metadata, arrays, refcursors)
     */
    boolean checkRowWrite(@Nullable String query, String operation, Connection connection) throws SQLException {
        if (snapshot.targets().isEmpty()) {
            return false;
        }
        // the relation pgjdbc would write is one the query reads, or the piece of text pgjdbc takes for it (after
        // a word "from", even inside a comment or a literal): a view made since the last read is looked up
        java.util.List<String> pgjdbcTables =
                query == null ? java.util.List.of() : TextFacts.pgjdbcRowWriteTables(query);
        boolean merged = false;
        if (query != null) {
            java.util.List<String> names = new java.util.ArrayList<>(TextFacts.readRelations(query));
            for (String piece : pgjdbcTables) {
                names.addAll(TextFacts.readRelations("SELECT 1 FROM " + piece));
            }
            merged = lookUp(names, connection);
        }
        FencingTargets targets = snapshot.targets();
        String construct = "ResultSet." + operation + "() of an updatable result set: pgjdbc writes the row itself,"
                + " around fenced; write it with UPDATE, INSERT or DELETE";
        if (query == null) {
            refuseOrObserve(
                    "a protected table",
                    strictestMode(targets),
                    construct + " (fenced did not run its query)",
                    operation);
            return merged;
        }
        TextFacts.Mention mention = TextFacts.mention(query, targets);
        for (int i = 0; mention == null && i < pgjdbcTables.size(); i++) {
            // each piece alone: lexed with the rest of the query it may sit inside a comment or literal
            mention = TextFacts.mention(pgjdbcTables.get(i), targets);
        }
        if (mention != null) {
            refuseOrObserve(mention.table(), mention.mode(), construct, query);
        }
        return merged;
    }

    /**
     * An SQL-level {@code EXECUTE name}: the statement it runs was prepared earlier (maybe inside
     * {@code Fencing.unfenced}, maybe by a DO block) and cannot carry the token. The server says what
     * {@code name} holds; when fenced would not pass that text through, the EXECUTE is refused.
     */
    void checkExecuted(String sql, Connection connection) throws SQLException {
        Snapshot s = snapshot;
        if (s.targets().isEmpty() || s.vetted().contains(sql)) {
            return;
        }
        for (String name : TextFacts.executedNames(sql)) {
            String prepared = null;
            try (java.sql.PreparedStatement ps = connection.prepareStatement(
                    "SELECT statement FROM pg_catalog.pg_prepared_statements WHERE name OPERATOR(pg_catalog.=) ?")) {
                ps.setString(1, name);
                try (java.sql.ResultSet rs = ps.executeQuery()) {
                    if (rs.next()) {
                        prepared = rs.getString(1);
                    }
                }
            }
            RewritePlan plan = prepared == null ? RewritePlan.Passthrough.PASSTHROUGH : plan(prepared);
            if (plan instanceof RewritePlan.Protected touched) {
                refuseOrObserve(
                        touched.table(),
                        touched.mode(),
                        "EXECUTE " + name + " runs a prepared write that"
                                + " cannot carry the token"
                                + (touched instanceof RewritePlan.Refused refused
                                        ? " (" + refused.construct() + ")"
                                        : "")
                                + "; use a JDBC PreparedStatement",
                        sql);
            }
        }
    }

    /** A batch entry that may write after one that changes the schema around a protected table. */
    void refuseMixedBatch(String ddl, String sql) throws SQLException {
        TextFacts.Mention mention = TextFacts.mention(ddl, snapshot.targets());
        refuseOrObserve(
                mention == null ? "a protected table" : mention.table(),
                mention == null ? strictestMode(snapshot.targets()) : mention.mode(),
                "a batch that changes the schema around a protected table and then writes; run the DDL on its own,"
                        + " then the writes",
                sql);
    }

    /** A batch whose entries were planned before the catalog changed. */
    void refuseStaleBatch(String texts) throws SQLException {
        TextFacts.Mention mention = TextFacts.mention(texts, snapshot.targets());
        refuseOrObserve(
                mention == null ? "a protected table" : mention.table(),
                mention == null ? strictestMode(snapshot.targets()) : mention.mode(),
                "a batch planned before the catalog changed (a view, partition or child of a protected table"
                        + " appeared since); add its entries again",
                texts);
    }

    private static FencingMode strictestMode(FencingTargets targets) {
        FencingMode mode = null;
        for (var t : targets.tables()) {
            mode = TextFacts.stricter(mode, t.mode());
        }
        return mode == null ? FencingMode.OFF : mode;
    }

    /**
     * A refusal found outside the rewriter, decided as the rewriter's are: thrown in enforce mode (except
     * inside {@code Fencing.unfenced}), counted and logged in observe mode.
     */
    private void refuseOrObserve(String table, FencingMode mode, String construct, String sql) throws SQLException {
        if (mode == FencingMode.ENFORCE) {
            if (TokenResolver.inUnfencedSection()) {
                LOG.log(
                        System.Logger.Level.INFO,
                        "fenced: unfenced section runs as written a statement on {0}"
                                + " that fenced would refuse ({1}): {2}",
                        table,
                        construct,
                        sql);
                return;
            }
            tracker.increment(Counter.UNSUPPORTED_REFUSED);
            throw new dev.fenced.UnsupportedStatementException(table, construct);
        }
        if (mode == FencingMode.OBSERVE) {
            observedUnfenceable(table, construct, sql);
        }
    }

    /** The targets of the last catalog read. */
    FencingTargets targets() {
        return snapshot.targets();
    }

    /**
     * Observe mode let a write through that carries no token ({@code kind} says why: none bound, or its
     * lease lost); {@code sql} is the text as the application wrote it. The one place such a decision is
     * counted, logged and added to the writer inventory.
     */
    void observedUnfenced(RewritePlan.Fenced plan, WriterKind kind, String reason, String sql) {
        tracker.increment(Counter.UNFENCED_WRITES_OBSERVED);
        String table = plan.table();
        observe("fenced (observe): write to {0} without a token ({1}): {2}", table, reason, sql);
        Inventory.get().record(inventory, kind, table, reason, sql);
    }

    /**
     * Observe mode let a statement through that fenced cannot fence ({@code construct} says why). The one
     * place such a decision is counted, logged and added to the writer inventory.
     */
    void observedUnfenceable(String table, String construct, String sql) {
        tracker.increment(Counter.UNSUPPORTED_OBSERVED);
        observe("fenced (observe): statement on {0} would be refused: {1}: {2}", table, construct, sql);
        Inventory.get().record(inventory, WriterKind.UNFENCEABLE, table, construct, sql);
    }

    /**
     * Logs one observation: loud for the first few, then at DEBUG. With the inventory on, each new writer is
     * logged once by the inventory, so the per-statement lines are DEBUG from the start.
     */
    private void observe(String format, Object... args) {
        System.Logger.Level level = !inventory.enabled() && observations.incrementAndGet() <= LOUD_OBSERVATIONS
                ? System.Logger.Level.WARNING
                : System.Logger.Level.DEBUG;
        if (LOG.isLoggable(level)) {
            LOG.log(level, format, args);
        }
    }
}
