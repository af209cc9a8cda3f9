package dev.fenced.internal.cli;

import dev.fenced.FencingMode;
import dev.fenced.internal.config.ProtectedTable;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** What {@code check} found for one protected-table entry, and its roll-out state. */
final class TableCheck {

    final ProtectedTable table;
    final List<Finding> findings = new ArrayList<>();
    final List<ColumnFix> fixes = new ArrayList<>();
    /** From {@code --inventory}: writers without a token and unfenceable ones; -1 when no report was read. */
    private int withoutToken = -1;

    private int unfenceable = -1;

    TableCheck(ProtectedTable table) {
        this.table = table;
    }

    void add(Finding f) {
        findings.add(f);
    }

    /**
     * Adds what the application's writer inventory says of this table: each writer that still needs work blocks
     * enforce mode (one finding per statement shape and call site), and so does a report that does not list the
     * table (it cannot show its writers carry a token) or that dropped entries.
     */
    void inventory(InventoryFile report) {
        InventoryFile.Table entry = report.table(table.name());
        List<InventoryFile.Writer> writers = report.writersOf(table.name());
        withoutToken = InventoryFile.count(writers, false);
        unfenceable = InventoryFile.count(writers, true);
        String from = "inventory " + report.path() + " (written " + report.written() + ")";
        if (entry == null && writers.isEmpty()) {
            add(Finding.missing(
                    from + " does not list " + table.displayName() + ": the application that wrote it"
                            + " does not protect the table, so it cannot show that its writers carry a token",
                    null));
            return;
        }
        add(Finding.info(from + ": mode " + (entry == null ? "unknown" : entry.mode()) + " in the application, "
                + withoutToken + " writer(s) without a token, " + unfenceable + " unfenceable"));
        for (InventoryFile.Writer w : writers) {
            add(Finding.missing(
                    (w.unfenceable()
                                    ? "unfenceable writer (" + w.reason() + ")"
                                    : "writer without a token (" + w.kind() + ")")
                            + " at " + w.callSite() + ": " + w.shape()
                            + " (" + w.shapeWrites() + " write(s) of the shape)",
                    null));
        }
        if (report.dropped() > 0) {
            add(Finding.missing(
                    from + " dropped " + report.dropped() + " entries (fenced.observe.maxWriters):"
                            + " more writers need work than it lists",
                    null));
        }
    }

    /** Ready for enforce mode: nothing missing (warnings name writes fenced cannot see; they do not block). */
    boolean ready() {
        return table.mode() == FencingMode.OFF || findings.stream().noneMatch(f -> f.level() == Finding.Level.MISSING);
    }

    /** The roll-out state: column missing, observe, enforce (or off). */
    String state() {
        if (table.mode() == FencingMode.OFF) {
            return "off";
        }
        if (!fixes.isEmpty()) {
            return "column missing";
        }
        if (withoutToken > 0 || unfenceable > 0) {
            return table.mode().key() + ", " + withoutToken + " writer(s) without a token, " + unfenceable
                    + " unfenceable";
        }
        if (!ready()) {
            return "not ready";
        }
        return table.mode() == FencingMode.OBSERVE ? "observe, ready for enforce" : "enforce";
    }

    Map<String, Object> json() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("table", table.displayName());
        m.put("column", table.column());
        m.put("mode", table.mode().key());
        m.put("state", state());
        m.put("ready", ready());
        if (withoutToken >= 0) {
            m.put("writersWithoutToken", withoutToken);
            m.put("unfenceableWriters", unfenceable);
        }
        m.put("findings", findings.stream().map(Finding::json).toList());
        return m;
    }
}
