package dev.fenced.internal.cli;

/**
 * Ends a command with one line for the user and an exit status: {@link #USAGE} (2) when the command line is
 * wrong (unknown option, bad URL, a file that is not what the option says), {@link #ACTION} (1) when the
 * database or the application needs something done first. Never shown with a stack trace.
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

    static CliException action(String message) {
        return new CliException(ACTION, message);
    }

    int exitStatus() {
        return exitStatus;
    }
}
