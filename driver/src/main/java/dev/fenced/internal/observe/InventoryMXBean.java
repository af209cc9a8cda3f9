package dev.fenced.internal.observe;

/** The JMX view of the writer inventory: {@code dev.fenced:type=WriterInventory}. */
public interface InventoryMXBean {

    /** One line per writer: table, kind, shape, call site, samples, writes of the shape, first and last seen. */
    String[] getWriters();

    /** One line per protected table: its roll-out state. */
    String[] getTableStates();

    long getWriterCount();

    long getDropped();

    String getReportMarkdown();

    String getReportJson();

    /** Writes the report to the paths in {@code fenced.observe.report}; returns them, or says none is set. */
    String writeReport() throws java.io.IOException;

    /** Forgets every writer. */
    void clear();
}
