package dev.fenced.internal.metrics;

import dev.fenced.internal.log.Logs;
import java.lang.management.ManagementFactory;
import java.util.function.Supplier;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/** Registers fenced's MBeans on the platform server: once per name, and never failing the caller. */
public final class Jmx {

    private static final System.Logger LOG = Logs.get("dev.fenced.metrics");

    private Jmx() {}

    /** Registers {@code bean} under {@code objectName} unless something already is; logs and goes on on failure. */
    public static void register(String objectName, Supplier<?> bean) {
        try {
            MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            ObjectName name = new ObjectName(objectName);
            if (!server.isRegistered(name)) {
                server.registerMBean(bean.get(), name);
            }
        } catch (JMException | RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "fenced: could not register the JMX MBean " + objectName + ": " + e);
        }
    }
}
