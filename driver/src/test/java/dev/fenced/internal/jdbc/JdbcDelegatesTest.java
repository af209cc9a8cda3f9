package dev.fenced.internal.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The committed {@code Delegating*} sources are exactly what {@link JdbcDelegates} generates from this JDK's
 * {@code java.sql}: nobody edits them by hand, and a JDK that adds a JDBC method fails here (and in
 * {@link JdbcCompletenessTest}) until they are regenerated with {@code -Dfencedtest.regenerate=true}.
 */
class JdbcDelegatesTest {

    private static final Path SOURCES = Path.of("src/main/java/dev/fenced/internal/jdbc");

    static Stream<Arguments> specs() {
        return JdbcDelegates.SPECS.stream().map(s -> Arguments.of(s.className(), s));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("specs")
    void committedSourceIsWhatTheGeneratorWrites(String className, JdbcDelegates.Spec spec) throws IOException {
        Path file = SOURCES.resolve(className + ".java");
        String generated = JdbcDelegates.generate(spec);
        if (Boolean.getBoolean("fencedtest.regenerate")) {
            Files.writeString(file, generated, StandardCharsets.UTF_8);
        }
        assertEquals(
                generated,
                Files.readString(file, StandardCharsets.UTF_8),
                file
                        + " differs from what the generator writes: run `mvn -pl driver test -Dtest=JdbcDelegatesTest"
                        + " -Dfencedtest.regenerate=true` on JDK 17 and commit the result");
    }
}
