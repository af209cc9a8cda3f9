package dev.fenced.demo;

import java.io.PrintStream;

/**
 * Progress on standard error: on a terminal one bar redrawn in place; otherwise (a log, a CI job, a pipe)
 * plain lines, one each quarter of the way, since a carriage return there leaves one long garbled line.
 */
final class Progress {

    private static final int WIDTH = 30;
    private static final int LINE_STEP = 25;
    private final PrintStream out;
    private final boolean inPlace;
    private long lastPercentShown = -1;

    Progress(PrintStream out, boolean inPlace) {
        this.out = out;
        this.inPlace = inPlace;
    }

    static Progress forStandardError() {
        return new Progress(System.err, onTerminal());
    }

    /**
     * Whether a person watches a terminal. Up to JDK 21 {@link System#console()} is null when input or output is
     * redirected; from JDK 22 it is there anyway and {@code Console.isTerminal()} (absent on 17, hence the
     * reflection) answers.
     */
    @SuppressWarnings("SystemConsoleNull") // the JDK 22+ case is handled below
    static boolean onTerminal() {
        java.io.Console console = System.console();
        if (console == null) {
            return false;
        }
        try {
            return (Boolean) java.io.Console.class.getMethod("isTerminal").invoke(console);
        } catch (ReflectiveOperationException e) {
            return true; // JDK 17 to 21: a console exists only on a terminal
        }
    }

    void show(String mode, long done, long total, long runs) {
        long percent = total == 0 ? 100 : done * 100 / total;
        if (inPlace) {
            out.print("\r" + line(mode, done, total, runs));
            out.flush();
        } else if (lastPercentShown < 0 || percent / LINE_STEP > lastPercentShown / LINE_STEP) {
            lastPercentShown = percent;
            out.println(line(mode, done, total, runs));
        }
    }

    static String line(String mode, long done, long total, long runs) {
        int filled = total == 0 ? WIDTH : (int) Math.min(WIDTH, done * WIDTH / total);
        return String.format(
                "  %-15s [%s%s] %3d%%  %d/%d restaurants done, %d runs",
                mode,
                "#".repeat(filled),
                ".".repeat(WIDTH - filled),
                total == 0 ? 100 : done * 100 / total,
                done,
                total,
                runs);
    }

    /** Ends one mode's progress: the bar's line, or nothing more in line mode. */
    void finish() {
        if (inPlace) {
            out.println();
        }
        lastPercentShown = -1;
    }
}
