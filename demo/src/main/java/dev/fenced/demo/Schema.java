package dev.fenced.demo;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The scenario's tables. {@code totals} is the protected one: the job keeps it equal to the sum of each
 * restaurant's {@code orders}, writing whole new values. {@code work} holds the triggers (each restaurant's
 * run is started on two workers at once, like two nodes' schedulers firing), {@code done} marks finished
 * runs, and {@code runs} is the audit every holder writes, from which the report is computed. A holder
 * that finds its lease lost before writing puts the trigger back, as a scheduler would retry.
 */
final class Schema {

    private Schema() {}

    static void create(Connection c, int restaurants, long seed) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute(
                    "CREATE TABLE orders (id bigserial PRIMARY KEY, restaurant_id int NOT NULL, amount bigint NOT NULL)");
            s.execute("CREATE INDEX orders_by_restaurant ON orders (restaurant_id, id)");
            s.execute("CREATE TABLE totals (restaurant_id int PRIMARY KEY, amount bigint NOT NULL DEFAULT 0,"
                    + " as_of_order bigint NOT NULL DEFAULT 0, last_token bigint)");
            s.execute("CREATE TABLE work (seq bigserial PRIMARY KEY, restaurant_id int NOT NULL)");
            s.execute("CREATE TABLE done (restaurant_id int PRIMARY KEY, token bigint NOT NULL, worker text NOT NULL)");
            s.execute("CREATE TABLE runs (token bigint PRIMARY KEY, restaurant_id int NOT NULL, worker text NOT NULL,"
                    + " slow boolean NOT NULL, paused boolean NOT NULL, acquired_at bigint NOT NULL,"
                    + " pause_from bigint, pause_to bigint, write_at bigint, ended_at bigint NOT NULL,"
                    + " as_of_order bigint, amount bigint, outcome text NOT NULL, freeze_kind text)");
            s.execute("INSERT INTO totals (restaurant_id) SELECT g FROM generate_series(1, " + restaurants + ") g");
            // a day of orders before the night starts, so totals are never trivially zero
            s.execute("INSERT INTO orders (restaurant_id, amount) SELECT 1 + (g % " + restaurants + "),"
                    + " 100 + (g * 7919) % 4900 FROM generate_series(1, " + (restaurants * 20) + ") g");
            s.execute("ANALYZE orders");
        }
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO work (restaurant_id) VALUES (?)")) {
            for (int r : shuffled(restaurants, seed)) {
                for (int copy = 0; copy < 2; copy++) {
                    ps.setInt(1, r);
                    ps.addBatch();
                }
            }
            ps.executeBatch();
        }
    }

    /** The second database's table: a copy of every restaurant's total, protected as {@code totals} is. */
    static void createLedger(Connection c, int restaurants) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("CREATE TABLE ledger (restaurant_id int PRIMARY KEY, amount bigint NOT NULL DEFAULT 0,"
                    + " as_of_order bigint NOT NULL DEFAULT 0, last_token bigint)");
            s.execute("INSERT INTO ledger (restaurant_id) SELECT g FROM generate_series(1, " + restaurants + ") g");
        }
    }

    private static int[] shuffled(int n, long seed) {
        int[] a = new int[n];
        for (int i = 0; i < n; i++) {
            a[i] = i + 1;
        }
        java.util.Random random = new java.util.Random(seed);
        for (int i = n - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            int t = a[i];
            a[i] = a[j];
            a[j] = t;
        }
        return a;
    }
}
