package dev.fenced.it.agent;

import dev.fenced.Fencing;
import dev.fenced.FencingScope;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.Timer;
import java.util.TimerTask;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;

/**
 * Child main for the agent's start-up race ({@link AgentRaceIT}): several threads, each with its own token bound,
 * are released at once and each is the first to use one instrumented JDK type (a thread pool, a fork-join pool, a
 * completable future, a timer), while another loads the configured lease-bound class. So the agent's Byte Buddy
 * loads, and its first types are woven, with other instrumented types loading on other threads at the same moment.
 * Each task reports the token it saw ({@code race <mechanism> <seen> <expected>}); a thread not done in time is
 * reported as {@code race stuck} with its stack, and the JVM exits 3.
 *
 * <p>Before the threads are released it loads {@link Go}, a marker in the class-loading log: the test checks that no
 * Byte Buddy class loaded before it, so the race really was one.
 */
public final class RaceMain {

    private RaceMain() {}

    /** Loaded just before the threads are released: its line in the class-loading log marks the start. */
    static final class Go {
        static void touch() {}
    }

    private static String token() {
        OptionalLong t = Fencing.currentToken();
        return t.isPresent() ? Long.toString(t.getAsLong()) : "none";
    }

    public static void main(String[] args) throws Exception {
        String leaseClass = args[0];
        List<String> names = List.of("tpe", "fjp", "cf", "timer", "lease");
        CyclicBarrier start = new CyclicBarrier(names.size() + 1);
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < names.size(); i++) {
            String name = names.get(i);
            long expected = 1_000 + i;
            Thread t = new Thread(
                    () -> {
                        try (FencingScope ignored = Fencing.bind(expected)) {
                            start.await();
                            String seen = name.equals("lease") ? loadLeaseClass(leaseClass) : handOver(name);
                            System.out.println("race " + name + " " + seen + " " + expected);
                        } catch (Exception e) {
                            System.out.println("race " + name + " failed " + e);
                        }
                    },
                    "race-" + name);
            threads.add(t);
            t.start();
        }
        Go.touch();
        start.await(30, TimeUnit.SECONDS);
        int stuck = 0;
        for (Thread t : threads) {
            t.join(TimeUnit.SECONDS.toMillis(30));
            if (t.isAlive()) {
                stuck++;
                System.out.println("race stuck " + t.getName());
                for (StackTraceElement e : t.getStackTrace()) {
                    System.out.println("race stuck   at " + e);
                }
            }
        }
        System.out.flush();
        System.exit(stuck == 0 ? 0 : 3); // pools and the timer keep non-daemon threads; the leak check runs at exit
    }

    /** The token a task handed over by {@code mechanism} saw; the mechanism's types load here, first in this JVM. */
    private static String handOver(String mechanism) throws Exception {
        Callable<String> probe = RaceMain::token;
        switch (mechanism) {
            case "tpe": {
                ExecutorService pool = Executors.newFixedThreadPool(1);
                return pool.submit(probe).get(20, TimeUnit.SECONDS);
            }
            case "fjp":
                return new ForkJoinPool(1).submit(probe).get(20, TimeUnit.SECONDS);
            case "cf":
                return CompletableFuture.supplyAsync(RaceMain::token).get(20, TimeUnit.SECONDS);
            case "timer": {
                BlockingQueue<String> seen = new ArrayBlockingQueue<>(1);
                new Timer(true)
                        .schedule(
                                new TimerTask() {
                                    @Override
                                    public void run() {
                                        seen.offer(token());
                                    }
                                },
                                1);
                String s = seen.poll(20, TimeUnit.SECONDS);
                return s == null ? "timeout" : s;
            }
            default:
                throw new IllegalArgumentException(mechanism);
        }
    }

    /** Loads and initialises the lease-bound class (woven as it loads); its method is never called. */
    private static String loadLeaseClass(String name) throws ClassNotFoundException {
        Class.forName(name, true, RaceMain.class.getClassLoader());
        return token(); // the loading thread's own binding, untouched by the weaving
    }
}
