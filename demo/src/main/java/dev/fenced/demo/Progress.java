package dev.fenced.demo;

import java.io.PrintStream;

/** A one-line progress bar on standard error, redrawn in place. */
final class Progress {

    private static final int WIDTH = 30;
    private final PrintStream out;

    Progress(PrintStream out) {
        this.out = out;
    }

    void show(String mode, long done, long total, long runs) {
        int filled = total == 0 ? WIDTH : (int) Math.min(WIDTH, done * WIDTH / total);
        out.printf(
                "\r  %-15s [%s%s] %3d%%  %d/%d restaurants done, %d runs",
                mode,
                "#".repeat(filled),
                ".".repeat(WIDTH - filled),
                total == 0 ? 100 : done * 100 / total,
                done,
                total,
                runs);
        out.flush();
    }

    void finish() {
        out.println();
    }
}
