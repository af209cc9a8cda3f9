package dev.fenced.it.locks.node;

import dev.fenced.it.support.TestDatabase;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import javax.sql.DataSource;
import org.quartz.Scheduler;
import org.quartz.SchedulerException;
import org.quartz.impl.SchedulerRepository;
import org.quartz.impl.StdSchedulerFactory;
import org.quartz.spi.JobFactory;
import org.quartz.utils.ConnectionProvider;
import org.quartz.utils.DBConnectionManager;

/** Quartz in cluster mode (JDBC JobStore on PostgreSQL, {@code isClustered=true}) as the lock tests run it. */
public final class QuartzCluster {

    private QuartzCluster() {}

    /** Quartz's own tables, from the script Quartz ships. */
    public static void createTables(TestDatabase db) throws Exception {
        try (InputStream in = Scheduler.class.getResourceAsStream("/org/quartz/impl/jdbcjobstore/tables_postgres.sql");
                Connection c = db.rawConnection();
                Statement s = c.createStatement()) {
            s.execute(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        }
    }

    /**
     * A not yet started scheduler, instance {@code instanceId} of {@code cluster}, on {@code pool}, its jobs made by
     * {@code jobs}. One worker thread: a node whose worker is busy (or frozen) fires nothing, as a frozen process
     * would not; check-in every second, so the cluster notices a frozen node quickly.
     */
    public static Scheduler scheduler(String cluster, String instanceId, DataSource pool, JobFactory jobs)
            throws SchedulerException {
        String ds = "fenced-quartz-" + cluster + "-" + instanceId;
        DBConnectionManager.getInstance().addConnectionProvider(ds, new ConnectionProvider() {
            @Override
            public Connection getConnection() throws SQLException {
                return pool.getConnection();
            }

            @Override
            public void shutdown() {}

            @Override
            public void initialize() {}
        });
        Properties p = new Properties();
        p.setProperty("org.quartz.scheduler.instanceName", cluster);
        p.setProperty("org.quartz.scheduler.instanceId", instanceId);
        p.setProperty("org.quartz.threadPool.threadCount", "1");
        p.setProperty("org.quartz.scheduler.idleWaitTime", "1000");
        p.setProperty("org.quartz.jobStore.class", "org.quartz.impl.jdbcjobstore.JobStoreTX");
        p.setProperty("org.quartz.jobStore.driverDelegateClass", "org.quartz.impl.jdbcjobstore.PostgreSQLDelegate");
        p.setProperty("org.quartz.jobStore.dataSource", ds);
        p.setProperty("org.quartz.jobStore.isClustered", "true");
        p.setProperty("org.quartz.jobStore.clusterCheckinInterval", "1000");
        Scheduler scheduler = new StdSchedulerFactory(p).getScheduler();
        // Quartz keeps one scheduler per name in a JVM; a cluster needs one name, and an in-process test two nodes.
        SchedulerRepository.getInstance().remove(scheduler.getSchedulerName());
        scheduler.setJobFactory(jobs);
        return scheduler;
    }
}
