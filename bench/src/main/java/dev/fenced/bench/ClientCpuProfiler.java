package dev.fenced.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.profile.InternalProfiler;
import org.openjdk.jmh.results.AggregationPolicy;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.ScalarResult;

/**
 * Client CPU time and allocation per operation, of the benchmark's own threads only (JMH's workers): the
 * per-thread counters of {@link com.sun.management.ThreadMXBean}, read before and after each iteration and
 * divided by every operation the iteration ran (as JMH's {@code -prof gc} divides allocation). Unlike
 * throughput, this does not move when PostgreSQL or another process gets less of the machine: it is the
 * driver's own cost. Pool housekeeping, GC and JIT threads are not counted.
 *
 * <p>Results: {@code client.cpu} (µs/op) and {@code client.alloc} (B/op).
 */
public final class ClientCpuProfiler implements InternalProfiler {

    public static final String CPU = "client.cpu";
    public static final String ALLOC = "client.alloc";

    private final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    private Map<Long, long[]> before = Map.of();

    public ClientCpuProfiler() {
        if (!threads.isThreadCpuTimeSupported() || !threads.isThreadAllocatedMemorySupported()) {
            throw new IllegalStateException("this JVM cannot measure per-thread CPU time and allocation");
        }
        threads.setThreadCpuTimeEnabled(true);
        threads.setThreadAllocatedMemoryEnabled(true);
    }

    @Override
    public String getDescription() {
        return "CPU time and allocation of the benchmark threads, per operation";
    }

    @Override
    public void beforeIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams) {
        before = workers(benchmarkParams);
    }

    @Override
    public List<ScalarResult> afterIteration(
            BenchmarkParams benchmarkParams, IterationParams iterationParams, IterationResult result) {
        Map<Long, long[]> after = workers(benchmarkParams);
        long cpu = 0;
        long alloc = 0;
        for (Map.Entry<Long, long[]> e : after.entrySet()) {
            long[] was = before.getOrDefault(e.getKey(), new long[2]); // started during the iteration: from zero
            cpu += e.getValue()[0] - was[0];
            alloc += e.getValue()[1] - was[1];
        }
        long ops = Math.max(1, result.getMetadata().getAllOps());
        return List.of(
                new ScalarResult(CPU, cpu / 1e3 / ops, "us/op", AggregationPolicy.AVG),
                new ScalarResult(ALLOC, (double) alloc / ops, "B/op", AggregationPolicy.AVG));
    }

    /** CPU ns and allocated bytes of every live JMH worker thread of this benchmark, by thread id. */
    private Map<Long, long[]> workers(BenchmarkParams params) {
        String prefix = params.getBenchmark();
        Map<Long, long[]> out = new HashMap<>();
        for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
            if (info == null) {
                continue;
            }
            String name = info.getThreadName();
            if (name.startsWith(prefix) && name.contains("-jmh-worker-")) {
                long id = info.getThreadId();
                long cpu = threads.getThreadCpuTime(id);
                long alloc = threads.getThreadAllocatedBytes(id);
                if (cpu >= 0 && alloc >= 0) {
                    out.put(id, new long[] {cpu, alloc});
                }
            }
        }
        return out;
    }
}
