package dev.fenced.cli;

import dev.fenced.FencingMode;
import dev.fenced.config.ProtectedTable;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** What {@code check} found for one protected-table entry, and its roll-out state. */
final class TableCheck {

    final ProtectedTable table;
    final List<Finding> findings = new ArrayList<>();
    final List<ColumnFix> fixes = new ArrayList<>();

    TableCheck(ProtectedTable table) {
        this.table = table;
    }

    void add(Finding f) {
        findings.add(f);
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
        m.put("findings", findings.stream().map(Finding::json).toList());
        return m;
    }
}
