package dev.fenced.internal.observe;

import dev.fenced.WriterInventory;
import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;

/** The inventory as a report: Markdown for people, JSON for tools. */
final class InventoryReport {

    private InventoryReport() {}

    static String markdown(
            List<WriterInventory.TableState> tables, List<WriterInventory.Writer> writers, long dropped) {
        StringBuilder b = new StringBuilder("# fenced writer inventory\n\n");
        b.append("Written ")
                .append(Instant.now())
                .append(". ")
                .append(writers.size())
                .append(writers.size() == 1 ? " writer needs" : " writers need")
                .append(" work before enforce mode.");
        if (dropped > 0) {
            b.append(" ").append(dropped).append(" entries were not kept (fenced.observe.maxWriters).");
        }
        b.append("\n\n## Tables\n\n| table | mode | fence column | state |\n|---|---|---|---|\n");
        for (WriterInventory.TableState t : tables) {
            b.append("| ")
                    .append(cell(t.table()))
                    .append(" | ")
                    .append(mode(t))
                    .append(" | ")
                    .append(
                            t.column() == null
                                    ? "—"
                                    : cell(t.column()) + (t.columnChecked() ? " (present)" : " (not checked)"))
                    .append(" | ")
                    .append(cell(t.state()))
                    .append(" |\n");
        }
        b.append("\n## Writers\n\n| table | kind | reason | statement shape | writes of the shape | call site"
                + " | samples | first seen | last seen |\n|---|---|---|---|---|---|---|---|---|\n");
        for (WriterInventory.Writer w : writers) {
            b.append("| ")
                    .append(cell(w.table()))
                    .append(" | ")
                    .append(w.kind().label())
                    .append(" | ")
                    .append(cell(w.reason()))
                    .append(" | `")
                    .append(cell(w.shape()).replace("`", "'"))
                    .append("` | ")
                    .append(w.shapeWrites())
                    .append(" | `")
                    .append(cell(w.callSite()))
                    .append("` | ")
                    .append(w.samples())
                    .append(" | ")
                    .append(w.firstSeen())
                    .append(" | ")
                    .append(w.lastSeen())
                    .append(" |\n");
        }
        return b.toString();
    }

    /** A relation only seen in a write has no mode: {@code unknown}. */
    private static String mode(WriterInventory.TableState t) {
        return t.mode() == null ? "unknown" : t.mode().key();
    }

    private static String cell(String s) {
        return s == null ? "" : s.replace("|", "\\|").replace("\n", " ");
    }

    static String json(List<WriterInventory.TableState> tables, List<WriterInventory.Writer> writers, long dropped) {
        StringBuilder b = new StringBuilder("{\n  \"written\": ")
                .append(str(Instant.now().toString()))
                .append(",\n  \"dropped\": ")
                .append(dropped)
                .append(",\n  \"tables\": [");
        String sep = "\n";
        for (WriterInventory.TableState t : tables) {
            b.append(sep)
                    .append("    {\"table\": ")
                    .append(str(t.table()))
                    .append(", \"mode\": ")
                    .append(str(mode(t)))
                    .append(", \"column\": ")
                    .append(str(t.column()))
                    .append(", \"columnChecked\": ")
                    .append(t.columnChecked())
                    .append(", \"writersWithoutToken\": ")
                    .append(t.writersWithoutToken())
                    .append(", \"unfenceableWriters\": ")
                    .append(t.unfenceableWriters())
                    .append(", \"readyForEnforce\": ")
                    .append(t.readyForEnforce())
                    .append(", \"state\": ")
                    .append(str(t.state()))
                    .append("}");
            sep = ",\n";
        }
        b.append(tables.isEmpty() ? "]" : "\n  ]").append(",\n  \"writers\": [");
        sep = "\n";
        for (WriterInventory.Writer w : writers) {
            b.append(sep)
                    .append("    {\"table\": ")
                    .append(str(w.table()))
                    .append(", \"kind\": ")
                    .append(str(w.kind().label()))
                    .append(", \"reason\": ")
                    .append(str(w.reason()))
                    .append(", \"shape\": ")
                    .append(str(w.shape()))
                    .append(", \"callSite\": ")
                    .append(str(w.callSite()))
                    .append(", \"samples\": ")
                    .append(w.samples())
                    .append(", \"shapeWrites\": ")
                    .append(w.shapeWrites())
                    .append(", \"firstSeen\": ")
                    .append(str(w.firstSeen().toString()))
                    .append(", \"lastSeen\": ")
                    .append(str(w.lastSeen().toString()))
                    .append("}");
            sep = ",\n";
        }
        return b.append(writers.isEmpty() ? "]" : "\n  ]").append("\n}\n").toString();
    }

    private static String str(@Nullable String s) {
        if (s == null) {
            return "null";
        }
        return JsonText.quote(s);
    }
}
