package dev.fenced.internal.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The statements in PostgreSQL's own log written with {@code log_statement = mod}, in each of its formats:
 * {@code stderr} (whatever {@code log_line_prefix} is), {@code csvlog} and {@code jsonlog} (PostgreSQL 15+).
 * The format is told by the file's extension ({@code .csv}, {@code .json}, as the logging collector names
 * them) or, for any other name, by its first line. A statement is a LOG message {@code statement: ...} (simple
 * queries) or {@code execute <name>: ...} (prepared ones, as pgjdbc sends them), also after
 * {@code duration: ... ms}; it can span lines in every format.
 */
final class ServerLog {

    enum Format {
        STDERR,
        CSVLOG,
        JSONLOG
    }

    /** The message of a statement line, without the severity: what follows is the statement. */
    private static final Pattern MESSAGE =
            Pattern.compile("^(?:duration: [0-9.]+ ms\\s+)?(?:statement|execute [^:\\n]*?): (.*)$", Pattern.DOTALL);
    /** The same in a stderr line, after the prefix. */
    private static final Pattern STDERR_LINE =
            Pattern.compile("LOG:\\s+(?:duration: [0-9.]+ ms\\s+)?(?:statement|execute [^:]*?): (.*)$");
    /** A csvlog record starts with its log_time (a time zone name, no space) and a comma. */
    private static final Pattern CSV_START =
            Pattern.compile("^\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d(\\.\\d+)? [A-Za-z0-9+:/_-]*,");
    /** csvlog's columns: error_severity and message (the same in PostgreSQL 13 to 18). */
    private static final int CSV_SEVERITY = 11;

    private static final int CSV_MESSAGE = 13;

    private ServerLog() {}

    static Format detect(Path file, String text) {
        String name =
                file.getFileName() == null ? "" : file.getFileName().toString().toLowerCase(Locale.ROOT);
        if (name.endsWith(".csv")) {
            return Format.CSVLOG;
        }
        if (name.endsWith(".json")) {
            return Format.JSONLOG;
        }
        String first = text.stripLeading();
        if (first.startsWith("{")) {
            return Format.JSONLOG;
        }
        return CSV_START.matcher(first).find() ? Format.CSVLOG : Format.STDERR;
    }

    /** Each statement in the log, in order, handed to {@code statement}. */
    static Format read(Path file, String text, Consumer<String> statement) throws CliException {
        Format format = detect(file, text);
        switch (format) {
            case CSVLOG -> csvlog(file, text, statement);
            case JSONLOG -> jsonlog(file, text, statement);
            default -> stderr(text, statement);
        }
        return format;
    }

    /** A statement continues on the lines PostgreSQL starts with a tab. */
    private static void stderr(String text, Consumer<String> statement) {
        StringBuilder current = null;
        for (String line : text.split("\r?\n", -1)) {
            if (current != null && line.startsWith("\t")) {
                current.append('\n').append(line.substring(1));
                continue;
            }
            if (current != null) {
                statement.accept(current.toString());
                current = null;
            }
            Matcher m = STDERR_LINE.matcher(line);
            if (m.find()) {
                current = new StringBuilder(m.group(1));
            }
        }
        if (current != null) {
            statement.accept(current.toString());
        }
    }

    /** One JSON object per line; {@code message} holds the statement with its newlines escaped. */
    private static void jsonlog(Path file, String text, Consumer<String> statement) throws CliException {
        String[] lines = text.split("\r?\n", -1);
        for (int i = 0; i < lines.length; i++) {
            if (lines[i].isBlank()) {
                continue;
            }
            Object record;
            try {
                record = JsonReader.parse(lines[i]);
            } catch (JsonReader.Malformed e) {
                throw notA(file, "jsonlog", "line " + (i + 1) + " is not a JSON object: " + e.getMessage());
            }
            if (!(record instanceof Map<?, ?> m) || !(m.get("message") instanceof String message)) {
                throw notA(file, "jsonlog", "line " + (i + 1) + " has no \"message\"");
            }
            if ("LOG".equals(m.get("error_severity"))) {
                message(message, statement);
            }
        }
    }

    /** RFC 4180 records: a quoted field may hold commas, doubled quotes and newlines (a multi-line statement). */
    private static void csvlog(Path file, String text, Consumer<String> statement) throws CliException {
        List<String> fields = new ArrayList<>();
        StringBuilder field = new StringBuilder();
        int record = 1;
        int i = 0;
        int n = text.length();
        while (i < n) {
            char c = text.charAt(i);
            if (c == '"' && field.isEmpty()) {
                int close = i + 1;
                while (true) {
                    close = text.indexOf('"', close);
                    if (close < 0) {
                        throw notA(file, "csvlog", "record " + record + " has a quoted field that never ends");
                    }
                    if (close + 1 < n && text.charAt(close + 1) == '"') {
                        close += 2;
                        continue;
                    }
                    break;
                }
                field.append(text, i + 1, close);
                int at = field.indexOf("\"\"");
                while (at >= 0) {
                    field.deleteCharAt(at);
                    at = field.indexOf("\"\"", at + 1);
                }
                i = close + 1;
                if (field.isEmpty()) {
                    field.append('\0'); // a quoted empty field: not the start of another quoted one
                }
            } else if (c == ',') {
                fields.add(field.toString().replace("\0", ""));
                field.setLength(0);
                i++;
            } else if (c == '\n' || c == '\r') {
                fields.add(field.toString().replace("\0", ""));
                field.setLength(0);
                csvRecord(file, record, fields, statement);
                fields.clear();
                record++;
                i += c == '\r' && i + 1 < n && text.charAt(i + 1) == '\n' ? 2 : 1;
            } else {
                field.append(c);
                i++;
            }
        }
        if (!field.isEmpty() || !fields.isEmpty()) {
            fields.add(field.toString().replace("\0", ""));
            csvRecord(file, record, fields, statement);
        }
    }

    private static void csvRecord(Path file, int record, List<String> fields, Consumer<String> statement)
            throws CliException {
        if (fields.size() == 1 && fields.get(0).isEmpty()) {
            return; // a blank line
        }
        if (fields.size() <= CSV_MESSAGE) {
            throw notA(
                    file,
                    "csvlog",
                    "record " + record + " has " + fields.size() + " fields, not the " + (CSV_MESSAGE + 1)
                            + " or more of PostgreSQL's csvlog");
        }
        if (fields.get(CSV_SEVERITY).equals("LOG")) {
            message(fields.get(CSV_MESSAGE), statement);
        }
    }

    private static void message(String message, Consumer<String> statement) {
        Matcher m = MESSAGE.matcher(message);
        if (m.find()) {
            statement.accept(m.group(1));
        }
    }

    private static CliException notA(Path file, String format, String why) {
        return CliException.usage("--log " + file + " is not PostgreSQL's " + format + " log: " + why);
    }
}
