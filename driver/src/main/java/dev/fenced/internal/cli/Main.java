package dev.fenced.internal.cli;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.jspecify.annotations.Nullable;

/**
 * {@code java -jar fenced-driver-<version>.jar <command> [options]}: the roll-out tool. Exit status 0 when all
 * is well, 1 when something needs action, 2 on bad usage. Every failure is one line on standard error, never a
 * stack trace ({@code FENCED_CLI_DEBUG=1} adds the trace of an unexpected one).
 */
public final class Main {

    /** The commands, in the order {@code --help} lists them. */
    static final List<Command> COMMANDS =
            List.of(new CheckCommand(), new AuditCommand(), new ExplainCommand(), new InstallCommand());

    /** The driver logs through System.Logger; the tool reports what it finds itself. Kept strongly reachable. */
    private static final Logger QUIET = Logger.getLogger("dev.fenced");

    private Main() {}

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** Runs one command line; returns the exit status. */
    public static int run(String[] argv, PrintStream out, PrintStream err) {
        Level before = QUIET.getLevel();
        QUIET.setLevel(Level.OFF); // restored below: a caller's own JVM (a test, a build plugin) keeps its logging
        try {
            if (!Pgjdbc.visible() && needsPgjdbc(argv)) {
                return runWithPgjdbc(argv, out, err);
            }
            return dispatch(Arrays.asList(argv), out);
        } catch (CliException e) {
            err.println(prefixed(String.valueOf(e.getMessage())));
            return e.exitStatus();
        } catch (RuntimeException | LinkageError e) {
            err.println("fenced: unexpected error: " + e);
            if (System.getenv("FENCED_CLI_DEBUG") != null) {
                e.printStackTrace(err);
            }
            return CliException.USAGE;
        } finally {
            out.flush();
            QUIET.setLevel(before);
        }
    }

    /** Everything but help reads SQL with the driver's rewriter, which uses pgjdbc's parser. */
    private static boolean needsPgjdbc(String[] argv) {
        if (argv.length == 0 || argv[0].startsWith("-") || argv[0].equals("help")) {
            return false;
        }
        return !Arrays.asList(argv).contains("--help") && !Arrays.asList(argv).contains("-h");
    }

    /** Runs the command again in a class loader that has pgjdbc beside the driver's classes. */
    private static int runWithPgjdbc(String[] argv, PrintStream out, PrintStream err) throws CliException {
        @Nullable String explicit = null;
        for (int i = 0; i < argv.length; i++) {
            if (argv[i].equals(Option.PGJDBC.name()) && i + 1 < argv.length) {
                explicit = argv[i + 1];
            } else if (argv[i].startsWith(Option.PGJDBC.name() + "=")) {
                explicit = argv[i].substring(Option.PGJDBC.name().length() + 1);
            }
        }
        ClassLoader loader = Pgjdbc.loaderWith(Pgjdbc.locate(explicit));
        Thread thread = Thread.currentThread();
        ClassLoader before = thread.getContextClassLoader();
        thread.setContextClassLoader(loader);
        try {
            return (int) Class.forName(Main.class.getName(), true, loader)
                    .getMethod("run", String[].class, PrintStream.class, PrintStream.class)
                    .invoke(null, argv, out, err);
        } catch (ReflectiveOperationException e) {
            throw CliException.usage("cannot run with pgjdbc from the class loader: " + e);
        } finally {
            thread.setContextClassLoader(before);
        }
    }

    private static String prefixed(String message) {
        return message.startsWith("fenced") ? message : "fenced: " + message;
    }

    private static int dispatch(List<String> argv, PrintStream out) throws CliException {
        if (argv.isEmpty()) {
            throw CliException.usage("missing command; one of: " + names() + " (see: " + self() + " --help)");
        }
        String first = argv.get(0);
        if (first.equals("--help") || first.equals("-h") || first.equals("help")) {
            if (argv.size() > 1) {
                Command c = command(argv.get(1));
                out.print(help(c));
            } else {
                out.print(help());
            }
            return CliException.OK;
        }
        if (first.startsWith("-")) {
            throw CliException.usage(
                    "missing command before " + first + "; one of: " + names() + " (see: " + self() + " --help)");
        }
        Command command = command(first);
        List<Option> known = new ArrayList<>(common());
        known.addAll(command.options());
        Args args = Args.parse(command.name(), argv.subList(1, argv.size()), known);
        if (args.has(Option.HELP)) {
            out.print(help(command));
            return CliException.OK;
        }
        return command.run(new Invocation(args, out));
    }

    private static Command command(String name) throws CliException {
        for (Command c : COMMANDS) {
            if (c.name().equals(name)) {
                return c;
            }
        }
        throw CliException.usage(
                "unknown command '" + name + "'; one of: " + names() + " (see: " + self() + " --help)");
    }

    /**
     * How the user started the tool, for the messages that tell them what to type next: the {@code tools/fenced}
     * launcher sets {@code dev.fenced.cli.name} (not a {@code fenced.*} key, which the configuration would check); otherwise it was {@code java -jar}.
     */
    static String self() {
        return System.getProperty("dev.fenced.cli.name", "java -jar fenced-driver-<version>.jar");
    }

    private static String names() {
        return String.join(", ", COMMANDS.stream().map(Command::name).toList());
    }

    static List<Option> common() {
        return List.of(Option.URL, Option.TABLES, Option.CONFIG, Option.PGJDBC, Option.HELP);
    }

    static String help() {
        StringBuilder b = new StringBuilder();
        b.append("fenced ").append(Pgjdbc.buildProperty("version", "")).append(" - roll-out tool for fenced\n\n");
        b.append("usage: ").append(self()).append(" <command> [options]\n");
        b.append("   (tools/fenced in the source tree is a launcher for: java -jar fenced-driver-<version>.jar)\n");
        b.append("\ncommands:\n");
        for (Command c : COMMANDS) {
            b.append(String.format("  %-9s %s%n", c.name(), c.summary()));
        }
        b.append("\noptions of every command:\n");
        appendOptions(b, common());
        b.append(fencedKeys());
        b.append("\nexit status: 0 all well, 1 something needs action, 2 bad input or a missing prerequisite.\n");
        b.append(self()).append(" <command> --help describes one command.\n");
        return b.toString();
    }

    static String help(Command c) {
        StringBuilder b = new StringBuilder(c.description()).append("\n\noptions:\n");
        appendOptions(b, c.options());
        appendOptions(b, common());
        b.append(fencedKeys());
        return b.toString();
    }

    private static String fencedKeys() {
        return String.format(
                        "  %-28s %s%n", "--fenced.KEY=VALUE", "any fenced configuration key (also -Dfenced.KEY=VALUE),")
                + String.format("  %-28s %s%n", "", "read with the driver's precedence: --url parameters, then the")
                + String.format("  %-28s %s%n", "", "command line, system properties, FENCED_* variables, --config");
    }

    private static void appendOptions(StringBuilder b, List<Option> options) {
        for (Option o : options) {
            b.append(String.format("  %-28s %s%n", o.synopsis(), o.help()));
        }
    }
}
