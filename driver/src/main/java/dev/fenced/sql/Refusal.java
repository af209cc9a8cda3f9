package dev.fenced.sql;

/** Raised inside the rewriter when a statement cannot be fenced safely; becomes a refused plan. */
final class Refusal extends Exception {

    private static final long serialVersionUID = 1L;

    final String table;
    final String construct;

    Refusal(String table, String construct) {
        super(construct, null, false, false);
        this.table = table;
        this.construct = construct;
    }
}
