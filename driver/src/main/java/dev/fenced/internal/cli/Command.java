package dev.fenced.internal.cli;

import java.util.List;

/** One command of the tool: its name, its help, its options (besides the common ones) and what it does. */
interface Command {

    String name();

    /** One line for the command list. */
    String summary();

    /** The synopsis and what the command does, for {@code <command> --help}. */
    String description();

    List<Option> options();

    /** Runs the command; returns the exit status (0 all well, 1 something needs action). */
    int run(Invocation invocation) throws CliException;
}
