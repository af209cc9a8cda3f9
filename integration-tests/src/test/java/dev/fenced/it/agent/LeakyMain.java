package dev.fenced.it.agent;

import dev.fenced.Fencing;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Child main that leaks on purpose, for {@link ChildLeakCheckIT}: a pool thread binds a token and never closes its
 * scope, then waits for its next task while the JVM exits: {@code System.exit} (shutdown hooks run), or with a
 * second argument {@code halt} (none run), or {@code hold} (it waits on stdin for the test to kill it).
 */
public final class LeakyMain {

    private LeakyMain() {}

    @SuppressWarnings("MustBeClosedChecker") // the point: the scope is never closed
    public static void main(String[] args) throws Exception {
        ExecutorService pool = Executors.newSingleThreadExecutor();
        pool.submit(() -> Fencing.bind(Long.parseLong(args[0]))).get();
        System.out.println("leaked");
        String end = args.length > 1 ? args[1] : "exit";
        switch (end) {
            case "halt" -> Runtime.getRuntime().halt(0);
            case "hold" -> System.in.read();
            default -> System.exit(0);
        }
        System.exit(0);
    }
}
