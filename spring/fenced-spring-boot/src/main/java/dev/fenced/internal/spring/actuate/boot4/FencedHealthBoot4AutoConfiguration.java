package dev.fenced.internal.spring.actuate.boot4;

import dev.fenced.LeaseManager;
import dev.fenced.internal.spring.actuate.FencedHealthCheck;
import dev.fenced.spring.FencedAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;

/** The {@code fenced} health indicator on Boot 4 ({@code org.springframework.boot.health.contributor}, module spring-boot-health). */
@AutoConfiguration(after = FencedAutoConfiguration.class)
@ConditionalOnClass(name = "org.springframework.boot.health.contributor.AbstractHealthIndicator")
@ConditionalOnBean(LeaseManager.class)
@ConditionalOnProperty(name = "management.health.fenced.enabled", havingValue = "true", matchIfMissing = true)
public class FencedHealthBoot4AutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(name = "fencedHealthIndicator")
    FencedHealthIndicator fencedHealthIndicator(LeaseManager leases) {
        return new FencedHealthIndicator(new FencedHealthCheck(leases));
    }
}
