package dev.fenced.bench;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.Optional;

/**
 * CPU time of a server process and its children (a PostgreSQL postmaster and its backends, an etcd), read from the
 * operating system through {@link ProcessHandle}, and of this JVM (every thread: clients' I/O threads and the GC
 * included). The scale curves read both before and after a measured call; children that exit in between take their
 * time with them, which the callers' servers (long-lived backends, one etcd process) make negligible.
 */
final class ProcessCpu {

    private final long pid;

    private ProcessCpu(long pid) {
        this.pid = pid;
    }

    /** The process tree rooted at {@code pid}, or none if {@code pid} is not positive (a remote server). */
    static Optional<ProcessCpu> tree(long pid) {
        return pid > 0 && ProcessHandle.of(pid).isPresent() ? Optional.of(new ProcessCpu(pid)) : Optional.empty();
    }

    /** Nanoseconds of CPU the tree has used so far. */
    long nanos() {
        return ProcessHandle.of(pid)
                .map(root -> nanos(root)
                        + root.descendants().mapToLong(ProcessCpu::nanos).sum())
                .orElse(0L);
    }

    private static long nanos(ProcessHandle p) {
        return p.info().totalCpuDuration().map(Duration::toNanos).orElse(0L);
    }

    /** Nanoseconds of CPU this JVM has used so far. */
    static long jvmNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    /** The 1, 5 and 15 minute load averages and run queue, as {@code /proc/loadavg} has them. */
    static String loadAverage() {
        try {
            return java.nio.file.Files.readString(java.nio.file.Path.of("/proc/loadavg"))
                    .trim();
        } catch (java.io.IOException e) {
            return String.format(
                    java.util.Locale.ROOT,
                    "%.2f",
                    ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
        }
    }
}
