package dev.fenced.demo;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;

/**
 * Workers in separate JVMs. A worker that is to freeze asks its parent, which stops the whole JVM with
 * SIGSTOP (renewer thread and all, like a long GC pause), waits, and resumes it with SIGCONT.
 */
final class ProcessFleet implements AutoCloseable {

    private record Child(Process process, File errors, Thread reader, long[] counters) {}

    private final List<Child> children = new ArrayList<>();

    private ProcessFleet() {}

    /** {@code ledgerUrl}: the second database's fenced URL, or null when the job writes one. */
    static ProcessFleet start(Options options, Options.Mode mode, String fencedUrl, String ledgerUrl)
            throws IOException {
        ProcessFleet fleet = new ProcessFleet();
        String java = ProcessHandle.current()
                .info()
                .command()
                .orElse(System.getProperty("java.home") + File.separator + "bin" + File.separator + "java");
        for (int p = 0; p < options.processes; p++) {
            List<String> names = new ArrayList<>();
            for (int w = p; w < options.workers; w += options.processes) {
                names.add("worker-" + (w + 1));
            }
            List<String> command = new ArrayList<>(List.of(
                    java,
                    "-cp",
                    System.getProperty("java.class.path"),
                    WorkerProcess.class.getName(),
                    fencedUrl,
                    mode.key,
                    String.join(",", names),
                    ledgerUrl == null ? WorkerProcess.NO_LEDGER : ledgerUrl));
            command.addAll(options.workerArgs());
            File errors = File.createTempFile("fenced-demo-worker", ".log");
            errors.deleteOnExit();
            Process process = new ProcessBuilder(command).redirectError(errors).start();
            long[] counters = new long[2];
            Thread reader = new Thread(() -> serve(process, counters), "fleet-" + process.pid());
            reader.setDaemon(true);
            reader.start();
            fleet.children.add(new Child(process, errors, reader, counters));
        }
        return fleet;
    }

    /** Answers one child's freeze requests and collects its counters. */
    private static void serve(Process process, long[] counters) {
        try (BufferedReader in =
                        new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
                OutputStream out = process.getOutputStream()) {
            String line;
            while ((line = in.readLine()) != null) {
                String[] parts = line.split(" ");
                if (parts[0].equals(WorkerProcess.FREEZE)) {
                    signal("STOP", process.pid());
                    Thread.sleep(Long.parseLong(parts[2]));
                    signal("CONT", process.pid());
                    out.write((WorkerProcess.THAW + " " + parts[1] + "\n").getBytes(StandardCharsets.UTF_8));
                    out.flush();
                } else if (parts[0].equals(WorkerProcess.COUNTERS)) {
                    counters[0] = Long.parseLong(parts[1]);
                    counters[1] = Long.parseLong(parts[2]);
                }
            }
        } catch (IOException e) {
            // the child went away; its exit status tells the rest
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void signal(String signal, long pid) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid))
                .inheritIO()
                .start();
        if (kill.waitFor() != 0) {
            throw new IOException("kill -" + signal + " " + pid + " failed");
        }
    }

    boolean running() {
        return children.stream().anyMatch(c -> c.process().isAlive());
    }

    /** Waits for every child; returns summed renewals and failed renewals. */
    long[] awaitCounters() throws InterruptedException, IOException {
        long[] sum = new long[2];
        for (Child c : children) {
            int status = c.process().waitFor();
            c.reader().join();
            if (status != 0) {
                throw new IllegalStateException("worker process " + c.process().pid() + " exited with " + status + ": "
                        + Files.readString(c.errors().toPath()));
            }
            sum[0] += c.counters()[0];
            sum[1] += c.counters()[1];
        }
        return sum;
    }

    @Override
    public void close() {
        for (Child c : children) {
            c.process().destroyForcibly();
        }
    }
}
