package dev.fenced.internal.spring.config;

import dev.fenced.FencedProperty;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes {@code META-INF/spring-configuration-metadata.json} from {@link FencedProperty} at build time (the
 * module's pom runs it), so IDE completion of {@code fenced.*} keys lists exactly the keys the driver accepts,
 * with their defaults, descriptions and choices. Family keys ({@code fenced.table.<table>.mode}) become map
 * entries of their prefix.
 */
public final class MetadataGenerator {

    private MetadataGenerator() {}

    public static void main(String[] args) throws IOException {
        Path out = Path.of(args[0]);
        Files.createDirectories(out.getParent());
        Files.writeString(out, json(), StandardCharsets.UTF_8);
    }

    static String json() {
        List<String> properties = new ArrayList<>();
        List<String> hints = new ArrayList<>();
        List<String> families = new ArrayList<>();
        for (FencedProperty p : FencedProperty.values()) {
            if (p.isFamily()) {
                String prefix = p.key().substring(0, p.key().indexOf('<') - 1);
                if (!families.contains(prefix)) {
                    families.add(prefix);
                    properties.add("{\"name\":" + quote(prefix)
                            + ",\"type\":\"java.util.Map<java.lang.String,java.lang.String>\"," + "\"description\":"
                            + quote(familyDescription(prefix)) + "}");
                }
                continue;
            }
            StringBuilder b = new StringBuilder("{\"name\":")
                    .append(quote(p.key()))
                    .append(",\"type\":")
                    .append(quote(type(p)))
                    .append(",\"description\":")
                    .append(quote(p.description().replace("`", "")));
            if (p.defaultValue() != null && !p.defaultValue().isEmpty()) {
                b.append(",\"defaultValue\":")
                        .append(type(p).equals("java.lang.String") ? quote(p.defaultValue()) : p.defaultValue());
            }
            properties.add(b.append('}').toString());
            String syntax = p.valueSyntax();
            if (syntax.contains(" | ") && !type(p).equals("java.lang.Boolean")) {
                List<String> values = new ArrayList<>();
                for (String v : syntax.split("\\s*\\|\\s*")) {
                    values.add("{\"value\":" + quote(v) + "}");
                }
                hints.add("{\"name\":" + quote(p.key()) + ",\"values\":[" + String.join(",", values) + "]}");
            }
        }
        return "{\"groups\":[{\"name\":\"fenced\",\"description\":\"fenced: fencing tokens for PostgreSQL writers\"}],\n"
                + "\"properties\":[\n" + String.join(",\n", properties) + "],\n"
                + "\"hints\":[\n" + String.join(",\n", hints) + "]}\n";
    }

    private static String familyDescription(String prefix) {
        StringBuilder b = new StringBuilder();
        for (FencedProperty p : FencedProperty.values()) {
            if (p.isFamily() && p.key().startsWith(prefix + ".<")) {
                b.append(b.length() == 0 ? "" : " ")
                        .append(p.key())
                        .append(": ")
                        .append(p.description().replace("`", ""));
            }
        }
        return b.toString();
    }

    private static String type(FencedProperty p) {
        return switch (p.valueSyntax()) {
            case "true | false" -> "java.lang.Boolean";
            case "positive integer" -> "java.lang.Integer";
            default -> "java.lang.String";
        };
    }

    private static String quote(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                default -> b.append(c < 0x20 ? String.format("\\u%04x", (int) c) : String.valueOf(c));
            }
        }
        return b.append('"').toString();
    }
}
