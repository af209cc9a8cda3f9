package dev.fenced.it.api;

import static org.junit.jupiter.api.Assertions.assertNull;

import dev.fenced.it.support.ApiSurface;
import java.io.IOException;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Each published jar's public API equals its committed baseline ({@code <module>/api/<artifactId>.txt}). A new public
 * type or member, or one gone, fails here until the baseline is updated in the same change
 * ({@code -Dfencedtest.api.update=true}), so the API only grows by decision. The Spring Boot module checks its own.
 */
class ApiBaselineIT {

    private static final Path ROOT = Path.of(System.getProperty("fencedtest.root", ".."));
    private static final String VERSION = System.getProperty("fencedtest.version");

    static Stream<Arguments> jars() {
        return Stream.of(
                Arguments.of("driver", "fenced-driver"),
                Arguments.of("agent", "fenced-agent"),
                Arguments.of("integrations/shedlock", "fenced-shedlock"),
                Arguments.of("integrations/quartz", "fenced-quartz"),
                Arguments.of("integrations/db-scheduler", "fenced-db-scheduler"),
                Arguments.of("integrations/spring-integration", "fenced-spring-integration"),
                Arguments.of("stores/contract", "fenced-lease-store-contract"),
                Arguments.of("stores/etcd", "fenced-lease-etcd"));
    }

    @ParameterizedTest(name = "{1}")
    @MethodSource("jars")
    void publicApiIsTheBaseline(String module, String artifactId) throws IOException {
        Path jar = ROOT.resolve(module).resolve("target").resolve(artifactId + "-" + VERSION + ".jar");
        assertNull(ApiSurface.compare(jar, ROOT.resolve(module).resolve("api").resolve(artifactId + ".txt")));
    }
}
