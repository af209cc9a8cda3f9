package dev.fenced.internal.observe;

import dev.fenced.WriterInventory;
import dev.fenced.internal.metrics.Jmx;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/** The MBean behind {@link InventoryMXBean}, {@code dev.fenced:type=WriterInventory}, beside the metrics MBean. */
public final class InventoryBean implements InventoryMXBean {

    private static final AtomicBoolean PUBLISHED = new AtomicBoolean();

    /** Registers the inventory's MBean once per class loader; never fails the caller. */
    public static void publish() {
        if (PUBLISHED.compareAndSet(false, true)) {
            Jmx.register("dev.fenced:type=WriterInventory", InventoryBean::new);
        }
    }

    @Override
    public String[] getWriters() {
        return Inventory.get().writers().stream()
                .map(w -> w.table() + "\t" + w.kind().label() + "\t" + w.shape() + "\t"
                        + w.callSite() + "\tsamples=" + w.samples() + "\twrites=" + w.shapeWrites() + "\tfirst="
                        + w.firstSeen()
                        + "\tlast=" + w.lastSeen())
                .toArray(String[]::new);
    }

    @Override
    public String[] getTableStates() {
        return Inventory.get().tables().stream()
                .map(t -> t.table() + "\t" + t.state())
                .toArray(String[]::new);
    }

    @Override
    public long getWriterCount() {
        return Inventory.get().writers().size();
    }

    @Override
    public long getDropped() {
        return Inventory.get().dropped();
    }

    @Override
    public String getReportMarkdown() {
        return WriterInventory.markdown();
    }

    @Override
    public String getReportJson() {
        return WriterInventory.json();
    }

    @Override
    public String writeReport() throws java.io.IOException {
        List<Path> paths = Inventory.get().writeConfiguredReports();
        return paths.isEmpty() ? "no fenced.observe.report path is configured" : "written to " + paths;
    }

    @Override
    public void clear() {
        Inventory.get().clear();
    }
}
