package dev.fenced.demo;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/** Orders keep arriving while the night's job runs; written on a plain connection (orders are not protected). */
@SuppressWarnings("try") // close() waits for the feed's thread, so it may be interrupted: its callers all throw
final class OrderFeed implements AutoCloseable {

    private static final long TICK_MILLIS = 50;

    private final Thread thread;
    private volatile boolean running = true;
    private volatile SQLException failure;

    OrderFeed(String jdbcUrl, int restaurants, int perSecond) {
        long perTick = Math.max(1, perSecond * TICK_MILLIS / 1000);
        thread = new Thread(
                () -> {
                    try (Connection c = DriverManager.getConnection(jdbcUrl);
                            PreparedStatement ps = c.prepareStatement(
                                    "INSERT INTO orders (restaurant_id, amount) SELECT 1 + floor(random() * ?)::int,"
                                            + " 100 + floor(random() * 4900)::int FROM generate_series(1, ?)")) {
                        while (running) {
                            ps.setInt(1, restaurants);
                            ps.setLong(2, perTick);
                            ps.executeUpdate();
                            Thread.sleep(TICK_MILLIS);
                        }
                    } catch (SQLException e) {
                        failure = e;
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                },
                "order-feed");
        thread.setDaemon(true);
        thread.start();
    }

    @Override
    public void close() throws SQLException, InterruptedException {
        running = false;
        thread.join();
        if (failure != null) {
            throw failure;
        }
    }
}
