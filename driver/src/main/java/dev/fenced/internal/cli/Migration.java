package dev.fenced.internal.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;

/**
 * Writes the migration that adds the missing fence columns (and turns wrongly typed ones into bigint), in the
 * tool the application already uses: a Flyway versioned script, a Liquibase changelog (XML or YAML), or plain SQL.
 */
final class Migration {

    enum Format {
        FLYWAY,
        LIQUIBASE,
        LIQUIBASE_YAML,
        SQL;

        static Format parse(String value) throws CliException {
            try {
                return valueOf(value.trim().toUpperCase(Locale.ROOT).replace('-', '_'));
            } catch (IllegalArgumentException e) {
                throw CliException.usage(
                        "--migration " + value + ": expected flyway, liquibase, liquibase-yaml or sql");
            }
        }
    }

    private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMddHHmmss");

    private Migration() {}

    /** Writes the file and returns its path. */
    static Path write(Format format, Path dir, List<ColumnFix> fixes, ZonedDateTime now) throws CliException {
        String stamp = now.withZoneSameInstant(ZoneOffset.UTC).format(STAMP);
        String name = switch (format) {
            case FLYWAY -> "V" + stamp + "__fenced_columns.sql";
            case LIQUIBASE -> "fenced-columns-" + stamp + ".xml";
            case LIQUIBASE_YAML -> "fenced-columns-" + stamp + ".yaml";
            case SQL -> "fenced-columns-" + stamp + ".sql";
        };
        String text = switch (format) {
            case FLYWAY, SQL -> sql(fixes);
            case LIQUIBASE -> liquibaseXml(fixes, stamp);
            case LIQUIBASE_YAML -> liquibaseYaml(fixes, stamp);
        };
        try {
            Files.createDirectories(dir);
            Path file = dir.resolve(name);
            Files.writeString(file, text, StandardCharsets.UTF_8);
            return file;
        } catch (IOException e) {
            throw CliException.usage("cannot write the migration to " + dir + ": " + e.getMessage());
        }
    }

    static String sql(List<ColumnFix> fixes) {
        StringBuilder b =
                new StringBuilder("-- fenced: fence columns for the protected tables (written by fenced check)\n");
        for (ColumnFix f : fixes) {
            b.append(f.sql()).append('\n');
        }
        return b.toString();
    }

    private static String liquibaseXml(List<ColumnFix> fixes, String stamp) {
        StringBuilder b = new StringBuilder("""
                <?xml version="1.0" encoding="UTF-8"?>
                <databaseChangeLog xmlns="http://www.liquibase.org/xml/ns/dbchangelog"
                                   xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
                                   xsi:schemaLocation="http://www.liquibase.org/xml/ns/dbchangelog
                                   https://www.liquibase.org/xml/ns/dbchangelog/dbchangelog-latest.xsd">
                """);
        b.append("  <!-- fenced: fence columns for the protected tables (written by fenced check) -->\n");
        b.append("  <changeSet id=\"fenced-columns-").append(stamp).append("\" author=\"fenced\">\n");
        for (ColumnFix f : fixes) {
            if (f.currentType() == null) {
                b.append("    <addColumn schemaName=\"")
                        .append(xml(f.schema()))
                        .append("\" tableName=\"")
                        .append(xml(f.table()))
                        .append("\">\n      <column name=\"")
                        .append(xml(f.column()))
                        .append("\" type=\"bigint\"/>\n    </addColumn>\n");
            } else {
                b.append("    <modifyDataType schemaName=\"")
                        .append(xml(f.schema()))
                        .append("\" tableName=\"")
                        .append(xml(f.table()))
                        .append("\" columnName=\"")
                        .append(xml(f.column()))
                        .append("\" newDataType=\"bigint\"/>\n");
            }
        }
        return b.append("  </changeSet>\n</databaseChangeLog>\n").toString();
    }

    private static String liquibaseYaml(List<ColumnFix> fixes, String stamp) {
        StringBuilder b =
                new StringBuilder("# fenced: fence columns for the protected tables (written by fenced check)\n");
        b.append("databaseChangeLog:\n  - changeSet:\n      id: fenced-columns-")
                .append(stamp)
                .append("\n      author: fenced\n      changes:\n");
        for (ColumnFix f : fixes) {
            if (f.currentType() == null) {
                b.append("        - addColumn:\n            schemaName: ")
                        .append(yaml(f.schema()))
                        .append("\n            tableName: ")
                        .append(yaml(f.table()))
                        .append("\n            columns:\n              - column:\n                  name: ")
                        .append(yaml(f.column()))
                        .append("\n                  type: bigint\n");
            } else {
                b.append("        - modifyDataType:\n            schemaName: ")
                        .append(yaml(f.schema()))
                        .append("\n            tableName: ")
                        .append(yaml(f.table()))
                        .append("\n            columnName: ")
                        .append(yaml(f.column()))
                        .append("\n            newDataType: bigint\n");
            }
        }
        return b.toString();
    }

    private static String xml(String s) {
        return s.replace("&", "&amp;")
                .replace("\"", "&quot;")
                .replace("<", "&lt;")
                .replace(">", "&gt;");
    }

    private static String yaml(String s) {
        return "'" + s.replace("'", "''") + "'";
    }
}
