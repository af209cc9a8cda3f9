package dev.fenced.spring;

import static org.junit.jupiter.api.Assertions.assertNull;

import dev.fenced.it.support.ApiSurface;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The Boot module's public API equals its committed baseline ({@code api/fenced-spring-boot.txt}); update it with
 * {@code -Dfencedtest.api.update=true} in the change that means to alter the API.
 */
class ApiBaselineTest {

    @Test
    void publicApiIsTheBaseline() throws IOException {
        assertNull(ApiSurface.compare(Path.of("target/classes"), Path.of("api/fenced-spring-boot.txt")));
    }
}
