package dev.fenced.internal.spring.actuate;

import java.util.Map;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.cloud.CloudPlatform;
import org.springframework.boot.env.EnvironmentPostProcessor;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * Puts the fenced health indicator in the readiness group by default (an instance whose lease store is a standby
 * or unreachable should get no traffic that writes), as the lowest-precedence default: an application that sets
 * {@code management.endpoint.health.group.readiness.include} itself decides alone.
 */
public final class ReadinessGroupDefaults implements EnvironmentPostProcessor {

    static final String INCLUDE = "management.endpoint.health.group.readiness.include";

    @Override
    public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
        // Only where Boot itself makes the readiness group (probes on, or on Kubernetes or Cloud Foundry): naming
        // readinessState elsewhere would fail start-up, as would naming fenced when its indicator is off.
        CloudPlatform platform = CloudPlatform.getActive(environment);
        boolean probes = environment.getProperty(
                "management.endpoint.health.probes.enabled",
                Boolean.class,
                platform == CloudPlatform.KUBERNETES || platform == CloudPlatform.CLOUD_FOUNDRY);
        boolean fenced = environment.getProperty("management.health.fenced.enabled", Boolean.class, true);
        if (probes && fenced && !environment.containsProperty(INCLUDE)) {
            environment
                    .getPropertySources()
                    .addLast(new MapPropertySource("fencedHealthDefaults", Map.of(INCLUDE, "readinessState,fenced")));
        }
    }
}
