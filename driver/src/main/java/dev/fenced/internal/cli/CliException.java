package dev.fenced.internal.cli;

/**
 * Ends a command with one line for the user and an exit status, the same across commands: {@link #USAGE} (2) when
 * the input is wrong (unknown option, bad URL, a file or argument that is not what the option says) or a
 * prerequisite of the command itself is missing (pg_stat_statements for {@code audit}), so the command could not
 * look at all; {@link #ACTION} (1) when it looked and the database or the application needs something done.
 * Never shown with a stack trace.
 */
final class CliException extends Exception {

    private static final long serialVersionUID = 1L;

    static final int OK = 0;
    static final int ACTION = 1;
    static final int USAGE = 2;

    private final int exitStatus;

    CliException(int exitStatus, String message) {
        super(message, null, false, false);
        this.exitStatus = exitStatus;
    }

    static CliException usage(String message) {
        return new CliException(USAGE, message);
    }

    /** The command cannot run here until something is set up (an extension, a grant): nothing was examined. */
    static CliException prerequisite(String message) {
        return new CliException(USAGE, message);
    }

    static CliException action(String message) {
        return new CliException(ACTION, message);
    }

    int exitStatus() {
        return exitStatus;
    }
}
