package dev.fenced.internal.observe;

import dev.fenced.FencingMode;
import dev.fenced.WriterInventory;
import dev.fenced.WriterKind;
import dev.fenced.internal.config.FencedConfig;
import dev.fenced.internal.config.ProtectedTable;
import dev.fenced.internal.context.FencedThreads;
import dev.fenced.internal.log.Logs;
import dev.fenced.internal.sql.SqlShape;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;

/**
 * The process-wide store behind {@link WriterInventory}. Only observe-mode decisions reach it (the write
 * path with a token never does). Per distinct SQL text it keeps the shape it was grouped under, so a text is
 * lexed once; per shape, an exact count and the call sites found by walking the stack for the first
 * {@link #ATTRIBUTED_FIRST} writes and one in {@link #SAMPLE_EVERY} after. Entries (shapes and call sites)
 * are capped by {@code fenced.observe.maxWriters}.
 */
public final class Inventory {

    /** Writes of one shape whose call site is always walked. */
    public static final int ATTRIBUTED_FIRST = 16;
    /** After those, one write in this many is walked. */
    public static final int SAMPLE_EVERY = 64;
    /** Distinct texts remembered with their shape; cleared when full (they are shaped again). */
    private static final int TEXTS = 4096;
    /** Texts longer than this are shaped each time, not memoized: 4096 bulk statements must not be kept. */
    static final int MEMO_TEXT_LIMIT = 8192;

    private static final System.Logger LOG = Logs.get("dev.fenced.observe");
    private static final Inventory INSTANCE = new Inventory();

    /** What one configuration asks of the inventory. */
    public record Settings(boolean enabled, List<String> skipFrames, int maxWriters) {
        public static Settings of(FencedConfig config) {
            return new Settings(config.observeInventory(), config.observeSkipFrames(), config.observeMaxWriters());
        }
    }

    private record TextKey(WriterKind kind, String sql) {}

    private record ShapeKey(String table, WriterKind kind, String shape) {}

    /** One call site of one shape. */
    private static final class Site {
        final long firstSeen;
        volatile long lastSeen;
        final LongAdder samples = new LongAdder();

        Site(long now) {
            this.firstSeen = now;
            this.lastSeen = now;
        }
    }

    private static final class Shape {
        final ShapeKey key;
        final String reason;
        final AtomicLong writes = new AtomicLong();
        final ConcurrentHashMap<String, Site> sites = new ConcurrentHashMap<>();

        Shape(ShapeKey key, String reason) {
            this.key = key;
            this.reason = reason;
        }
    }

    /** A protected table as one configuration registered it. */
    private record Registered(String table, FencingMode mode, String column, boolean checked) {}

    private final ConcurrentHashMap<TextKey, Shape> texts = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<ShapeKey, Shape> shapes = new ConcurrentHashMap<>();
    private final AtomicInteger entries = new AtomicInteger();
    private final LongAdder dropped = new LongAdder();
    private final AtomicBoolean fullLogged = new AtomicBoolean();
    private final ConcurrentHashMap<String, List<Registered>> configurations = new ConcurrentHashMap<>();
    private final Set<Path> reportPaths = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean hook = new AtomicBoolean();

    private Inventory() {}

    public static Inventory get() {
        return INSTANCE;
    }

    /**
     * Learns the protected tables of a configuration (for the roll-out state) and its report path (written at
     * shutdown). Called once per runtime.
     */
    public void register(FencedConfig config) {
        List<Registered> tables = new ArrayList<>();
        for (ProtectedTable t : config.tables()) {
            tables.add(new Registered(t.displayName(), t.mode(), t.column(), config.checkSchema()));
        }
        configurations.put(config.fingerprint(), List.copyOf(tables));
        if (config.observeReport() != null) {
            reportPaths.add(Path.of(config.observeReport()));
            if (hook.compareAndSet(false, true)) {
                Runtime.getRuntime()
                        .addShutdownHook(FencedThreads.newThread("fenced-inventory-report", this::writeAtShutdown));
            }
        }
    }

    /**
     * Records one write enforce mode would refuse and observe mode lets through. {@code table} is the
     * protected table named in the decision, {@code sql} the text as the application wrote it.
     */
    public void record(Settings settings, WriterKind kind, String table, String reason, @Nullable String sql) {
        if (!settings.enabled()) {
            return;
        }
        Shape shape = shapeOf(settings, kind, table, reason, sql);
        if (shape == null) {
            return;
        }
        long n = shape.writes.incrementAndGet();
        if (n > ATTRIBUTED_FIRST && n % SAMPLE_EVERY != 0) {
            return;
        }
        String where = CallSites.capture(settings.skipFrames());
        long now = System.currentTimeMillis();
        Site site = shape.sites.get(where);
        if (site == null) {
            if (!room(settings)) {
                return;
            }
            Site created = new Site(now);
            site = shape.sites.putIfAbsent(where, created);
            if (site == null) {
                site = created;
                entries.incrementAndGet();
                LOG.log(
                        System.Logger.Level.WARNING,
                        "fenced (observe): new writer to {0} ({1}: {2}) at {3}: {4}",
                        table,
                        kind.label(),
                        reason,
                        where,
                        shape.key.shape());
            }
        }
        site.lastSeen = now;
        site.samples.increment();
    }

    private @Nullable Shape shapeOf(
            Settings settings, WriterKind kind, String table, String reason, @Nullable String sql) {
        TextKey textKey = new TextKey(kind, sql == null ? "" : sql);
        Shape shape = texts.get(textKey);
        if (shape != null && shape.key.table().equals(table)) {
            return shape;
        }
        ShapeKey key = new ShapeKey(table, kind, SqlShape.of(sql));
        shape = shapes.get(key);
        if (shape == null) {
            if (!room(settings)) {
                return null;
            }
            Shape created = new Shape(key, reason);
            shape = shapes.putIfAbsent(key, created);
            if (shape == null) {
                shape = created;
                entries.incrementAndGet();
            }
        }
        if (textKey.sql().length() > MEMO_TEXT_LIMIT) {
            return shape;
        }
        if (texts.size() >= TEXTS) {
            texts.clear();
        }
        texts.put(textKey, shape);
        return shape;
    }

    private boolean room(Settings settings) {
        if (entries.get() < settings.maxWriters()) {
            return true;
        }
        dropped.increment();
        if (fullLogged.compareAndSet(false, true)) {
            LOG.log(
                    System.Logger.Level.WARNING,
                    "fenced (observe): the writer inventory is full ({0} entries,"
                            + " fenced.observe.maxWriters); further writers are counted, not kept",
                    settings.maxWriters());
        }
        return false;
    }

    /** The characters of statement text the memo keeps (for the test that it stays bounded). */
    long memoizedChars() {
        long n = 0;
        for (TextKey k : texts.keySet()) {
            n += k.sql().length();
        }
        return n;
    }

    public long dropped() {
        return dropped.sum();
    }

    public void clear() {
        texts.clear();
        shapes.clear();
        entries.set(0);
        dropped.reset();
        fullLogged.set(false);
    }

    public List<WriterInventory.Writer> writers() {
        List<WriterInventory.Writer> out = new ArrayList<>();
        for (Shape s : shapes.values()) {
            long writes = s.writes.get();
            if (writes == 0) {
                continue;
            }
            for (Map.Entry<String, Site> e : s.sites.entrySet()) {
                Site site = e.getValue();
                out.add(new WriterInventory.Writer(
                        s.key.table(),
                        s.key.kind(),
                        s.reason,
                        s.key.shape(),
                        e.getKey(),
                        site.samples.sum(),
                        writes,
                        Instant.ofEpochMilli(site.firstSeen),
                        Instant.ofEpochMilli(site.lastSeen)));
            }
        }
        out.sort(Comparator.comparing(WriterInventory.Writer::table)
                .thenComparing(w -> w.kind().label())
                .thenComparing(WriterInventory.Writer::shape)
                .thenComparing(WriterInventory.Writer::callSite));
        return out;
    }

    public List<WriterInventory.TableState> tables() {
        Map<String, Registered> registered = new TreeMap<>();
        for (List<Registered> list : configurations.values()) {
            for (Registered r : list) {
                // several configurations may list one table: the weakest mode is the one a writer can still get
                // through, so the table is only "enforce" when every configuration enforces it
                registered.merge(
                        r.table(), r, (a, b) -> b.mode().ordinal() > a.mode().ordinal() ? b : a);
            }
        }
        Map<String, Set<String>> withoutToken = new HashMap<>();
        Map<String, Set<String>> unfenceable = new HashMap<>();
        for (WriterInventory.Writer w : writers()) {
            (w.kind() == WriterKind.UNFENCEABLE ? unfenceable : withoutToken)
                    .computeIfAbsent(w.table(), t -> new java.util.HashSet<>())
                    .add(w.shape() + '\u0000' + w.callSite());
        }
        Set<String> names = new java.util.TreeSet<>(registered.keySet());
        names.addAll(withoutToken.keySet());
        names.addAll(unfenceable.keySet());
        List<WriterInventory.TableState> out = new ArrayList<>();
        for (String name : names) {
            Registered r = registered.get(name);
            int a = withoutToken.getOrDefault(name, Set.of()).size();
            int b = unfenceable.getOrDefault(name, Set.of()).size();
            FencingMode mode = r == null ? null : r.mode();
            out.add(new WriterInventory.TableState(
                    name, mode, r == null ? null : r.column(), r != null && r.checked(), a, b, state(mode, a, b)));
        }
        return out;
    }

    /** {@code mode} null: a relation only seen in a write. */
    private static String state(@Nullable FencingMode mode, int withoutToken, int unfenceable) {
        if (mode != null && mode != FencingMode.OBSERVE) {
            return mode.key();
        }
        String prefix = mode == FencingMode.OBSERVE ? "observe: " : "";
        if (withoutToken + unfenceable == 0) {
            return prefix + "no writer needs work (ready for enforce)";
        }
        List<String> parts = new ArrayList<>();
        if (withoutToken > 0) {
            parts.add(withoutToken + " without a token");
        }
        if (unfenceable > 0) {
            parts.add(unfenceable + " unfenceable");
        }
        int n = withoutToken + unfenceable;
        return prefix + n + (n == 1 ? " writer needs" : " writers need") + " work (" + String.join(", ", parts) + ")";
    }

    public String report(boolean json) {
        return json
                ? InventoryReport.json(tables(), writers(), dropped())
                : InventoryReport.markdown(tables(), writers(), dropped());
    }

    public void writeReport(Path path) throws IOException {
        String text = report(
                path.getFileName() != null && path.getFileName().toString().endsWith(".json"));
        Path dir = path.toAbsolutePath().getParent();
        if (dir != null) {
            Files.createDirectories(dir);
        }
        // written beside and moved into place: a reader never sees half a report
        Path tmp = Files.createTempFile(dir, ".fenced-inventory", ".tmp");
        try {
            Files.writeString(tmp, text, StandardCharsets.UTF_8);
            Files.move(tmp, path, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    public List<Path> writeConfiguredReports() throws IOException {
        List<Path> written = new ArrayList<>();
        for (Path p : new java.util.TreeSet<>(reportPaths)) {
            writeReport(p);
            written.add(p);
        }
        return written;
    }

    private void writeAtShutdown() {
        for (Path p : reportPaths) {
            try {
                writeReport(p);
            } catch (IOException | RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "fenced: could not write the writer inventory to " + p + ": " + e);
            }
        }
    }
}
