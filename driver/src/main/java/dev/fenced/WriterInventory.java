package dev.fenced;

import dev.fenced.internal.observe.Inventory;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The writer inventory observe mode keeps: every write to a protected table that enforce mode would refuse
 * (no token bound, its lease lost, or a statement fenced cannot fence), grouped by table, statement shape
 * (the text with its constants replaced by {@code ?} and whitespace folded) and call site (the first stack
 * frame outside fenced, the JDK, the pool and the frameworks listed in {@code fenced.observe.skipFrames}).
 * Process-wide, like {@link FencedStats}; also over JMX ({@code dev.fenced:type=WriterInventory}) and as a
 * report ({@code fenced.observe.report}, written at shutdown and by {@link #writeReport()}).
 *
 * <p>Cost: a write that carries a token never reaches the inventory. For the others, each distinct text is
 * shaped once; the call site is walked for the first {@value Inventory#ATTRIBUTED_FIRST} writes of each shape
 * and then for one in {@value Inventory#SAMPLE_EVERY}, so {@link Writer#samples()} counts walks, while
 * {@link Writer#shapeWrites()} counts every write of the shape exactly. At most
 * {@code fenced.observe.maxWriters} entries are kept; past that new ones are only counted
 * ({@link #dropped()}).
 */
public final class WriterInventory {

    private WriterInventory() {}

    /**
     * One writer that needs work before enforce mode: a statement shape sent to {@code table} from
     * {@code callSite}.
     *
     * @param kind        why enforce mode would refuse it: no token, a lost lease, a token of another domain, or a
     *                    statement fenced cannot fence (reports print its {@link WriterKind#label() label})
     * @param reason      why enforce mode would refuse it (the construct, for an unfenceable statement)
     * @param samples     writes of this shape whose call site was walked and found here
     * @param shapeWrites every write of this shape to this table for this reason, from any call site
     */
    public record Writer(
            String table,
            WriterKind kind,
            String reason,
            String shape,
            String callSite,
            long samples,
            long shapeWrites,
            Instant firstSeen,
            Instant lastSeen) {}

    /**
     * A protected table's roll-out state.
     *
     * @param mode                the table's mode, or null for a relation only seen in a write (a view, a
     *                            partition; reports print {@code unknown})
     * @param column              its fence column, or null when not known
     * @param columnChecked       true when the first connect checked that the column is there and bigint
     *                            ({@code fenced.checkSchema}); the connect fails otherwise
     * @param writersWithoutToken call sites writing without a token (or under a lost lease)
     * @param unfenceableWriters  call sites sending a statement fenced cannot fence
     * @param state               in words: {@code enforce}, {@code observe: 2 writers need work}, ...
     */
    public record TableState(
            String table,
            @Nullable FencingMode mode,
            @Nullable String column,
            boolean columnChecked,
            int writersWithoutToken,
            int unfenceableWriters,
            String state) {

        /** True in observe mode once no writer needs work: the table can be switched to enforce. */
        public boolean readyForEnforce() {
            return mode == FencingMode.OBSERVE && writersWithoutToken == 0 && unfenceableWriters == 0;
        }
    }

    /** Every writer recorded, ordered by table, kind, shape and call site. */
    public static List<Writer> writers() {
        return Inventory.get().writers();
    }

    /** The writers of one table (its name as fenced reports it: the registered spelling). */
    public static List<Writer> writers(String table) {
        return writers().stream().filter(w -> w.table().equals(table)).toList();
    }

    /**
     * The roll-out state of every protected table fenced has connected for, and of every table written. A table
     * listed by several configurations in this process shows the weakest of their modes (the one a writer can
     * still get through): it is {@code enforce} only when every configuration enforces it.
     */
    public static List<TableState> tables() {
        return Inventory.get().tables();
    }

    /** Entries not kept because the inventory was full ({@code fenced.observe.maxWriters}). */
    public static long dropped() {
        return Inventory.get().dropped();
    }

    /** The report as Markdown. */
    public static String markdown() {
        return Inventory.get().report(false);
    }

    /** The report as JSON. */
    public static String json() {
        return Inventory.get().report(true);
    }

    /** Writes the report to {@code path}: JSON when its name ends in {@code .json}, else Markdown. */
    public static void writeReport(Path path) throws IOException {
        Inventory.get().writeReport(path);
    }

    /** Writes the report to every path configured with {@code fenced.observe.report}; returns them. */
    public static List<Path> writeReport() throws IOException {
        return Inventory.get().writeConfiguredReports();
    }

    /** Forgets every writer (after a fix, to see what is still there; in tests). */
    public static void clear() {
        Inventory.get().clear();
    }
}
