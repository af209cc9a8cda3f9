package dev.fenced.it.agent;

import dev.fenced.Fencing;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.util.OptionalLong;
import java.util.Properties;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The child JVM's main: {@code JobMain MODE URL [args]}. Prints one line per fact the test checks
 * ({@code token <where> <n|none>}, {@code ran <true|false>}, {@code error <class> <message>}); exit status 3
 * when the job threw.
 *
 * <ul>
 *   <li>{@code writes}: opens a connection (as an application's pool would at start), then runs the job.</li>
 *   <li>{@code hold}: like writes, but inside the job says {@code holding} and waits for a line on stdin.</li>
 *   <li>{@code pooled}: runs the job, then hands an unrelated task to the same single-thread pool from an
 *       unfenced thread; it reports the worker's token and tries a protected write.</li>
 *   <li>{@code nested}: runs the recursive {@link NightlyJob#nested} three levels deep.</li>
 *   <li>{@code childfirst DRIVER_JAR PG_JAR}: inside the job, loads fenced-driver child-first (with its own
 *       copy of the context store) and uses it from a pool task.</li>
 * </ul>
 */
public final class JobMain {

    private JobMain() {}

    public static void main(String[] args) throws Exception {
        String mode = args[0];
        String url = args[1];
        System.out.println("main started");
        ExecutorService pool = Executors.newFixedThreadPool(mode.equals("pooled") ? 1 : 2);
        NightlyJob job = new NightlyJob(url, JobMain::report, pool);
        try {
            DriverManager.getConnection(url).close(); // the application opens its database at start
            switch (mode) {
                case "writes":
                    break;
                case "hold":
                    job.inside = JobMain::holdUntilTold;
                    break;
                case "pooled":
                    break;
                case "nested":
                    System.out.println("levels " + job.nested(2));
                    System.exit(0);
                    break;
                case "childfirst":
                    job.inside = () -> childFirst(job, url, Path.of(args[2]), Path.of(args[3]));
                    break;
                default:
                    throw new IllegalArgumentException(mode);
            }
            boolean ran = job.run();
            System.out.println("ran " + ran);
            if (mode.equals("pooled")) {
                afterwards(job, url);
            }
        } catch (Throwable t) {
            Throwable root = t;
            while (root.getCause() != null && !(root instanceof java.sql.SQLException)) {
                root = root.getCause();
            }
            System.out.println("error " + root.getClass().getName() + " " + root.getMessage());
            System.out.flush();
            System.exit(3);
        }
        pool.shutdown();
        System.exit(0);
    }

    static void report(String where) {
        System.out.println("token " + where + " " + show(Fencing.currentToken()));
    }

    private static String show(OptionalLong t) {
        return t.isPresent() ? Long.toString(t.getAsLong()) : "none";
    }

    private static void holdUntilTold() {
        System.out.println("holding");
        System.out.flush();
        try {
            new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** From this unfenced thread, a task on the worker that ran a fenced task inside the job. */
    private static void afterwards(NightlyJob job, String url) throws Exception {
        String seen = job.pool
                .submit(() -> {
                    String token = show(Fencing.currentToken());
                    try (Connection c = DriverManager.getConnection(url);
                            PreparedStatement ps =
                                    c.prepareStatement("UPDATE totals SET amount = 9 WHERE restaurant_id = 2")) {
                        ps.executeUpdate();
                        return token + " wrote";
                    } catch (java.sql.SQLException e) {
                        return token + " " + e.getClass().getName();
                    }
                })
                .get();
        System.out.println("afterwards " + seen);
    }

    private static void childFirst(NightlyJob job, String url, Path driverJar, Path pgJar) {
        try {
            ClassLoader loader = new ChildFirstLoader(
                    new URL[] {driverJar.toUri().toURL(), pgJar.toUri().toURL()});
            Class<?> fencing = Class.forName("dev.fenced.Fencing", true, loader);
            Class<?> store = Class.forName("dev.fenced.internal.bootstrap.FencedContextStore", false, loader);
            System.out.println("childfirst fencing-loader " + (fencing.getClassLoader() == loader) + " own-store-copy "
                    + (store.getClassLoader() == loader));
            Method currentToken = fencing.getMethod("currentToken");
            Driver driver = (Driver) Class.forName("dev.fenced.FencedDriver", true, loader)
                    .getConstructor()
                    .newInstance();
            String result = job.pool
                    .submit(() -> {
                        Object token = currentToken.invoke(null);
                        try (Connection c = driver.connect(url, new Properties());
                                PreparedStatement ps =
                                        c.prepareStatement("UPDATE totals SET amount = 5 WHERE restaurant_id = 5")) {
                            ps.executeUpdate();
                        }
                        return show((OptionalLong) token);
                    })
                    .get();
            System.out.println("token childfirst " + result);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** Loads its own URLs first, like naive plugin and web-app loaders do. */
    static final class ChildFirstLoader extends URLClassLoader {
        ChildFirstLoader(URL[] urls) {
            super(urls, ClassLoader.getSystemClassLoader());
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            synchronized (getClassLoadingLock(name)) {
                Class<?> c = findLoadedClass(name);
                if (c == null && !name.startsWith("java.")) {
                    try {
                        c = findClass(name);
                    } catch (ClassNotFoundException notMine) {
                        c = null;
                    }
                }
                if (c == null) {
                    return super.loadClass(name, resolve);
                }
                if (resolve) {
                    resolveClass(c);
                }
                return c;
            }
        }
    }
}
