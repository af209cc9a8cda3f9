package dev.fenced.internal.cli;

/**
 * One command-line option: its name ({@code --url}), the names of the values it takes (none for a flag,
 * two for {@code --migration FORMAT DIR}) and one line of help.
 */
record Option(String name, String[] values, String help) {

    static Option of(String name, String values, String help) {
        return new Option(name, values.isEmpty() ? new String[0] : values.split(" "), help);
    }

    int arity() {
        return values.length;
    }

    String synopsis() {
        return values.length == 0 ? name : name + " " + String.join(" ", values);
    }

    /** Options every command takes: where the database is and how fenced is configured. */
    static final Option URL = of(
            "--url",
            "URL",
            "jdbc:fenced:postgresql://... or jdbc:postgresql://... (its"
                    + " fenced.* parameters count, as in the driver)");

    static final Option TABLES = of("--tables", "LIST", "protected tables, comma separated (sets fenced.tables)");
    static final Option CONFIG = of("--config", "FILE", "a fenced.properties file (sets fenced.config)");
    static final Option PGJDBC = of(
            "--pgjdbc",
            "JAR",
            "pgjdbc jar, when none is on the class path (default: beside this jar, then" + " ~/.m2)");
    static final Option FORMAT = of("--format", "FORMAT", "text (default), json or markdown");
    static final Option HELP = of("--help", "", "this help");
}
